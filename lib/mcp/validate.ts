/**
 * Validate `tools/call` arguments against the tool's original schema (ADR 0224 (docs/design/adr-0224.md): the original
 * bank is the authority), with @cfworker/json-schema, one validator per tool built when the list
 * changes; a schema that cannot be evaluated refuses its calls (fail closed). Why cfworker and how
 * it is used safely: docs/design/decisions.md §10.2.
 */
import { dereference, type OutputUnit, validate } from "@cfworker/json-schema";
import type { GrokSeatError } from "../errors.js";
import { type SchemaDraft, schemaDraft } from "./draft.js";
import type { CallErrorCode, ProjectionIssue } from "./issues.js";
import { isJsonObject } from "./json-pointer.js";
import { McpProjectionError } from "./mcp-error.js";
import type { RawTool } from "./raw-tool.js";
import { type ArgumentError, explainErrors } from "./validation-message.js";

export type CallVerdict = { readonly ok: true } | Refused;

/**
 * A refused call. The GrokSeatError is built on first access: capturing a stack trace costs
 * more than the validation itself, and a caller that only branches on `ok` never needs it.
 */
export class Refused {
  readonly ok = false;
  readonly code: CallErrorCode;
  readonly message: string;
  readonly details: { readonly tool: string; readonly errors: readonly ArgumentError[] };
  #error: GrokSeatError | undefined;

  constructor(
    code: CallErrorCode,
    tool: string,
    message: string,
    errors: readonly ArgumentError[],
  ) {
    this.code = code;
    this.message = message;
    this.details = { tool, errors };
  }

  /** The typed error: `code`, `message`, `context: {tool, errors}`. */
  get error(): GrokSeatError {
    this.#error ??= new McpProjectionError(this.code, this.message, {
      details: { ...this.details },
    });
    return this.#error;
  }
}

export interface ToolValidator {
  /** Names with a usable validator, in the order given. */
  readonly names: readonly string[];
  /** Tools whose original schema cannot be evaluated; their calls are refused. */
  readonly issues: readonly ProjectionIssue[];
  /**
   * Check one call. `args` is `params.arguments` as received; absent arguments are checked as
   * `{}` (MCP: `arguments` is optional and always an object). Never throws.
   */
  check(name: string, args: unknown): CallVerdict;
}

type Lookup = ReturnType<typeof dereference>;

interface Compiled {
  readonly schema: Record<string, unknown> | boolean;
  readonly draft: SchemaDraft;
  readonly lookup: Lookup;
}

const OK: CallVerdict = { ok: true };

/** Why cfworker could not evaluate this schema, or undefined when it can. */
function unusable(lookup: Lookup): string | undefined {
  for (const [uri, sub] of Object.entries(lookup)) {
    // `examples` values are instances, not schemas, though dereference() walks into them.
    if (/\/examples(\/|$)/.test(uri) || !isJsonObject(sub)) continue;
    if (typeof sub.$ref === "string") {
      const target = Reflect.get(sub, "__absolute_ref__");
      if (typeof target !== "string" || lookup[target] === undefined)
        return `$ref ${JSON.stringify(sub.$ref)} does not resolve inside the schema`;
    }
    const patterns: unknown[] = [sub.pattern];
    if (isJsonObject(sub.patternProperties)) patterns.push(...Object.keys(sub.patternProperties));
    for (const p of patterns) {
      if (p === undefined) continue;
      try {
        new RegExp(String(p), "u");
      } catch (err) {
        return `pattern ${JSON.stringify(p)} is not a valid regular expression: ${String(err)}`;
      }
    }
  }
  return undefined;
}

function compile(schema: unknown): Compiled | string {
  if (schema === undefined) return "the tool has no inputSchema";
  let copy: unknown;
  try {
    copy = structuredClone(schema);
  } catch (err) {
    return `the schema cannot be copied: ${String(err)}`;
  }
  if (typeof copy !== "boolean" && !isJsonObject(copy))
    return "the schema is not an object or boolean";
  let lookup: Lookup;
  try {
    lookup = dereference(copy);
  } catch (err) {
    return `the schema cannot be dereferenced: ${err instanceof Error ? err.message : String(err)}`;
  }
  const why = unusable(lookup);
  if (why !== undefined) return why;
  return { schema: copy, draft: schemaDraft(copy), lookup };
}

function describeArgs(args: unknown): string {
  if (args === null) return "null";
  if (Array.isArray(args)) return "an array";
  return typeof args;
}

function refuse(
  code: CallErrorCode,
  tool: string,
  message: string,
  errors: readonly ArgumentError[] = [],
): CallVerdict {
  return new Refused(code, tool, message, errors);
}

/** Build the validators for one snapshot of the original bank. */
export function createToolValidator(originalTools: readonly RawTool[]): ToolValidator {
  const compiled = new Map<string, Compiled>();
  const broken = new Map<string, string>();
  const issues: ProjectionIssue[] = [];
  const seen = new Set<string>();
  for (const tool of originalTools) {
    if (seen.has(tool.name)) {
      compiled.delete(tool.name);
      broken.set(tool.name, "several tools share this name");
      issues.push({
        code: "MCP_TOOL_DUPLICATE",
        tool: tool.name,
        site: "tool",
        pointer: "/name",
        reason: "several tools share this name; its calls are refused",
      });
      continue;
    }
    seen.add(tool.name);
    const c = compile(tool.inputSchema);
    if (typeof c === "string") {
      broken.set(tool.name, c);
      issues.push({
        code: "MCP_SCHEMA_UNUSABLE",
        tool: tool.name,
        site: "inputSchema",
        pointer: "",
        reason: c,
      });
    } else compiled.set(tool.name, c);
  }

  function check(name: string, args: unknown): CallVerdict {
    const c = compiled.get(name);
    if (c === undefined) {
      const why = broken.get(name);
      if (why !== undefined)
        return refuse(
          "MCP_SCHEMA_UNUSABLE",
          name,
          `Tool ${JSON.stringify(name)} cannot be checked: ${why}`,
        );
      return refuse("MCP_UNKNOWN_TOOL", name, `Unknown tool ${JSON.stringify(name)}`);
    }
    const instance = args === undefined ? {} : args;
    if (!isJsonObject(instance))
      return refuse(
        "MCP_INVALID_ARGUMENTS",
        name,
        `Invalid arguments for tool ${JSON.stringify(name)}: arguments must be a JSON object, got ${describeArgs(instance)}`,
      );
    let units: readonly OutputUnit[];
    try {
      const r = validate(instance, c.schema, c.draft, c.lookup, false);
      if (r.valid) return OK;
      units = r.errors;
    } catch (err) {
      return refuse(
        "MCP_SCHEMA_UNUSABLE",
        name,
        `Tool ${JSON.stringify(name)} cannot be checked: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
      );
    }
    const { errors, summary } = explainErrors(units, c.schema);
    return refuse(
      "MCP_INVALID_ARGUMENTS",
      name,
      `Invalid arguments for tool ${JSON.stringify(name)}: ${summary}`,
      errors,
    );
  }

  return { names: [...compiled.keys()], issues, check };
}
