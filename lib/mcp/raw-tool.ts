/**
 * The upstream `tools/list` result as it arrives, before the SDK's own `ToolSchema` would reject
 * it (docs/design/acp-mcp-toolchain.md §2: one bad schema loses the whole list). Everything from the wire is
 * `unknown` and goes through valibot; tools are *checked* (`v.is`) rather than parsed, because
 * parsing copies and reorders keys and the proxy must keep every byte of the original.
 */
import * as v from "valibot";
import { McpProjectionError } from "./mcp-error.js";

/** A tool entry as the upstream sent it: a string `name`, everything else untouched. */
export interface RawTool {
  readonly name: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly [key: string]: unknown;
}

const RawToolShape = v.looseObject({
  name: v.string(),
  inputSchema: v.optional(v.unknown()),
  outputSchema: v.optional(v.unknown()),
});

/** Narrow one wire entry; the object itself is kept, not a copy. */
export function isRawTool(entry: unknown): entry is RawTool {
  return v.is(RawToolShape, entry);
}

/** `ListToolsResult` (MCP 2025-11-25 §tools/list): `{tools, nextCursor?}`; `null` cursor = end. */
const ToolsListPage = v.looseObject({
  tools: v.array(v.unknown()),
  nextCursor: v.nullish(v.string()),
});

export interface RawToolsPage {
  readonly tools: readonly unknown[];
  readonly nextCursor: string | undefined;
}

/** Check one page of a raw `tools/list` result; a page without a `tools` array is an error. */
export function parseToolsListPage(result: unknown): RawToolsPage {
  const r = v.safeParse(ToolsListPage, result);
  if (!r.success)
    throw new McpProjectionError(
      "MCP_UPSTREAM_BAD_LIST",
      `upstream tools/list result is malformed: ${v.summarize(r.issues)}`,
      { details: { issues: r.issues.map((i) => i.message) } },
    );
  return { tools: r.output.tools, nextCursor: r.output.nextCursor ?? undefined };
}
