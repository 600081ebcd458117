import { test } from "uvu";
import * as assert from "uvu/assert";
import { objectCapability } from "../../lib/mcp/object-capable.js";

const D07 = "http://json-schema.org/draft-07/schema#";

const capable: readonly [string, unknown][] = [
  ["true", true],
  ["{}", {}],
  ["root anyOf of objects", { anyOf: [{ type: "object" }, { type: "string" }] }],
  ["root oneOf without types", { oneOf: [{ required: ["a"] }, { required: ["b"] }] }],
  ["allOf of objects", { allOf: [{ properties: {} }, { required: ["x"] }] }],
  ["$ref to an object", { $ref: "#/$defs/A", $defs: { A: { type: "object" } } }],
  ["type array with object", { type: ["object", "null"] }],
  ["const object", { const: { a: 1 } }],
  ["enum with an object", { enum: [1, { a: 1 }] }],
  ["not of a string", { not: { type: "string" } }],
  ["recursive $ref", { $ref: "#/$defs/n", $defs: { n: { anyOf: [{ $ref: "#/$defs/n" }] } } }],
  ["$ref to itself", { $ref: "#" }],
  ["remote $ref is unknown", { $ref: "https://example.com/schema.json" }],
  ["unresolved local $ref is unknown", { $ref: "#/$defs/missing" }],
  // JSON text: an object literal with a `then` key looks like a thenable to linters.
  ["if/then is not decided", JSON.parse('{"if": {"type": "string"}, "then": false}')],
  ["non-schema branch counts as {}", { anyOf: [5] }],
  [
    "draft-07: a never-object sibling of $ref is inert",
    {
      $schema: D07,
      $ref: "#/definitions/A",
      type: "string",
      definitions: { A: { type: "object" } },
    },
  ],
];

const never: readonly [string, unknown, string][] = [
  ["false", false, ""],
  ["type string", { type: "string" }, "/type"],
  ["type array without object", { type: ["string", "null"] }, "/type"],
  ["const non-object", { const: "x" }, "/const"],
  ["const null", { const: null }, "/const"],
  ["enum without objects", { enum: ["a", [1], null] }, "/enum"],
  ["not {}", { not: {} }, "/not"],
  ["not true", { not: true }, "/not"],
  ["not type object", { not: { type: "object", title: "t" } }, "/not"],
  ["anyOf of scalars", { anyOf: [{ type: "string" }, { type: "array" }] }, "/anyOf"],
  ["oneOf of scalars", { oneOf: [{ const: 1 }, false] }, "/oneOf"],
  ["empty anyOf", { anyOf: [] }, "/anyOf"],
  [
    "allOf with a scalar branch",
    { allOf: [{ type: "object" }, { type: "number" }] },
    "/allOf/1/type",
  ],
  [
    "nested: anyOf of allOf with a scalar",
    { anyOf: [{ allOf: [{ type: "integer" }] }, { type: "boolean" }] },
    "/anyOf",
  ],
  ["$ref to a string", { $ref: "#/$defs/S", $defs: { S: { type: "string" } } }, "/$ref/type"],
  [
    "2020-12: a never-object sibling of $ref counts",
    { $ref: "#/$defs/A", type: "string", $defs: { A: { type: "object" } } },
    "/type",
  ],
  [
    "draft-07: the $ref alone decides",
    { $schema: D07, $ref: "#/definitions/S", definitions: { S: { enum: [1, 2] } } },
    "/$ref/enum",
  ],
];

test("schemas that may accept an object", () => {
  for (const [name, schema] of capable) assert.ok(objectCapability(schema).capable, name);
});

test("schemas that provably never accept an object, with the deciding pointer", () => {
  for (const [name, schema, pointer] of never) {
    const r = objectCapability(schema);
    assert.is(r.capable, false, name);
    if (!r.capable) {
      assert.is(r.pointer, pointer, name);
      assert.ok(r.reason.length > 0, name);
    }
  }
});

test("the reason of a union names each branch", () => {
  const r = objectCapability({ anyOf: [{ type: "string" }, { const: 3 }] });
  assert.is(r.capable, false);
  if (!r.capable) {
    assert.ok(r.reason.includes('type is "string"'));
    assert.ok(r.reason.includes("const is 3"));
  }
});

test.run();
