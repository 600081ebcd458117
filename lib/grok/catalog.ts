/**
 * Catalog readiness before the first brief (ADR 0224 (docs/design/adr-0224.md)): an enabled server of our session that
 * reaches `mcp.linear.app` directly refuses, naming the owner's step; so does an enabled server
 * whose transport cannot be told from the list or from the configuration we can read; a list that
 * does not describe our session refuses too; nothing else is judged. The narrow rule and why:
 * docs/design/decisions.md §7.3 and §12.3.
 *
 * Direct Linear is a transport that reaches the host itself: an `http`/`sse` row whose URL names
 * it, or a `stdio` row whose command or arguments name it (a local proxy such as
 * `npx mcp-remote https://mcp.linear.app/sse` is still direct). The list shows plugin servers and
 * servers only a client named as `type: "stdio", command: ""` placeholders with no URL
 * (`extensions/mcp.rs` `handle_list`): a plugin row (`sourceLabel: "plugin: <name>"`) is judged
 * by the plugin's own declaration (lib/grok/plugin-servers.ts); any other enabled placeholder is
 * CATALOG_UNVERIFIABLE, except the placeholder of a server this seat added itself (`ownServers`,
 * matched by name and tools).
 */
import * as v from "valibot";
import { type CheckResult, fail, pass } from "../check.js";
import type { JsonValue } from "../json.js";
import type { PluginServerSpec } from "./plugin-servers.js";

export const LINEAR_DIRECT_HOST = "mcp.linear.app";

/** The owner's step when a direct Linear endpoint is enabled (named in the refusal). */
export const LINEAR_OWNER_STEP =
  "Disable the mcp.linear.app server in Grok's MCP configuration, then start a fresh seat.";

/** The owner's step when an enabled server cannot be traced to what it runs. */
export const UNVERIFIABLE_OWNER_STEP =
  "Disable the MCP servers named in details.unverifiable for this session (Grok's /mcp, or the plugin or client that adds them), or make their plugin readable in the profile, then start a fresh seat.";

export const McpServerEntrySchema = v.looseObject({
  name: v.string(),
  source: v.optional(v.string()),
  sourceLabel: v.optional(v.string()),
  type: v.optional(v.string()),
  url: v.optional(v.string()),
  command: v.optional(v.string()),
  args: v.optional(v.array(v.unknown())),
  session: v.optional(
    v.looseObject({
      enabled: v.boolean(),
      status: v.optional(v.string()),
      tools: v.optional(v.array(v.unknown())),
    }),
  ),
});
export type McpServerEntry = v.InferOutput<typeof McpServerEntrySchema>;

/** `{"servers":[…]}`, the `result` of the ext-method envelope (`ExtMethodResult`). */
export const McpListResultSchema = v.looseObject({ servers: v.array(McpServerEntrySchema) });
export type McpListResult = v.InferOutput<typeof McpListResultSchema>;

/** A server this seat added to the session itself (issue 14's bank): its name and tool names. */
export interface OwnServer {
  readonly name: string;
  readonly tools: readonly string[];
}

/** What the rule needs besides the list. */
export interface CatalogContext {
  /** Plugin servers by plugin name, as the profile declares them; null when not looked up. */
  readonly plugins: ReadonlyMap<string, readonly PluginServerSpec[]> | null;
  /** The servers this seat added itself: their placeholder rows are not judged. */
  readonly ownServers: readonly OwnServer[];
}

export const EMPTY_CATALOG_CONTEXT: CatalogContext = { plugins: null, ownServers: [] };

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

/** The host as a whole name inside a command line word (a URL, `host:port`, `--url=https://…`). */
const HOST_IN_WORD = /(?:^|[^a-z0-9.-])mcp\.linear\.app\.?(?=$|[^a-z0-9.-])/i;

/** Whether a stdio command line names the Linear host (a proxy to it is still direct). */
export function commandNamesLinear(command: string | null, args: readonly string[]): boolean {
  return [command ?? "", ...args].some(
    (w) => HOST_IN_WORD.test(w) || urlHost(w) === LINEAR_DIRECT_HOST,
  );
}

/** A transport's verdict: direct Linear, something else, or not known. */
type Transport = "linear" | "other" | "unknown";

function judge(url: string | null, command: string | null, args: readonly string[]): Transport {
  if (url !== null && url !== "") return urlHost(url) === LINEAR_DIRECT_HOST ? "linear" : "other";
  if (command !== null && command !== "") {
    return commandNamesLinear(command, args) ? "linear" : "other";
  }
  return "unknown";
}

function strings(a: readonly unknown[] | undefined): string[] {
  return (a ?? []).map((x) => (typeof x === "string" ? x : (JSON.stringify(x) ?? "")));
}

function toolNames(entry: McpServerEntry): string[] {
  return (entry.session?.tools ?? [])
    .map((t) =>
      typeof t === "string"
        ? t
        : typeof t === "object" && t !== null
          ? Reflect.get(t, "name")
          : null,
    )
    .filter((n): n is string => typeof n === "string")
    .sort();
}

function isOwn(entry: McpServerEntry, own: readonly OwnServer[]): boolean {
  const tools = JSON.stringify(toolNames(entry));
  return own.some((o) => o.name === entry.name && JSON.stringify([...o.tools].sort()) === tools);
}

const PLUGIN_LABEL = /^plugin: (.+)$/;

/** How one enabled row of the session is judged. */
export function judgeEntry(
  entry: McpServerEntry,
  ctx: CatalogContext,
): { transport: Transport; via: "row" | "plugin" | "own" | "none" } {
  // xAI's managed connector gateway (`McpServerConfig::ManagedGateway`) is never a direct endpoint.
  if (entry.type === "managedGateway") return { transport: "other", via: "row" };
  const row = judge(entry.url ?? null, entry.command ?? null, strings(entry.args));
  if (row !== "unknown") return { transport: row, via: "row" };
  const plugin = PLUGIN_LABEL.exec(entry.sourceLabel ?? "")?.[1];
  if (plugin !== undefined && ctx.plugins !== null) {
    const specs = (ctx.plugins.get(plugin) ?? []).filter((s) => s.name === entry.name);
    if (specs.length > 0 && specs.every((s) => !s.unresolved)) {
      const verdicts = specs.map((s) => judge(s.url, s.command, s.args));
      if (verdicts.includes("linear")) return { transport: "linear", via: "plugin" };
      if (verdicts.every((x) => x === "other")) return { transport: "other", via: "plugin" };
    }
  }
  if (isOwn(entry, ctx.ownServers)) return { transport: "other", via: "own" };
  return { transport: "unknown", via: "none" };
}

/** Whether an entry is an enabled, direct `mcp.linear.app` endpoint of the session. */
export function isEnabledDirectLinear(
  entry: McpServerEntry,
  ctx: CatalogContext = EMPTY_CATALOG_CONTEXT,
): boolean {
  return entry.session?.enabled === true && judgeEntry(entry, ctx).transport === "linear";
}

export type CatalogRefusalCode =
  | "LINEAR_DIRECT_ENABLED"
  | "CATALOG_UNVERIFIABLE"
  | "CATALOG_NOT_SESSION_SCOPED";

export interface CatalogReadiness {
  readonly ok: boolean;
  /** Null when ready; otherwise why not. */
  readonly code: CatalogRefusalCode | null;
  readonly checks: readonly CheckResult[];
  /** Names of the enabled direct-Linear entries. */
  readonly offending: readonly string[];
  /** Names of the enabled entries whose transport could not be told. */
  readonly unverifiable: readonly string[];
  /** What the owner must do, when refused. */
  readonly ownerStep: string | null;
}

/**
 * Judge an `x.ai/mcp/list` result for readiness. Pure; never throws. Every local row must carry
 * `session`: the list was asked for our session after the residency probe found it resident, and
 * for a resident session the real list annotates every row (`handle_list`), so a row without it
 * means the list does not describe our session.
 */
export function catalogReadiness(
  list: McpListResult,
  ctx: CatalogContext = EMPTY_CATALOG_CONTEXT,
): CatalogReadiness {
  const unscoped = list.servers.filter(
    (s) => (s.source === undefined || s.source === "local") && s.session === undefined,
  );
  const scopeCheck =
    unscoped.length === 0
      ? pass("catalog.session_scoped", true, true)
      : fail(
          "catalog.session_scoped",
          true,
          unscoped.map((s) => s.name),
          "the MCP list carries no session state for these servers: it does not describe our session",
        );
  const enabled = list.servers.filter((s) => s.session?.enabled === true);
  const verdicts = enabled.map((s) => ({ entry: s, ...judgeEntry(s, ctx) }));
  const offending = verdicts.filter((x) => x.transport === "linear").map((x) => x.entry);
  const unknown = verdicts.filter((x) => x.transport === "unknown").map((x) => x.entry);
  const urls: JsonValue = offending.map(
    (s) => s.url ?? [s.command ?? "", ...strings(s.args)].join(" "),
  );
  const linearCheck =
    offending.length === 0
      ? pass("catalog.linear_direct_disabled", [], [])
      : fail(
          "catalog.linear_direct_disabled",
          [],
          urls,
          `an enabled server of the session reaches ${LINEAR_DIRECT_HOST} directly`,
        );
  const unknownCheck =
    unknown.length === 0
      ? pass("catalog.transports_known", [], [])
      : fail(
          "catalog.transports_known",
          [],
          unknown.map((s) => s.name),
          "enabled MCP servers whose transport neither the list nor a readable plugin declares",
        );
  const checks = [scopeCheck, linearCheck, unknownCheck];
  const code: CatalogRefusalCode | null =
    unscoped.length > 0
      ? "CATALOG_NOT_SESSION_SCOPED"
      : offending.length > 0
        ? "LINEAR_DIRECT_ENABLED"
        : unknown.length > 0
          ? "CATALOG_UNVERIFIABLE"
          : null;
  return {
    ok: code === null,
    code,
    checks,
    offending: offending.map((s) => s.name),
    unverifiable: unknown.map((s) => s.name),
    ownerStep:
      code === "LINEAR_DIRECT_ENABLED"
        ? LINEAR_OWNER_STEP
        : code === "CATALOG_UNVERIFIABLE"
          ? UNVERIFIABLE_OWNER_STEP
          : null,
  };
}
