import { test } from "uvu";
import * as assert from "uvu/assert";
import { isSdkCallResult, isSdkTool } from "../../lib/mcp/sdk-guard.js";

test("isSdkTool is the SDK's ToolSchema: exactly the root shapes docs/design/acp-mcp-toolchain.md §2.1 lists", () => {
  const accepted = [
    { type: "object" },
    { type: "object", anyOf: [{ type: "object" }] },
    { type: "object", $ref: "#/$defs/a", $defs: { a: {} } },
    { type: "object", properties: { a: [] } },
    { type: "object", properties: { a: { properties: { b: true } } } },
  ];
  const rejected = [
    { anyOf: [{ type: "object" }] },
    { oneOf: [{ type: "object" }] },
    { type: ["object", "null"] },
    { $ref: "#/$defs/a" },
    { type: "object", properties: { a: true } },
    { type: "object", required: [1] },
    true,
  ];
  for (const s of accepted) assert.ok(isSdkTool({ name: "t", inputSchema: s }), JSON.stringify(s));
  for (const s of rejected) {
    const problems: string[] = [];
    assert.not.ok(isSdkTool({ name: "t", inputSchema: s }, problems), JSON.stringify(s));
    assert.is(problems.length, 1);
    assert.ok(problems[0]?.startsWith("inputSchema"), problems[0]);
  }
});

test("isSdkCallResult accepts extra keys, rejects a malformed content list", () => {
  assert.ok(isSdkCallResult({ content: [{ type: "text", text: "x", vendor: 1 }], extra: true }));
  assert.ok(isSdkCallResult({}));
  const problems: string[] = [];
  assert.not.ok(isSdkCallResult({ content: "x" }, problems));
  assert.ok(problems[0]?.startsWith("content"));
});

test.run();
