/**
 * The MCP projection of a tool bank (pure, deterministic, inputs never mutated): every listed
 * schema gets root `type: "object"`, which the SDK client enforces on the whole list, while the
 * original stays beside it as the authority for calls. Only the rewrites SDK 1.32.2 needs are
 * made; a schema that can never accept an object is reported, never rewritten
 * (docs/design/decisions.md §10.1).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { refOverridesSiblings, schemaDraft } from "./draft.js";
import type { ProjectionIssue } from "./issues.js";
import { isJsonObject, pointerOf } from "./json-pointer.js";
import { objectCapability } from "./object-capable.js";
import { isRawTool, type RawTool } from "./raw-tool.js";
import { isSdkTool } from "./sdk-guard.js";

export type SchemaRewrite =
  | { readonly kind: "root-type-added"; readonly pointer: "/type" }
  | { readonly kind: "root-type-narrowed"; readonly pointer: "/type"; readonly from: unknown }
  | { readonly kind: "root-type-inert-replaced"; readonly pointer: "/type"; readonly from: unknown }
  | { readonly kind: "root-true-expanded"; readonly pointer: "" }
  | {
      readonly kind: "property-boolean-expanded";
      readonly pointer: string;
      readonly from: boolean;
    };

export type SchemaProjection =
  | {
      readonly ok: true;
      readonly schema: Readonly<Record<string, unknown>>;
      readonly rewrites: readonly SchemaRewrite[];
    }
  | {
      readonly ok: false;
      readonly code: "MCP_SCHEMA_NEVER_OBJECT" | "MCP_SCHEMA_INVALID";
      readonly pointer: string;
      readonly reason: string;
    };

function invalid(pointer: string, reason: string): SchemaProjection {
  return { ok: false, code: "MCP_SCHEMA_INVALID", pointer, reason };
}

/** `true` → `{}`, `false` → `{not: {}}` for each root property; `undefined` if none is boolean. */
function expandBooleanProperties(
  props: Record<string, unknown>,
  rewrites: SchemaRewrite[],
): Record<string, unknown> | undefined {
  if (!Object.values(props).some((value) => typeof value === "boolean")) return undefined;
  // Object.fromEntries defines own properties, so a property named "__proto__" stays a key.
  return Object.fromEntries(
    Object.keys(props).map((key) => {
      const value = props[key];
      if (typeof value !== "boolean") return [key, value];
      rewrites.push({
        kind: "property-boolean-expanded",
        pointer: pointerOf(["properties", key]),
        from: value,
      });
      return [key, value ? {} : { not: {} }];
    }),
  );
}

/** Project one tool schema (an `inputSchema` or `outputSchema` value). */
export function projectSchema(schema: unknown): SchemaProjection {
  if (schema === true)
    return {
      ok: true,
      schema: { type: "object" },
      rewrites: [{ kind: "root-true-expanded", pointer: "" }],
    };
  if (schema === false)
    return {
      ok: false,
      code: "MCP_SCHEMA_NEVER_OBJECT",
      pointer: "",
      reason: "the schema is false",
    };
  if (!isJsonObject(schema))
    return invalid("", `expected a JSON Schema object or boolean, got ${describe(schema)}`);

  const rewrites: SchemaRewrite[] = [];
  let props: Record<string, unknown> | undefined;
  if (Object.hasOwn(schema, "properties")) {
    const p = schema.properties;
    if (!isJsonObject(p)) return invalid("/properties", `expected an object, got ${describe(p)}`);
    for (const key of Object.keys(p)) {
      const value = p[key];
      if (typeof value !== "boolean" && (typeof value !== "object" || value === null))
        return invalid(pointerOf(["properties", key]), `expected a schema, got ${describe(value)}`);
    }
    props = expandBooleanProperties(p, rewrites);
  }
  if (Object.hasOwn(schema, "required")) {
    const r = schema.required;
    if (!Array.isArray(r) || !r.every((x) => typeof x === "string"))
      return invalid("/required", `expected an array of strings, got ${describe(r)}`);
  }

  const hasType = Object.hasOwn(schema, "type");
  const type = schema.type;
  // draft-04/07: a root `$ref` makes its siblings inert, `type` included (draft.ts).
  const inertType =
    hasType && typeof schema.$ref === "string" && refOverridesSiblings(schemaDraft(schema));
  if (!hasType || type !== "object") {
    if (hasType && !inertType) {
      if (
        typeof type === "string" ||
        (Array.isArray(type) && type.every((t) => typeof t === "string"))
      ) {
        if (!(Array.isArray(type) && type.includes("object")))
          return {
            ok: false,
            code: "MCP_SCHEMA_NEVER_OBJECT",
            pointer: "/type",
            reason: `type ${JSON.stringify(type)} does not allow an object`,
          };
      } else
        return invalid("/type", `expected a type name or an array of them, got ${describe(type)}`);
    }
    const cap = objectCapability(schema);
    if (!cap.capable)
      return {
        ok: false,
        code: "MCP_SCHEMA_NEVER_OBJECT",
        pointer: cap.pointer,
        reason: cap.reason,
      };
    rewrites.unshift(
      !hasType
        ? { kind: "root-type-added", pointer: "/type" }
        : inertType
          ? { kind: "root-type-inert-replaced", pointer: "/type", from: type }
          : { kind: "root-type-narrowed", pointer: "/type", from: type },
    );
  }
  if (rewrites.length === 0) return { ok: true, schema, rewrites };
  // Spread keeps every key in its place (an existing `type` is overwritten where it stands);
  // an added `type` goes first, where readers expect it.
  const out: Record<string, unknown> = hasType
    ? { ...schema, type: "object" }
    : { type: "object", ...schema };
  if (props !== undefined) out.properties = props;
  return { ok: true, schema: out, rewrites };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** The `_meta` key that carries the unprojected `inputSchema` when asked to (ProjectOptions). */
export const ORIGINAL_INPUT_SCHEMA_META = "x-original-inputSchema";

export interface ProjectOptions {
  /**
   * Also copy the original `inputSchema` into `_meta["x-original-inputSchema"]` of tools whose
   * schema was rewritten. Off by default: the projected schema already carries every original
   * keyword (only the root `type` and boolean root properties differ, and `rewrites` records
   * how), the proxy, not the downstream client, is the authority, and the copy doubles the size
   * of a large list.
   */
  readonly originalInMeta?: boolean;
}

export interface ProjectedTool {
  readonly name: string;
  /** The entry the downstream list carries; the original object itself when nothing changed. */
  readonly listed: Tool;
  /** The upstream entry, untouched: the authority for `tools/call`. */
  readonly original: RawTool;
  readonly rewrites: {
    readonly inputSchema: readonly SchemaRewrite[];
    readonly outputSchema: readonly SchemaRewrite[];
  };
}

export interface ToolProjection {
  /** Every tool the official client will accept, in upstream order. */
  readonly tools: readonly ProjectedTool[];
  /** Every entry left out, and why. */
  readonly issues: readonly ProjectionIssue[];
}

/**
 * Project a raw `tools/list` (entries as they came off the wire). Entries that cannot be listed
 * faithfully are reported and left out, so one bad tool never costs the whole list.
 */
export function projectTools(
  entries: readonly unknown[],
  options: ProjectOptions = {},
): ToolProjection {
  const counts = new Map<string, number>();
  for (const e of entries) if (isRawTool(e)) counts.set(e.name, (counts.get(e.name) ?? 0) + 1);

  const tools: ProjectedTool[] = [];
  const issues: ProjectionIssue[] = [];
  const reportedDuplicates = new Set<string>();
  entries.forEach((entry, index) => {
    if (!isRawTool(entry)) {
      issues.push({
        code: "MCP_TOOL_INVALID",
        tool: `#${index}`,
        site: "tool",
        pointer: "/name",
        reason: "the entry is not an object with a string name",
      });
      return;
    }
    const name = entry.name;
    const count = counts.get(name) ?? 0;
    if (count > 1) {
      if (!reportedDuplicates.has(name))
        issues.push({
          code: "MCP_TOOL_DUPLICATE",
          tool: name,
          site: "tool",
          pointer: "/name",
          reason: `${count} upstream tools share this name; none is listed`,
        });
      reportedDuplicates.add(name);
      return;
    }
    const input =
      entry.inputSchema === undefined
        ? invalid("", "the tool has no inputSchema")
        : projectSchema(entry.inputSchema);
    if (!input.ok) {
      issues.push({ ...siteIssue(input), tool: name, site: "inputSchema" });
      return;
    }
    const output = entry.outputSchema === undefined ? undefined : projectSchema(entry.outputSchema);
    if (output !== undefined && !output.ok) {
      issues.push({ ...siteIssue(output), tool: name, site: "outputSchema" });
      return;
    }
    const outputRewrites = output?.rewrites ?? [];
    let listed: RawTool = entry;
    if (input.rewrites.length > 0 || outputRewrites.length > 0) {
      const copy: { name: string; [key: string]: unknown } = {
        ...entry,
        inputSchema: input.schema,
      };
      if (output !== undefined) copy.outputSchema = output.schema;
      if (options.originalInMeta && input.rewrites.length > 0) {
        const meta = entry._meta;
        if (meta === undefined || isJsonObject(meta))
          copy._meta = { ...meta, [ORIGINAL_INPUT_SCHEMA_META]: entry.inputSchema };
      }
      listed = copy;
    }
    const problems: string[] = [];
    if (!isSdkTool(listed, problems)) {
      issues.push({
        code: "MCP_TOOL_REJECTED_BY_SDK",
        tool: name,
        site: "tool",
        pointer: "",
        reason: problems.join("; "),
      });
      return;
    }
    tools.push({
      name,
      listed,
      original: entry,
      rewrites: { inputSchema: input.rewrites, outputSchema: outputRewrites },
    });
  });
  return { tools, issues };
}

function siteIssue(p: Extract<SchemaProjection, { ok: false }>): {
  code: ProjectionIssue["code"];
  pointer: string;
  reason: string;
} {
  return { code: p.code, pointer: p.pointer, reason: p.reason };
}
