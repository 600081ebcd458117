/**
 * Turn @cfworker/json-schema's flat error list (OutputUnit[], `shortCircuit: false`) into
 * structured argument errors and one compact message that names the path and, for a union,
 * what each alternative wanted. cfworker's own list is complete but noisy
 * (docs/design/acp-mcp-toolchain.md §3.3): every applicator adds a wrapper line ("A subschema had errors.",
 * 'Property "x" does not match schema.'), and a `false` subschema is reported with the instance
 * location in place of its keyword location (validate.js, the boolean-schema branch). Here
 * wrappers are dropped, each `false` is folded into the keyword that applied it, and the leaves
 * are grouped under the `anyOf`/`oneOf` alternative they belong to.
 */
import type { OutputUnit } from "@cfworker/json-schema";
import {
  atPointer,
  fragmentToPointer,
  isJsonObject,
  pointerOf,
  resolveLocalRef,
  tokensOf,
} from "./json-pointer.js";

/** One reason the arguments were refused. Paths are JSON pointers (`""` = the arguments). */
export interface ArgumentError {
  readonly instancePath: string;
  /** Where in the original schema; through `$ref` it is the dynamic path (`/$ref/…`). */
  readonly schemaPath: string;
  readonly keyword: string;
  readonly message: string;
}

export interface Explanation {
  /** Every leaf error, in cfworker's order. */
  readonly errors: readonly ArgumentError[];
  /** One line: leaves grouped by union alternative, capped at `maxLength` characters. */
  readonly summary: string;
}

interface Node {
  readonly index: number;
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly message: string;
  wrapper: boolean;
}

/** Keywords after which cfworker reports a `false` subschema for a child instance. */
const FALSE_PARENTS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "contains",
]);

const UNIONS = new Set(["anyOf", "oneOf"]);

function within(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}/`);
}

function strictlyWithin(path: string, parent: string): boolean {
  return path.startsWith(`${parent}/`);
}

/** Shorten cfworker's sentences; anything unrecognised is kept, minus the final period. */
function shorten(keyword: string, text: string): string {
  let m: RegExpExecArray | null = null;
  switch (keyword) {
    case "type":
      m = /^Instance type "([^"]+)" is invalid\. Expected (.+)\.$/.exec(text);
      if (m)
        return `expected ${(m[2] ?? "").replace(/"/g, "").replace(/, /g, " or ")}, got ${m[1]}`;
      break;
    case "required":
      m = /^Instance does not have required property (".*")\.$/.exec(text);
      if (m) return `missing required property ${m[1]}`;
      break;
    case "enum":
      m = /^Instance does not match any of (.*)\.$/s.exec(text);
      if (m) return `must be one of ${m[1]}`;
      break;
    case "const":
      m = /^Instance does not match (.*)\.$/s.exec(text);
      if (m) return `must be ${m[1]}`;
      break;
    case "format":
      m = /^String does not match format "(.*)"\.$/.exec(text);
      if (m) return `is not a valid ${m[1]} (format)`;
      break;
    case "dependentRequired":
    case "dependencies":
      m = /^Instance has "(.*)" but does not have "(.*)"\.$/.exec(text);
      if (m) return `"${m[2]}" is required when "${m[1]}" is present`;
      break;
    case "not":
      return 'must not match the "not" schema';
  }
  return text.endsWith(".") ? text.slice(0, -1) : text;
}

/** The value at a validator's dynamic schema path, following `$ref` tokens. */
function schemaAt(root: unknown, path: string): unknown {
  let node = root;
  for (const t of tokensOf(path) ?? []) {
    node =
      t === "$ref" && isJsonObject(node) && typeof node.$ref === "string"
        ? resolveLocalRef(root, node.$ref)
        : atPointer(node, pointerOf([t]));
    if (node === undefined) return undefined;
  }
  return node;
}

function toNodes(units: readonly OutputUnit[], schema: unknown): Node[] {
  const nodes: Node[] = [];
  units.forEach((u, index) => {
    const instancePath = fragmentToPointer(u.instanceLocation);
    if (u.keyword === "false") {
      // cfworker puts the instance location in keywordLocation here; the real keyword is the
      // applicator reported just before, when this instance is one of its children.
      const prev = nodes[nodes.length - 1];
      if (
        prev &&
        FALSE_PARENTS.has(prev.keyword) &&
        strictlyWithin(instancePath, prev.instancePath)
      ) {
        prev.wrapper = true;
        nodes.push({
          index,
          instancePath,
          schemaPath: prev.schemaPath,
          keyword: prev.keyword,
          message: `not allowed (${prev.keyword}: false)`,
          wrapper: false,
        });
        return;
      }
      nodes.push({
        index,
        instancePath,
        schemaPath: "",
        keyword: "false",
        message: "no value is allowed here (false schema)",
        wrapper: false,
      });
      return;
    }
    // cfworker spells this one location "dependantRequired" (validate.js); name the keyword.
    const schemaPath = fragmentToPointer(u.keywordLocation).replace(
      /\/dependantRequired$/,
      "/dependentRequired",
    );
    // cfworker says only "String does not match pattern"; name the pattern.
    const pattern = u.keyword === "pattern" ? schemaAt(schema, schemaPath) : undefined;
    nodes.push({
      index,
      instancePath,
      schemaPath,
      keyword: u.keyword,
      message:
        typeof pattern === "string"
          ? `does not match pattern ${JSON.stringify(pattern)}`
          : shorten(u.keyword, u.error),
      wrapper: false,
    });
  });
  // An applicator whose failure is explained by later, deeper lines is a wrapper. `if` reports
  // at /if while its explanation sits under the sibling /then or /else.
  for (const n of nodes) {
    if (n.wrapper || UNIONS.has(n.keyword)) continue;
    const base = n.keyword === "if" ? n.schemaPath.replace(/\/if$/, "") : n.schemaPath;
    n.wrapper = nodes.some(
      (o) =>
        o.index > n.index &&
        within(o.instancePath, n.instancePath) &&
        (n.keyword === "if"
          ? strictlyWithin(o.schemaPath, `${base}/then`) ||
            strictlyWithin(o.schemaPath, `${base}/else`)
          : strictlyWithin(o.schemaPath, n.schemaPath)),
    );
  }
  return nodes;
}

/** The innermost union whose alternative contains `n`, or undefined. */
function unionOf(nodes: readonly Node[], n: Node): Node | undefined {
  let best: Node | undefined;
  for (const u of nodes) {
    if (u.index >= n.index || !UNIONS.has(u.keyword)) continue;
    if (!strictlyWithin(n.schemaPath, u.schemaPath) || !within(n.instancePath, u.instancePath))
      continue;
    if (best === undefined || u.schemaPath.length >= best.schemaPath.length) best = u;
  }
  return best;
}

function where(n: Node): string {
  return n.instancePath === "" ? "" : `${n.instancePath}: `;
}

/** How many alternatives a failed `oneOf` matched (cfworker: "(2 matches)"). */
function oneOfMatches(n: Node): number {
  if (n.keyword !== "oneOf") return 0;
  const m = /\((\d+) matches\)/.exec(n.message);
  return m ? Number(m[1]) : 0;
}

function renderNode(
  nodes: readonly Node[],
  parents: ReadonlyMap<Node, Node | undefined>,
  n: Node,
): string {
  if (!UNIONS.has(n.keyword)) return `${where(n)}${n.message}`;
  const matches = oneOfMatches(n);
  if (matches > 1)
    return `${where(n)}matches ${matches} oneOf alternatives, exactly one is allowed`;
  const alternatives = new Map<string, string[]>();
  for (const m of nodes) {
    if (m.wrapper || parents.get(m) !== n) continue;
    const token = m.schemaPath.slice(n.schemaPath.length + 1).split("/")[0] ?? "";
    const texts = alternatives.get(token) ?? [];
    texts.push(renderNode(nodes, parents, m));
    alternatives.set(token, texts);
  }
  const parts = [...alternatives].map(([alt, texts]) => `[${alt}] ${texts.join(", ")}`);
  return `${where(n)}no ${n.keyword} alternative matched${parts.length ? ` (${parts.join("; ")})` : ""}`;
}

/**
 * Explain a failed validation of an instance against `schema` (the schema the units came from,
 * used to quote a failing `pattern`). `maxLength` caps the summary; details keep every error.
 */
export function explainErrors(
  units: readonly OutputUnit[],
  schema: unknown,
  maxLength = 600,
): Explanation {
  const nodes = toNodes(units, schema);
  const parents = new Map<Node, Node | undefined>();
  for (const n of nodes) parents.set(n, unionOf(nodes, n));
  const errors: ArgumentError[] = nodes
    .filter((n) => !n.wrapper && !UNIONS.has(n.keyword))
    .map((n) => ({
      instancePath: n.instancePath,
      schemaPath: n.schemaPath,
      keyword: n.keyword,
      message: n.message,
    }));
  for (const n of nodes)
    if (oneOfMatches(n) > 1)
      errors.push({
        instancePath: n.instancePath,
        schemaPath: n.schemaPath,
        keyword: n.keyword,
        message: `matches ${oneOfMatches(n)} alternatives, exactly one is allowed`,
      });
  let summary = nodes
    .filter((n) => !n.wrapper && parents.get(n) === undefined)
    .map((n) => renderNode(nodes, parents, n))
    .join("; ");
  if (summary === "") summary = "the arguments do not match the schema";
  if (summary.length > maxLength)
    summary = `${summary.slice(0, maxLength - 1)}… (${errors.length} errors in details)`;
  return { errors, summary };
}
