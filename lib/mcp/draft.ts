/**
 * Which JSON Schema draft a tool schema is written in, from its root `$schema`.
 *
 * MCP says tool schemas are 2020-12 unless `$schema` says otherwise, and the operator bank has
 * both (docs/design/acp-mcp-toolchain.md §3.1). The draft matters for validation in two places that
 * @cfworker/json-schema honours: in draft-04/06/07 a `$ref` makes its sibling keywords inert
 * (`validate.js`, `draft === '4' || draft === '7'`), and draft-04 has boolean
 * `exclusiveMinimum`/`exclusiveMaximum`. Everything else (tuple `items: []`, `definitions`,
 * `dependencies`) cfworker accepts in every mode.
 */
import { isJsonObject } from "./json-pointer.js";

/** The draft names @cfworker/json-schema understands. */
export type SchemaDraft = "4" | "7" | "2019-09" | "2020-12";

const KNOWN: readonly (readonly [RegExp, SchemaDraft])[] = [
  [/^https?:\/\/json-schema\.org\/draft-04\/schema#?$/, "4"],
  // draft-06 differs from draft-07 only by keywords cfworker evaluates the same way.
  [/^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/, "7"],
  [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, "2019-09"],
  [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, "2020-12"],
];

/** The draft named by the root `$schema`; 2020-12 (MCP's default) when absent or unknown. */
export function schemaDraft(schema: unknown): SchemaDraft {
  const uri = isJsonObject(schema) ? schema.$schema : undefined;
  if (typeof uri !== "string") return "2020-12";
  for (const [re, draft] of KNOWN) if (re.test(uri)) return draft;
  return "2020-12";
}

/** Drafts in which `$ref` overrides its siblings (draft-07 §8.3). */
export function refOverridesSiblings(draft: SchemaDraft): boolean {
  return draft === "4" || draft === "7";
}
