/**
 * Property tests for the projection (fast-check): arbitrary JSON schemas, including booleans,
 * unions, $ref/$defs, type arrays, const/enum, `not`, draft-07 and 2020-12 `$schema`, vendor
 * keys and property names such as "__proto__" and "x/y".
 */
import { dereference, validate } from "@cfworker/json-schema";
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { test } from "uvu";
import { schemaDraft } from "../../lib/mcp/draft.js";
import { projectSchema } from "../../lib/mcp/project.js";
import { canonical, deepFreeze, undoRewrites } from "./helpers.js";

const KEYS = ["a", "b", "__proto__", "constructor", "x/y", "t~1", ""] as const;
const TYPES = ["object", "string", "number", "integer", "array", "boolean", "null"] as const;
const key = fc.constantFrom(...KEYS);
const scalar = fc.jsonValue({ maxDepth: 1 });

/** Objects built with Object.fromEntries, so a "__proto__" key is an own key as after JSON.parse. */
function entries<T>(value: fc.Arbitrary<T>, maxLength = 3): fc.Arbitrary<Record<string, T>> {
  return fc
    .uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength })
    .map((pairs) => Object.fromEntries(pairs));
}

const { schema } = fc.letrec((tie) => ({
  schema: fc.oneof({ maxDepth: 3, depthIdentifier: "schema" }, fc.boolean(), tie("node")),
  node: fc.record(
    {
      $schema: fc.constantFrom(
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2020-12/schema",
      ),
      type: fc.oneof(
        fc.constantFrom(...TYPES),
        fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }),
      ),
      properties: entries(tie("schema")),
      required: fc.uniqueArray(key, { maxLength: 3 }),
      additionalProperties: tie("schema"),
      anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }),
      oneOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }),
      allOf: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }),
      not: tie("schema"),
      const: scalar,
      enum: fc.array(scalar, { minLength: 1, maxLength: 3 }),
      $ref: fc.constantFrom("#/$defs/a", "#/definitions/a"),
      $defs: fc.record({ a: tie("leaf") }),
      definitions: fc.record({ a: tie("leaf") }),
      minProperties: fc.nat(2),
      format: fc.constantFrom("email", "uri", "date-time"),
      title: fc.string({ maxLength: 4 }),
      "x-vendor": scalar,
    },
    { requiredKeys: [] },
  ),
  // $ref targets carry no $ref of their own, so no validation loops forever on one instance.
  leaf: fc.oneof(
    fc.boolean(),
    fc.record(
      {
        type: fc.constantFrom(...TYPES),
        properties: entries(fc.boolean()),
        required: fc.uniqueArray(key, { maxLength: 2 }),
        const: scalar,
      },
      { requiredKeys: [] },
    ),
  ),
}));

/** Root schemas: arbitrary, plus the shapes a tool bank really has (unions of objects). */
const rootSchema = fc.oneof(
  schema,
  fc.record({ anyOf: fc.array(schema, { minLength: 1, maxLength: 3 }) }),
  fc.record({ oneOf: fc.array(schema, { minLength: 1, maxLength: 3 }) }),
  fc.record({ properties: entries(schema), required: fc.uniqueArray(key, { maxLength: 2 }) }),
);

const instances = fc.array(entries(scalar, 4), { minLength: 1, maxLength: 4 });

/** cfworker's verdict on a private copy (it annotates the schema it dereferences). */
function verdict(s: unknown, instance: unknown): boolean | "throws" {
  const copy: unknown = structuredClone(s);
  if (
    typeof copy !== "boolean" &&
    (typeof copy !== "object" || copy === null || Array.isArray(copy))
  )
    return "throws";
  try {
    return validate(instance, copy, schemaDraft(copy), dereference(copy), true).valid;
  } catch {
    return "throws";
  }
}

const CODES = new Set(["MCP_SCHEMA_NEVER_OBJECT", "MCP_SCHEMA_INVALID"]);

test("total: never throws, returns a listed schema or a typed issue; frozen input is fine", () => {
  fc.assert(
    fc.property(rootSchema, (s) => {
      const p = projectSchema(deepFreeze(s));
      if (p.ok) return typeof p.schema === "object" && p.schema.type === "object";
      return CODES.has(p.code) && typeof p.pointer === "string" && p.reason.length > 0;
    }),
    { numRuns: 500 },
  );
});

test("idempotent: projecting a projection changes nothing", () => {
  fc.assert(
    fc.property(rootSchema, (s) => {
      const p = projectSchema(s);
      if (!p.ok) return true;
      const again = projectSchema(p.schema);
      return again.ok && again.schema === p.schema && again.rewrites.length === 0;
    }),
    { numRuns: 500 },
  );
});

test("only the root is touched: subtrees are shared, undoing the rewrites gives the original", () => {
  fc.assert(
    fc.property(rootSchema, (s) => {
      const p = projectSchema(s);
      if (!p.ok) return true;
      if (canonical(undoRewrites(p.schema, p.rewrites)) !== canonical(s)) return false;
      if (typeof s !== "object" || s === null) return true;
      for (const k of Object.keys(s)) {
        if (k === "type" || k === "properties") continue;
        if (p.schema[k] !== Reflect.get(s, k)) return false;
      }
      const props: unknown = Reflect.get(s, "properties");
      const projected: unknown = p.schema.properties;
      if (
        typeof props === "object" &&
        props !== null &&
        typeof projected === "object" &&
        projected !== null
      )
        for (const k of Object.keys(props)) {
          const before: unknown = Reflect.get(props, k);
          const after: unknown = Reflect.get(projected, k);
          if (typeof before !== "boolean" && after !== before) return false;
        }
      return true;
    }),
    { numRuns: 500 },
  );
});

test("never loses a keyword: the original keys are all there; only `type` may be added", () => {
  fc.assert(
    fc.property(rootSchema, (s) => {
      const p = projectSchema(s);
      if (!p.ok || typeof s !== "object" || s === null) return true;
      const before = Object.keys(s);
      const after = Object.keys(p.schema);
      return (
        before.every((k) => after.includes(k)) &&
        after.every((k) => before.includes(k) || k === "type")
      );
    }),
    { numRuns: 500 },
  );
});

test("the official SDK accepts every listed schema (ToolSchema)", () => {
  fc.assert(
    fc.property(rootSchema, (s) => {
      const p = projectSchema(s);
      return !p.ok || ToolSchema.safeParse({ name: "t", inputSchema: p.schema }).success;
    }),
    { numRuns: 500 },
  );
});

test("same meaning for every object: the original and the projection agree (cfworker)", () => {
  fc.assert(
    fc.property(rootSchema, instances, (s, objects) => {
      const p = projectSchema(s);
      if (!p.ok) return true;
      return objects.every((o) => verdict(s, o) === verdict(p.schema, o));
    }),
    { numRuns: 300 },
  );
});

test("a schema reported as never-object accepts no object (cfworker agrees)", () => {
  fc.assert(
    fc.property(rootSchema, instances, (s, objects) => {
      const p = projectSchema(s);
      if (p.ok || p.code !== "MCP_SCHEMA_NEVER_OBJECT") return true;
      return [{}, ...objects].every((o) => verdict(s, o) !== true);
    }),
    { numRuns: 300 },
  );
});

test.run();
