/**
 * Can a schema ever accept a JSON object? The projection adds root `type: "object"` only when
 * the answer may be yes; a schema that provably never accepts an object is reported instead of
 * being rewritten into something that means a different thing.
 *
 * The analysis is conservative in one direction only: "never" is returned when the schema's own
 * keywords prove it (a type without "object", a non-object `const`/`enum`, `false`, `not: {}`,
 * a union with no object-capable branch, an `allOf` or local `$ref` target that never is).
 * Everything it cannot decide (`if`/`then`, remote refs, `$dynamicRef`, numeric bounds) counts as
 * "may be an object", because adding `type: "object"` then removes nothing a call could send
 * (MCP arguments are always an object; docs/design/acp-mcp-toolchain.md §2.3).
 */
import { refOverridesSiblings, type SchemaDraft, schemaDraft } from "./draft.js";
import { isJsonObject, resolveLocalRef } from "./json-pointer.js";

export type ObjectCapability =
  | { readonly capable: true }
  | { readonly capable: false; readonly pointer: string; readonly reason: string };

const CAPABLE: ObjectCapability = { capable: true };

/** Keywords that never constrain an instance. */
const ANNOTATIONS = new Set([
  "$schema",
  "$id",
  "$comment",
  "$anchor",
  "$defs",
  "definitions",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

function never(pointer: string, reason: string): ObjectCapability {
  return { capable: false, pointer, reason };
}

/** True when `schema` accepts every JSON object (`true`, `{}`, `{type: "object"}`, …). */
function acceptsEveryObject(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isJsonObject(schema)) return false;
  for (const key of Object.keys(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith("x-")) continue;
    if (key === "type") {
      const t = schema.type;
      if (t === "object" || (Array.isArray(t) && t.includes("object"))) continue;
    }
    return false;
  }
  return true;
}

function isObjectValue(value: unknown): boolean {
  return isJsonObject(value);
}

interface Walk {
  readonly root: unknown;
  readonly draft: SchemaDraft;
  /** `$ref` targets on the current path; a cycle means "unknown", i.e. capable. */
  readonly active: Set<unknown>;
}

function branches(
  w: Walk,
  list: unknown,
  pointer: string,
  keyword: "anyOf" | "oneOf" | "allOf",
): ObjectCapability {
  if (!Array.isArray(list)) return CAPABLE;
  const results = list.map((b, i) => analyse(w, b, `${pointer}/${keyword}/${i}`));
  if (keyword === "allOf") return results.find((r) => !r.capable) ?? CAPABLE;
  if (results.some((r) => r.capable)) return CAPABLE;
  return never(
    `${pointer}/${keyword}`,
    list.length === 0
      ? `${keyword} is empty`
      : `no ${keyword} alternative can be an object (${results
          .map((r) => (r.capable ? "" : r.reason))
          .join("; ")})`,
  );
}

function analyse(w: Walk, schema: unknown, pointer: string): ObjectCapability {
  if (schema === true) return CAPABLE;
  if (schema === false) return never(pointer, "the schema is false");
  // A non-schema in a subschema position: validators ignore it (cfworker treats it like `{}`).
  if (!isJsonObject(schema)) return CAPABLE;

  const ref = schema.$ref;
  if (typeof ref === "string") {
    const target = resolveLocalRef(w.root, ref);
    let viaRef: ObjectCapability = CAPABLE;
    if (target !== undefined && !w.active.has(target)) {
      w.active.add(target);
      const r = analyse(w, target, `${pointer}/$ref`);
      w.active.delete(target);
      if (!r.capable) viaRef = never(r.pointer, `$ref ${JSON.stringify(ref)}: ${r.reason}`);
    }
    // draft-04/07: siblings of $ref are ignored, so the ref alone decides.
    if (refOverridesSiblings(w.draft) || !viaRef.capable) return viaRef;
  }

  const type = schema.type;
  if (typeof type === "string" && type !== "object")
    return never(`${pointer}/type`, `type is ${JSON.stringify(type)}`);
  if (Array.isArray(type) && !type.includes("object"))
    return never(`${pointer}/type`, `type ${JSON.stringify(type)} has no "object"`);

  if (Object.hasOwn(schema, "const") && !isObjectValue(schema.const))
    return never(`${pointer}/const`, `const is ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some(isObjectValue))
    return never(`${pointer}/enum`, "enum has no object value");
  if (Object.hasOwn(schema, "not") && acceptsEveryObject(schema.not))
    return never(`${pointer}/not`, "not excludes every object");

  for (const keyword of ["allOf", "anyOf", "oneOf"] as const) {
    if (!Object.hasOwn(schema, keyword)) continue;
    const r = branches(w, schema[keyword], pointer, keyword);
    if (!r.capable) return r;
  }
  return CAPABLE;
}

/**
 * Whether `schema` (the root of a tool schema document) can accept some JSON object.
 * `pointer` in a "never" answer is a JSON pointer into the schema naming the deciding keyword.
 */
export function objectCapability(schema: unknown): ObjectCapability {
  const w: Walk = { root: schema, draft: schemaDraft(schema), active: new Set([schema]) };
  return analyse(w, schema, "");
}
