import { test } from "uvu";
import * as assert from "uvu/assert";
import { formatIssue } from "../../lib/mcp/issues.js";

test("formatIssue puts code, tool, site and pointer on one line", () => {
  const line = formatIssue({
    code: "MCP_SCHEMA_NEVER_OBJECT",
    tool: 'say "hi"',
    site: "inputSchema",
    pointer: "/type",
    reason: 'type "string" does not allow an object',
  });
  assert.ok(line.startsWith('MCP_SCHEMA_NEVER_OBJECT tool "say \\"hi\\"" inputSchema/type: '));
  assert.not.ok(line.includes("\n"));
});

test.run();
