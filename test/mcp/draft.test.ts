import { test } from "uvu";
import * as assert from "uvu/assert";
import { refOverridesSiblings, schemaDraft } from "../../lib/mcp/draft.js";

test("the draft comes from $schema; absent or unknown means 2020-12 (MCP's default)", () => {
  assert.is(schemaDraft({ $schema: "http://json-schema.org/draft-07/schema#" }), "7");
  assert.is(schemaDraft({ $schema: "http://json-schema.org/draft-07/schema" }), "7");
  assert.is(schemaDraft({ $schema: "http://json-schema.org/draft-06/schema#" }), "7");
  assert.is(schemaDraft({ $schema: "http://json-schema.org/draft-04/schema#" }), "4");
  assert.is(schemaDraft({ $schema: "https://json-schema.org/draft/2019-09/schema" }), "2019-09");
  assert.is(schemaDraft({ $schema: "https://json-schema.org/draft/2020-12/schema" }), "2020-12");
  assert.is(schemaDraft({ $schema: "https://example.com/my-meta" }), "2020-12");
  assert.is(schemaDraft({}), "2020-12");
  assert.is(schemaDraft(true), "2020-12");
  assert.is(schemaDraft({ $schema: 7 }), "2020-12");
});

test("$ref silences its siblings only in draft-04/07", () => {
  assert.ok(refOverridesSiblings("4"));
  assert.ok(refOverridesSiblings("7"));
  assert.not.ok(refOverridesSiblings("2019-09"));
  assert.not.ok(refOverridesSiblings("2020-12"));
});

test.run();
