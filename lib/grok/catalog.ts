/**
 * Catalog readiness before the first brief (seed ADR 0224): an enabled, direct `mcp.linear.app`
 * endpoint in our session's `x.ai/mcp/list` refuses, naming the owner's step; a list that does not
 * describe our session refuses too; nothing else is judged. The narrow rule and why:
 * docs/design/decisions.md §7.3.
 */
import * as v from "valibot";
import { type CheckResult, fail, pass } from "../check.js";
import type { JsonValue } from "../json.js";

export const LINEAR_DIRECT_HOST = "mcp.linear.app";

/** The owner's step when a direct Linear endpoint is enabled (named in the refusal). */
export const LINEAR_OWNER_STEP =
  "Disable the mcp.linear.app server in Grok's MCP configuration, then start a fresh seat.";

export const McpServerEntrySchema = v.looseObject({
  name: v.string(),
  source: v.optional(v.string()),
  type: v.optional(v.string()),
  url: v.optional(v.string()),
  session: v.optional(v.looseObject({ enabled: v.boolean(), status: v.optional(v.string()) })),
});
export type McpServerEntry = v.InferOutput<typeof McpServerEntrySchema>;

/** `{"servers":[…]}`, the `result` of the ext-method envelope (`ExtMethodResult`). */
export const McpListResultSchema = v.looseObject({ servers: v.array(McpServerEntrySchema) });
export type McpListResult = v.InferOutput<typeof McpListResultSchema>;

/** The host of an MCP URL, lowercased, without a trailing root dot; null if there is none. */
export function urlHost(url: string): string | null {
  const parse = (s: string): URL | null => {
    try {
      return new URL(s);
    } catch {
      return null;
    }
  };
  // A scheme-less "mcp.linear.app/sse" still names that host; read it as an authority.
  const u = parse(url) ?? (url.includes("://") ? null : parse(`http://${url}`));
  if (u === null || u.hostname === "") return null;
  return u.hostname.toLowerCase().replace(/\.$/, "");
}

/** Whether an entry is an enabled, direct `mcp.linear.app` endpoint of the session. */
export function isEnabledDirectLinear(entry: McpServerEntry): boolean {
  if (entry.type !== "http" || entry.url === undefined) return false;
  if (entry.session?.enabled !== true) return false;
  return urlHost(entry.url) === LINEAR_DIRECT_HOST;
}

export interface CatalogReadiness {
  readonly ok: boolean;
  /** Null when ready; otherwise LINEAR_DIRECT_ENABLED or CATALOG_NOT_SESSION_SCOPED. */
  readonly code: "LINEAR_DIRECT_ENABLED" | "CATALOG_NOT_SESSION_SCOPED" | null;
  readonly checks: readonly CheckResult[];
  /** Names of the offending entries (Linear refusals). */
  readonly offending: readonly string[];
  /** What the owner must do, when refused. */
  readonly ownerStep: string | null;
}

/** Judge an `x.ai/mcp/list` result for readiness. Pure; never throws. */
export function catalogReadiness(list: McpListResult): CatalogReadiness {
  const scoped = list.servers.length === 0 || list.servers.some((s) => s.session !== undefined);
  const scopeCheck = scoped
    ? pass("catalog.session_scoped", true, true)
    : fail(
        "catalog.session_scoped",
        true,
        false,
        "the MCP list carries no session state: the session is not resident in this leader",
      );
  const offending = list.servers.filter(isEnabledDirectLinear);
  const urls: JsonValue = offending.map((s) => s.url ?? "");
  const linearCheck =
    offending.length === 0
      ? pass("catalog.linear_direct_disabled", [], [])
      : fail(
          "catalog.linear_direct_disabled",
          [],
          urls,
          `an enabled direct ${LINEAR_DIRECT_HOST} endpoint is in the session's MCP servers`,
        );
  const checks = [scopeCheck, linearCheck];
  const code = !scoped
    ? "CATALOG_NOT_SESSION_SCOPED"
    : offending.length > 0
      ? "LINEAR_DIRECT_ENABLED"
      : null;
  return {
    ok: code === null,
    code,
    checks,
    offending: offending.map((s) => s.name),
    ownerStep: code === "LINEAR_DIRECT_ENABLED" ? LINEAR_OWNER_STEP : null,
  };
}
