import { ListToolsResultSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ORIGINAL_INPUT_SCHEMA_META,
  projectSchema,
  projectTools,
  type SchemaRewrite,
} from "../../lib/mcp/project.js";
import { loadBankTools, NEVER_OBJECT_TOOLS } from "../sim/mcp-bank/fixture.js";
import { canonical, deepFreeze, undoRewrites } from "./helpers.js";

/** What each bank tool's projection must rewrite (kinds, in order); absent = reported. */
const EXPECTED: Record<string, readonly SchemaRewrite["kind"][]> = {
  open_target: ["root-type-added"],
  shape_edit: ["root-type-added"],
  pick_one: ["root-type-added"],
  route_message: ["root-type-added"],
  merge_note: ["root-type-added"],
  create_issue: ["root-type-added"],
  tree_walk: ["root-type-added"],
  search_maybe: ["root-type-narrowed"],
  anything_goes: ["root-true-expanded"],
  flags: ["property-boolean-expanded", "property-boolean-expanded"],
  strict_point: ["root-type-added"],
  legacy_job: ["root-type-added"],
  modern_payment: ["root-type-added"],
  contact: ["root-type-added"],
  proto_keys: [],
  echo: [],
  report: [],
};

function bankByName(): Map<string, Record<string, unknown>> {
  const m = new Map<string, Record<string, unknown>>();
  for (const t of loadBankTools())
    if (typeof t === "object" && t !== null && "name" in t && typeof t.name === "string")
      m.set(t.name, { ...t });
  return m;
}

test("the raw bank is rejected whole by the SDK's ListToolsResultSchema, the projection is not", () => {
  const raw = loadBankTools();
  assert.not.ok(ListToolsResultSchema.safeParse({ tools: raw }).success);
  const { tools } = projectTools(raw);
  assert.ok(ListToolsResultSchema.safeParse({ tools: tools.map((t) => t.listed) }).success);
  for (const t of tools) assert.ok(ToolSchema.safeParse(t.listed).success, t.name);
});

test("every bank tool is listed with exactly the expected rewrites, or reported", () => {
  const { tools, issues } = projectTools(loadBankTools());
  assert.equal(
    tools.map((t) => t.name),
    Object.keys(EXPECTED),
  );
  for (const t of tools)
    assert.equal(
      t.rewrites.inputSchema.map((r) => r.kind),
      EXPECTED[t.name],
      t.name,
    );
  assert.equal(
    issues.map((i) => [i.tool, i.code, i.site, i.pointer]),
    [
      ["spell_word", "MCP_SCHEMA_NEVER_OBJECT", "inputSchema", "/type"],
      ["scalar_union", "MCP_SCHEMA_NEVER_OBJECT", "inputSchema", "/anyOf"],
      ["refuse_all", "MCP_SCHEMA_NEVER_OBJECT", "inputSchema", ""],
    ],
  );
  assert.equal(
    issues.map((i) => i.tool),
    [...NEVER_OBJECT_TOOLS],
  );
});

test("every projected schema equals its original apart from the documented rewrites", () => {
  const originals = bankByName();
  const { tools } = projectTools(loadBankTools());
  for (const t of tools) {
    const original = originals.get(t.name);
    assert.ok(original, t.name);
    const listedSchema = t.listed.inputSchema;
    assert.is(listedSchema.type, "object", t.name);
    // Undo each rewrite: the original comes back, key for key (own "__proto__" included).
    assert.is(
      canonical(undoRewrites(listedSchema, t.rewrites.inputSchema)),
      canonical(original?.inputSchema),
      t.name,
    );
    if (original?.outputSchema !== undefined)
      assert.is(
        canonical(undoRewrites(t.listed.outputSchema, t.rewrites.outputSchema)),
        canonical(original.outputSchema),
        t.name,
      );
    // Everything else on the tool entry is unchanged.
    const { inputSchema: _a, outputSchema: _b, ...rest } = t.listed;
    const { inputSchema: _c, outputSchema: _d, ...restOriginal } = original ?? {};
    assert.is(canonical(rest), canonical(restOriginal), t.name);
  }
});

test("each rewrite has its documented form", () => {
  const byName = new Map(projectTools(loadBankTools()).tools.map((t) => [t.name, t]));
  const search = byName.get("search_maybe");
  assert.equal(search?.rewrites.inputSchema, [
    { kind: "root-type-narrowed", pointer: "/type", from: ["object", "null"] },
  ]);
  assert.equal(byName.get("anything_goes")?.listed.inputSchema, { type: "object" });
  const flags = byName.get("flags");
  assert.equal(flags?.listed.inputSchema.properties, {
    verbose: {},
    forbidden: { not: {} },
    level: { type: "integer" },
  });
  assert.equal(flags?.rewrites.inputSchema, [
    { kind: "property-boolean-expanded", pointer: "/properties/verbose", from: true },
    { kind: "property-boolean-expanded", pointer: "/properties/forbidden", from: false },
  ]);
  // An added type goes first; a narrowed one stays where it was.
  assert.equal(Object.keys(byName.get("open_target")?.listed.inputSchema ?? {}), ["type", "anyOf"]);
  assert.equal(Object.keys(search?.listed.inputSchema ?? {}), ["type", "properties", "required"]);
  assert.equal(byName.get("report")?.rewrites.outputSchema, [
    { kind: "root-type-added", pointer: "/type" },
  ]);
});

test("untouched tools are listed as the very same object", () => {
  const raw = loadBankTools();
  const { tools } = projectTools(raw);
  for (const t of tools) {
    assert.is(
      t.original,
      raw.find((r) => r === t.original),
    );
    if (t.rewrites.inputSchema.length + t.rewrites.outputSchema.length === 0)
      assert.is(t.listed, t.original, t.name);
    else assert.is.not(t.listed, t.original, t.name);
  }
});

test("pure: frozen input is fine and unchanged; the output is deterministic", () => {
  const raw = deepFreeze(loadBankTools());
  const before = JSON.stringify(raw);
  const a = projectTools(raw);
  const b = projectTools(raw);
  assert.is(JSON.stringify(raw), before);
  assert.is(JSON.stringify(a), JSON.stringify(b));
});

test("a root property named __proto__ stays an own key when properties are rewritten", () => {
  const schema = JSON.parse('{"properties":{"__proto__":true,"b":false}}');
  const p = projectSchema(schema);
  assert.ok(p.ok);
  if (!p.ok) return;
  const props = p.schema.properties;
  assert.ok(typeof props === "object" && props !== null);
  assert.equal(Object.keys(props ?? {}), ["__proto__", "b"]);
  assert.is(Object.getPrototypeOf(props), Object.prototype);
  assert.is(
    JSON.stringify(p.schema),
    '{"type":"object","properties":{"__proto__":{},"b":{"not":{}}}}',
  );
});

test("not a schema where the SDK needs one: reported as MCP_SCHEMA_INVALID", () => {
  const cases: [unknown, string][] = [
    [null, ""],
    [[], ""],
    ["object", ""],
    [{ properties: [] }, "/properties"],
    [{ properties: null }, "/properties"],
    [{ properties: { a: null } }, "/properties/a"],
    [{ properties: { "x/y": 3 } }, "/properties/x~1y"],
    [{ required: [1] }, "/required"],
    [{ required: true }, "/required"],
    [{ type: 5 }, "/type"],
    [{ type: ["object", 5] }, "/type"],
  ];
  for (const [schema, pointer] of cases) {
    const p = projectSchema(schema);
    assert.is(p.ok, false, JSON.stringify(schema));
    if (!p.ok) {
      assert.is(p.code, "MCP_SCHEMA_INVALID", JSON.stringify(schema));
      assert.is(p.pointer, pointer, JSON.stringify(schema));
    }
  }
});

test("never an object: reported as MCP_SCHEMA_NEVER_OBJECT, not rewritten", () => {
  for (const schema of [
    false,
    { type: "string" },
    { type: ["null", "array"] },
    { const: "x" },
    { enum: [1, 2] },
    { anyOf: [{ type: "number" }] },
    { type: ["object", "null"], const: null },
  ]) {
    const p = projectSchema(schema);
    assert.is(p.ok, false, JSON.stringify(schema));
    if (!p.ok) assert.is(p.code, "MCP_SCHEMA_NEVER_OBJECT", JSON.stringify(schema));
  }
  // A root that already says "object" is what the SDK accepts: left exactly as it is.
  const already = { type: "object", allOf: [{ type: "string" }] };
  const p = projectSchema(already);
  assert.ok(p.ok && p.schema === already && p.rewrites.length === 0);
});

test("draft-07 root $ref: a sibling type is inert there, so it is replaced, not reported", () => {
  const schema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    $ref: "#/definitions/A",
    type: "string",
    definitions: { A: { type: "object" } },
  };
  const p = projectSchema(schema);
  assert.ok(p.ok);
  if (p.ok) {
    assert.is(p.schema.type, "object");
    assert.equal(p.rewrites, [
      { kind: "root-type-inert-replaced", pointer: "/type", from: "string" },
    ]);
  }
  // In 2020-12 the same sibling applies: the schema can never be an object.
  const modern = projectSchema({
    ...schema,
    $schema: "https://json-schema.org/draft/2020-12/schema",
  });
  assert.ok(!modern.ok && modern.code === "MCP_SCHEMA_NEVER_OBJECT");
});

test("tool-level problems: no name, duplicates, missing inputSchema, bad outputSchema, SDK rejects", () => {
  const good = { name: "ok", inputSchema: { type: "object" } };
  const { tools, issues } = projectTools([
    { inputSchema: {} },
    "not a tool",
    { name: "dup", inputSchema: {} },
    { name: "dup", inputSchema: { type: "object" } },
    { name: "no_input" },
    { name: "bad_output", inputSchema: {}, outputSchema: { type: "array" } },
    { name: "bad_annotations", inputSchema: {}, annotations: { readOnlyHint: "yes" } },
    good,
  ]);
  assert.equal(
    tools.map((t) => t.name),
    ["ok"],
  );
  assert.equal(
    issues.map((i) => [i.tool, i.code, i.site]),
    [
      ["#0", "MCP_TOOL_INVALID", "tool"],
      ["#1", "MCP_TOOL_INVALID", "tool"],
      ["dup", "MCP_TOOL_DUPLICATE", "tool"],
      ["no_input", "MCP_SCHEMA_INVALID", "inputSchema"],
      ["bad_output", "MCP_SCHEMA_NEVER_OBJECT", "outputSchema"],
      ["bad_annotations", "MCP_TOOL_REJECTED_BY_SDK", "tool"],
    ],
  );
  assert.ok(issues[5]?.reason.includes("annotations.readOnlyHint"));
});

test("originalInMeta copies the unprojected inputSchema into _meta, only when rewritten", () => {
  const raw = [
    { name: "u", inputSchema: { anyOf: [{ type: "object" }] }, _meta: { keep: 1 } },
    { name: "plain", inputSchema: { type: "object" } },
  ];
  const { tools } = projectTools(raw, { originalInMeta: true });
  assert.equal(tools[0]?.listed._meta, {
    keep: 1,
    [ORIGINAL_INPUT_SCHEMA_META]: { anyOf: [{ type: "object" }] },
  });
  assert.is(tools[1]?.listed, raw[1]);
  assert.is(projectTools(raw).tools[0]?.listed._meta, raw[0]?._meta);
});

test("a 1,000-tool bank keeps order and projects every tool", () => {
  const base = loadBankTools();
  const many: unknown[] = [];
  for (let i = 0; many.length < 1000; i++)
    for (const t of base)
      if (typeof t === "object" && t !== null) many.push({ ...t, name: `t${i}_${many.length}` });
  const { tools, issues } = projectTools(many.slice(0, 1000));
  assert.is(tools.length + issues.length, 1000);
  assert.ok(
    tools.every(
      (t, i, a) => i === 0 || Number(t.name.split("_")[1]) > Number(a[i - 1]?.name.split("_")[1]),
    ),
  );
});

test.run();
