import { dereference, validate } from "@cfworker/json-schema";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { schemaDraft } from "../../lib/mcp/draft.js";
import { projectTools } from "../../lib/mcp/project.js";
import type { RawTool } from "../../lib/mcp/raw-tool.js";
import { createToolValidator } from "../../lib/mcp/validate.js";
import { loadBankTools, loadCallCases } from "../sim/mcp-bank/fixture.js";
import { deepFreeze } from "./helpers.js";

function bankOriginals(): RawTool[] {
  return projectTools(loadBankTools()).tools.map((t) => t.original);
}

function detailErrors(details: Readonly<Record<string, unknown>>): unknown[] {
  const e = details.errors;
  return Array.isArray(e) ? e : [];
}

test("every call case: valid ones pass, invalid ones are refused with a typed, located error", () => {
  const validator = createToolValidator(bankOriginals());
  assert.equal(validator.issues, []);
  for (const c of loadCallCases()) {
    const verdict = validator.check(c.tool, c.arguments);
    assert.is(verdict.ok, c.valid, `${c.tool}: ${c.note}`);
    if (!verdict.ok) {
      assert.is(verdict.error.code, "MCP_INVALID_ARGUMENTS", c.note);
      assert.is(verdict.error.context.tool, c.tool);
      assert.ok(verdict.error.message.includes(JSON.stringify(c.tool)), c.note);
      const errors = detailErrors(verdict.error.context);
      assert.ok(errors.length > 0, c.note);
      for (const e of errors)
        assert.ok(typeof e === "object" && e !== null && "instancePath" in e && "schemaPath" in e);
    }
  }
});

test("a union mismatch names every failing alternative and the instance path", () => {
  const validator = createToolValidator(bankOriginals());
  const v = validator.check("open_target", { path: 1 });
  assert.is(v.ok, false);
  if (v.ok) return;
  assert.ok(v.error.message.includes("no anyOf alternative matched"));
  assert.ok(v.error.message.includes("[0] /path: expected string, got number"));
  assert.ok(v.error.message.includes('[1] missing required property "url"'));
  const paths = detailErrors(v.error.context).map((e) =>
    typeof e === "object" && e !== null && "schemaPath" in e ? e.schemaPath : undefined,
  );
  assert.equal(paths, [
    "/anyOf/0/properties/path/type",
    "/anyOf/1/required",
    "/anyOf/1/additionalProperties",
  ]);
  const overlap = validator.check("pick_one", { a: 1, b: 2 });
  assert.ok(!overlap.ok && overlap.error.message.includes("matches 2 oneOf alternatives"));
});

test("unknown tool, absent arguments, arguments that are not an object", () => {
  const validator = createToolValidator(bankOriginals());
  const unknown = validator.check("no_such_tool", {});
  assert.ok(!unknown.ok && unknown.error.code === "MCP_UNKNOWN_TOOL");
  // A never-object tool is not in the validated set at all.
  const never = validator.check("spell_word", {});
  assert.ok(!never.ok && never.error.code === "MCP_UNKNOWN_TOOL");
  assert.ok(validator.check("anything_goes", undefined).ok);
  const missing = validator.check("strict_point", undefined);
  assert.ok(!missing.ok && missing.error.code === "MCP_INVALID_ARGUMENTS");
  for (const bad of [[1], "x", null, 3]) {
    const r = validator.check("anything_goes", bad);
    assert.ok(!r.ok && r.error.code === "MCP_INVALID_ARGUMENTS", JSON.stringify(bad));
  }
});

test("the draft comes from $schema: a draft-07 $ref silences its siblings", () => {
  const validator = createToolValidator(bankOriginals());
  assert.ok(validator.check("legacy_job", { code: "abcdef" }).ok);
  // The same schema read as 2020-12 would apply the sibling maxLength 2 and refuse the call.
  const legacy = bankOriginals().find((t) => t.name === "legacy_job")?.inputSchema;
  const copy = structuredClone(legacy);
  assert.ok(typeof copy === "object" && copy !== null && !Array.isArray(copy));
  if (typeof copy === "object" && copy !== null && !Array.isArray(copy))
    assert.is(validate({ code: "abcdef" }, copy, "2020-12", dereference(copy), false).valid, false);
});

test("originals are never touched: frozen input works and gains no hidden properties", () => {
  const tools = deepFreeze(bankOriginals());
  const validator = createToolValidator(tools);
  for (const c of loadCallCases()) validator.check(c.tool, c.arguments);
  const schema = tools.find((t) => t.name === "create_issue")?.inputSchema;
  assert.ok(typeof schema === "object" && schema !== null);
  if (typeof schema === "object" && schema !== null)
    assert.not.ok(Object.getOwnPropertyNames(schema).some((k) => k.startsWith("__absolute")));
});

test("a subschema object shared by two tools is resolved per tool", () => {
  const shared = { type: "object", properties: { x: { $ref: "#/$defs/n" } } };
  const validator = createToolValidator([
    {
      name: "a",
      inputSchema: {
        $id: "https://a.example/s",
        $defs: { n: { type: "string" } },
        allOf: [shared],
      },
    },
    {
      name: "b",
      inputSchema: {
        $id: "https://b.example/s",
        $defs: { n: { type: "number" } },
        allOf: [shared],
      },
    },
  ]);
  assert.ok(validator.check("a", { x: "s" }).ok);
  assert.not.ok(validator.check("a", { x: 1 }).ok);
  assert.ok(validator.check("b", { x: 1 }).ok);
  assert.not.ok(validator.check("b", { x: "s" }).ok);
});

test("schemas cfworker cannot evaluate are reported when built and their calls refused", () => {
  const validator = createToolValidator([
    { name: "dangling", inputSchema: { $ref: "#/$defs/missing" } },
    { name: "remote", inputSchema: { properties: { a: { $ref: "https://example.com/a.json" } } } },
    { name: "regex", inputSchema: { properties: { a: { type: "string", pattern: "(?<x" } } } },
    { name: "regex_key", inputSchema: { patternProperties: { "[": {} } } },
    {
      name: "dup_id",
      inputSchema: {
        $defs: { a: { $id: "https://x.example/a" }, b: { $id: "https://x.example/a" } },
      },
    },
    { name: "no_schema" },
    { name: "example_only", inputSchema: { type: "object", examples: [{ pattern: "(" }] } },
    { name: "twice", inputSchema: {} },
    { name: "twice", inputSchema: {} },
  ]);
  assert.equal(
    validator.issues.map((i) => [i.tool, i.code]),
    [
      ["dangling", "MCP_SCHEMA_UNUSABLE"],
      ["remote", "MCP_SCHEMA_UNUSABLE"],
      ["regex", "MCP_SCHEMA_UNUSABLE"],
      ["regex_key", "MCP_SCHEMA_UNUSABLE"],
      ["dup_id", "MCP_SCHEMA_UNUSABLE"],
      ["no_schema", "MCP_SCHEMA_UNUSABLE"],
      ["twice", "MCP_TOOL_DUPLICATE"],
    ],
  );
  assert.equal(validator.names, ["example_only"]);
  for (const name of ["dangling", "remote", "regex", "twice"]) {
    const r = validator.check(name, {});
    assert.ok(!r.ok && r.error.code === "MCP_SCHEMA_UNUSABLE", name);
  }
  assert.ok(validator.check("example_only", {}).ok);
});

test("required __proto__ means an own key (ajv without ownProperties accepts {})", () => {
  const validator = createToolValidator(bankOriginals());
  const r = validator.check("proto_keys", {});
  assert.ok(!r.ok && r.error.message.includes('missing required property "__proto__"'));
  assert.ok(validator.check("proto_keys", JSON.parse('{"__proto__":"own"}')).ok);
});

test("a call with many errors still gets a short message; details keep them all", () => {
  const validator = createToolValidator([
    {
      name: "wide",
      inputSchema: {
        type: "object",
        additionalProperties: { type: "integer" },
      },
    },
  ]);
  const args = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`key_${i}`, "x"]));
  const r = validator.check("wide", args);
  assert.ok(!r.ok);
  if (!r.ok) {
    assert.ok(r.error.message.length < 700, String(r.error.message.length));
    assert.ok(r.error.message.includes("errors in details"));
    assert.is(detailErrors(r.error.context).length, 200);
  }
});

test("never throws, and agrees with cfworker on arbitrary arguments for every bank tool", () => {
  const originals = bankOriginals();
  const validator = createToolValidator(originals);
  fc.assert(
    fc.property(
      fc.constantFrom(...originals),
      fc.dictionary(
        fc.constantFrom(
          "path",
          "url",
          "kind",
          "r",
          "w",
          "h",
          "a",
          "b",
          "target",
          "id",
          "title",
          "code",
          "q",
          "x",
          "y",
          "card",
          "cvv",
          "pair",
          "email",
          "__proto__",
        ),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      (tool, args) => {
        const copy = structuredClone(tool.inputSchema);
        if (
          typeof copy !== "boolean" &&
          (typeof copy !== "object" || copy === null || Array.isArray(copy))
        )
          return false;
        const draft = schemaDraft(copy);
        const expected = validate(args, copy, draft, dereference(copy), false).valid;
        return validator.check(tool.name, args).ok === expected;
      },
    ),
    { numRuns: 400 },
  );
});

test.run();
