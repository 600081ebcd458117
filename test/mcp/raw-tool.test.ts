import { test } from "uvu";
import * as assert from "uvu/assert";
import { isRawTool, parseToolsListPage } from "../../lib/mcp/raw-tool.js";
import { isGrokSeatErrorCode } from "./helpers.js";

test("isRawTool needs a string name and keeps the very object", () => {
  const t = { name: "x", inputSchema: { anyOf: [] }, extra: 1 };
  assert.ok(isRawTool(t));
  assert.ok(isRawTool({ name: "no schema" }));
  assert.not.ok(isRawTool({ inputSchema: {} }));
  assert.not.ok(isRawTool({ name: 5 }));
  assert.not.ok(isRawTool(null));
  assert.not.ok(isRawTool("x"));
});

test("a page: tools kept by reference, nextCursor string, null or absent", () => {
  const tool = { name: "a" };
  const page = parseToolsListPage({ tools: [tool, "junk"], nextCursor: "c1" });
  assert.is(page.tools[0], tool);
  assert.is(page.tools[1], "junk");
  assert.is(page.nextCursor, "c1");
  assert.is(parseToolsListPage({ tools: [], nextCursor: null }).nextCursor, undefined);
  assert.is(parseToolsListPage({ tools: [] }).nextCursor, undefined);
});

test("a page without a tools array is MCP_UPSTREAM_BAD_LIST", () => {
  for (const bad of [null, {}, { tools: {} }, { tools: [], nextCursor: 5 }]) {
    let err: unknown;
    try {
      parseToolsListPage(bad);
    } catch (e) {
      err = e;
    }
    assert.ok(isGrokSeatErrorCode(err, "MCP_UPSTREAM_BAD_LIST"), JSON.stringify(bad));
  }
});

test.run();
