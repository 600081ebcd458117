import { dereference, type OutputUnit, validate } from "@cfworker/json-schema";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { explainErrors } from "../../lib/mcp/validation-message.js";

/** The real cfworker output for `instance` against `schema` (2020-12, all errors). */
function units(schema: Record<string, unknown>, instance: unknown): OutputUnit[] {
  const copy = structuredClone(schema);
  return validate(instance, copy, "2020-12", dereference(copy), false).errors;
}

function explain(schema: Record<string, unknown>, instance: unknown) {
  return explainErrors(units(schema, instance), schema);
}

test("wrapper lines are dropped; leaves keep instance and schema paths", () => {
  const e = explain(
    { $ref: "#/$defs/R", $defs: { R: { properties: { n: { minimum: 1 } } } } },
    { n: 0 },
  );
  assert.equal(e.errors, [
    {
      instancePath: "/n",
      schemaPath: "/$ref/properties/n/minimum",
      keyword: "minimum",
      message: "0 is less than 1",
    },
  ]);
  assert.is(e.summary, "/n: 0 is less than 1");
});

test("a false subschema is folded into the keyword that applied it", () => {
  const cases: [Record<string, unknown>, unknown, string][] = [
    [{ additionalProperties: false }, { z: 1 }, "/z: not allowed (additionalProperties: false)"],
    [
      { anyOf: [{ properties: { a: {} } }], unevaluatedProperties: false },
      { a: 1, c: 2 },
      "/c: not allowed (unevaluatedProperties: false)",
    ],
    [{ prefixItems: [{}], items: false }, ["a", "b"], "/1: not allowed (items: false)"],
    [{ properties: { f: false } }, { f: 1 }, "/f: not allowed (properties: false)"],
  ];
  for (const [schema, instance, summary] of cases)
    assert.is(explain(schema, instance).summary, summary);
  assert.is(explainErrors(units({ not: {} }, {}), {}).summary, 'must not match the "not" schema');
});

test("union leaves are grouped under their alternative, nested unions inside", () => {
  const schema = {
    anyOf: [
      {
        properties: {
          t: {
            oneOf: [
              { type: "string" },
              { properties: { id: { type: "integer" } }, required: ["id"] },
            ],
          },
        },
        required: ["t"],
      },
      { required: ["q"] },
    ],
  };
  assert.is(
    explain(schema, { t: { id: "x" } }).summary,
    'no anyOf alternative matched ([0] /t: no oneOf alternative matched ([0] /t: expected string, got object; [1] /t/id: expected integer, got string); [1] missing required property "q")',
  );
  assert.is(
    explain(
      { oneOf: [{ required: ["a"] }, { required: ["b"] }, { required: ["c"] }] },
      { a: 1, b: 2 },
    ).summary,
    "matches 2 oneOf alternatives, exactly one is allowed",
  );
});

test("the same union at two array elements is explained per element", () => {
  const schema = {
    properties: { list: { items: { anyOf: [{ type: "string" }, { type: "integer" }] } } },
  };
  assert.is(
    explain(schema, { list: [true, null] }).summary,
    "/list/0: no anyOf alternative matched ([0] /list/0: expected string, got boolean; [1] /list/0: expected integer, got boolean); /list/1: no anyOf alternative matched ([0] /list/1: expected string, got null; [1] /list/1: expected integer, got null)",
  );
});

test("sentences are shortened; patterns are quoted; paths are decoded", () => {
  const schema = {
    properties: {
      "a b": { const: "x" },
      e: { enum: [1, 2] },
      f: { format: "email" },
      p: { pattern: "^N-[0-9]+$" },
      t: { type: ["string", "null"] },
    },
    dependentRequired: { card: ["cvv"] },
  };
  const e = explain(schema, { "a b": "y", e: 3, f: "nope", p: "X", t: 1, card: 1 });
  assert.equal(
    e.errors.map((x) => `${x.instancePath} ${x.message}`),
    [
      ' "cvv" is required when "card" is present',
      '/a b must be "x"',
      "/e must be one of [1,2]",
      "/f is not a valid email (format)",
      '/p does not match pattern "^N-[0-9]+$"',
      "/t expected string or null, got number",
    ],
  );
});

test("if/then: the explanation under /then is kept, the /if wrapper is dropped", () => {
  const schema = JSON.parse('{"if": {"required": ["a"]}, "then": {"required": ["b"]}}');
  assert.is(explain(schema, { a: 1 }).summary, 'missing required property "b"');
});

test("the summary is capped; an unexplained failure still gets a sentence", () => {
  const many: OutputUnit[] = Array.from({ length: 100 }, (_, i) => ({
    instanceLocation: `#/k${i}`,
    keyword: "type",
    keywordLocation: `#/additionalProperties/type`,
    error: 'Instance type "string" is invalid. Expected "integer".',
  }));
  const e = explainErrors(many, {}, 200);
  assert.ok(e.summary.length <= 240);
  assert.ok(e.summary.endsWith("(100 errors in details)"));
  assert.is(e.errors.length, 100);
  assert.is(explainErrors([], {}).summary, "the arguments do not match the schema");
  assert.is(explainErrors(units({}, {}), {}).summary, "the arguments do not match the schema");
});

test.run();
