/**
 * A session's MCP servers and the `x.ai/mcp/list` catalog.
 *
 * Every session/new, session/load and session/resume runs `resolve_mcp_servers(client list, cwd)`
 * (agent/mvp_agent/agent_ops.rs), and a load/resume of a *resident* session pushes the result
 * with `SessionCommand::UpdateMcpServers` (agent/mvp_agent/session_setup.rs `attach_session`),
 * which replaces the session's server configs with it (session/acp_session_impl/run_loop.rs).
 * The result is never "the client's list": `merge_managed_mcp_servers_with_policy`
 * (session/managed_mcp.rs) re-reads config.toml from disk on every call
 * (`load_mcp_servers_toml_only`, `enabled = false` dropped), keys each server by its URL without
 * trailing slashes (http/sse) or its name (stdio), lets client entries replace or add by key
 * (`insert`), sorts by key, and drops every name in `disabled_mcp_server_names` (enabled = false
 * plus `disabled_mcp_servers`). So a list of `[]` (or a resume without `mcpServers`, which
 * deserialises to `[]`) leaves a session with exactly the configured servers, and a non-empty
 * list adds to or overrides them. Plugin servers join after config.toml (plugins.ts), materialised
 * and connected like config servers (a plugin's stdio server is a stand-in, never spawned);
 * ~/.claude.json, ~/.cursor/mcp.json, `.mcp.json`, project `.grok/config.toml`, vendor kill
 * switches and managed allowlists are not simulated.
 *
 * `x.ai/mcp/list` (extensions/mcp.rs `handle_list`): the catalog of config servers that are not
 * `enabled = false` (load_mcp_servers), then one placeholder row per disabled name that has a
 * definition and no catalog row (`reenableable_disabled_stubs`, name order:
 * `{name,source:"local",type:"stdio",command:"",session:{enabled:false}}`, with `session` even
 * without a session id). With a resident session each row gets `session:{enabled, status, tools}`
 * (`enabled` = the session's configs name it; status/tools from its live MCP clients), and the
 * session's servers that have no row but a live client are appended as stdio placeholders with
 * `enabled: true`; last, every row a plugin owns gets `sourceLabel: "plugin: <name>"`.
 */
import { isRecord, str } from "../json.js";
import {
  type AcpMcpServer,
  disabledMcpServerNames,
  type McpServerConfig,
  materialize,
  type SimConfig,
} from "./config.js";
import type { McpConnections } from "./mcp-connect.js";
import type { PluginMcpServer } from "./plugins.js";

/** Tools a stand-in reports when its config names none (`sim_tools`). */
const DEFAULT_TOOLS = ["search", "fetch"];

export interface SessionMcpServer {
  name: string;
  /** mcp_server_key: normalized URL for http/sse, the name for stdio. */
  key: string;
  /** The materialised ACP entry (URL and headers as sent or as expanded by the leader). */
  entry: AcpMcpServer;
  /** Tools of a stand-in that is never connected; undefined for a real connection. */
  standIn: string[] | undefined;
}

function normalizeUrl(url: string): string {
  return url.replace(/\/+$/, "");
}

function configKey(s: McpServerConfig): string {
  return s.transport.kind === "http" ? normalizeUrl(s.transport.url) : s.name;
}

function pairs(value: unknown): { name: string; value: string }[] {
  if (!Array.isArray(value)) return [];
  const out: { name: string; value: string }[] = [];
  for (const v of value) {
    const name = str(isRecord(v) ? v.name : undefined);
    const val = str(isRecord(v) ? v.value : undefined);
    if (name !== undefined && val !== undefined) out.push({ name, value: val });
  }
  return out;
}

/** A client-sent server is a stand-in when the config has a stand-in under the same key. */
function standInFor(config: SimConfig, key: string, stdio: boolean): string[] | undefined {
  const configured = config.mcpServers.find((s) => configKey(s) === key);
  if (configured?.standIn === true) return configured.tools;
  return stdio ? (configured?.tools ?? DEFAULT_TOOLS) : undefined;
}

/**
 * ACP McpServer entries a client sent: `type` "http"/"sse" are tagged URL servers, anything
 * else is the untagged stdio variant. Entries without a name are skipped (the real agent
 * refuses the whole request when an entry does not deserialize; not simulated).
 */
export function clientMcpServers(config: SimConfig, list: unknown): SessionMcpServer[] {
  if (!Array.isArray(list)) return [];
  const out: SessionMcpServer[] = [];
  for (const item of list) {
    if (!isRecord(item)) continue;
    const name = str(item.name);
    if (name === undefined) continue;
    const url = str(item.url);
    const tagged = (item.type === "http" || item.type === "sse") && url !== undefined;
    const key = tagged ? normalizeUrl(url) : name;
    const entry: AcpMcpServer = tagged
      ? { type: item.type === "sse" ? "sse" : "http", name, url, headers: pairs(item.headers) }
      : {
          name,
          command: str(item.command) ?? "",
          args: Array.isArray(item.args) ? item.args.filter((a) => typeof a === "string") : [],
          env: pairs(item.env),
        };
    out.push({ name, key, entry, standIn: standInFor(config, key, !tagged) });
  }
  return out;
}

/**
 * A server read from a file (config.toml or a plugin's): keyed by its materialised entry; a
 * stand-in when it names `sim_tools` or is stdio (the simulator spawns no process).
 */
function fileServer(s: McpServerConfig, entry: AcpMcpServer): SessionMcpServer {
  const key = "url" in entry ? normalizeUrl(entry.url) : s.name;
  const standIn = s.standIn || !("url" in entry) ? s.tools : undefined;
  return { name: s.name, key, entry, standIn };
}

/**
 * resolve_mcp_servers → merge_managed_mcp_servers (see the module comment). Plugin servers
 * (plugins.ts) come after config.toml with `or_insert`, skipped when config.toml defines a server
 * of that name (`all_toml_mcp_server_names`, enabled or not).
 */
export function mergeSessionMcpServers(
  config: SimConfig,
  client: readonly SessionMcpServer[],
  plugin: readonly PluginMcpServer[] = [],
): SessionMcpServer[] {
  const byKey = new Map<string, SessionMcpServer>();
  for (const s of config.mcpServers) {
    const entry = s.enabled ? materialize(s) : undefined;
    if (entry === undefined) continue;
    const server = fileServer(s, entry);
    byKey.set(server.key, server);
  }
  const tomlNames = new Set(config.mcpServers.map((s) => s.name));
  for (const p of plugin) {
    const server = fileServer(p.config, p.entry);
    if (tomlNames.has(server.name) || byKey.has(server.key)) continue;
    byKey.set(server.key, server);
  }
  for (const s of client) byKey.set(s.key, s);
  const disabled = disabledMcpServerNames(config);
  return [...byKey.values()]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .filter((s) => !disabled.has(s.name));
}

/**
 * McpServerSessionState: `enabled` (the session's configs name it), then `status` and `tools`
 * from the live client (absent when the session has no client of that name). A stand-in's tool
 * rows carry only `name` and `enabled`; a connected server's carry the server's description and
 * `_meta` (build_mcp_status), sorted by name.
 */
function sessionState(
  name: string,
  servers: readonly SessionMcpServer[],
  live: McpConnections,
): Record<string, unknown> {
  const state: Record<string, unknown> = { enabled: servers.some((s) => s.name === name) };
  const conn = live.status(name);
  if (conn === undefined) return state;
  state.status = conn.status;
  const standIn = servers.find((s) => s.name === name)?.standIn !== undefined;
  if (conn.tools.length > 0) {
    state.tools = conn.tools.map((t) => {
      if (standIn) return { name: t.name, enabled: true };
      const row: Record<string, unknown> = { name: t.name, description: t.description };
      if (t.meta !== undefined) row._meta = t.meta;
      row.enabled = true;
      return row;
    });
  }
  return state;
}

/** A catalog row: the materialised config entry; HTTP rows never show headers (mcp.rs). */
function catalogRow(server: McpServerConfig): Record<string, unknown> | undefined {
  const acp = materialize(server);
  if (acp === undefined) return undefined;
  const entry: Record<string, unknown> = { name: server.name, source: "local" };
  if ("url" in acp) {
    entry.type = "http";
    entry.url = acp.url;
  } else {
    entry.type = "stdio";
    entry.command = acp.command;
    if (acp.args.length > 0) entry.args = acp.args;
    if (acp.env.length > 0) entry.env = acp.env;
  }
  return entry;
}

function placeholderRow(name: string, session: Record<string, unknown>): Record<string, unknown> {
  return { name, source: "local", type: "stdio", command: "", session };
}

/** handle_list's last pass: `sourceLabel: "plugin: <name>"` on rows a plugin owns (key order kept). */
function labelled(row: Record<string, unknown>, owners: ReadonlyMap<string, string>) {
  const owner = owners.get(String(row.name));
  if (owner === undefined || row.sourceLabel !== undefined) return row;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] = v;
    if (k === "source") out.sourceLabel = `plugin: ${owner}`;
  }
  return out;
}

/** The `servers` of an `x.ai/mcp/list` answer; `session` is the resident session's servers. */
export function mcpListServers(
  config: SimConfig,
  session: { servers: readonly SessionMcpServer[]; live: McpConnections } | undefined,
  owners: ReadonlyMap<string, string> = new Map(),
): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const s of config.mcpServers) {
    if (!s.enabled || seen.has(s.name)) continue;
    seen.add(s.name);
    const row = catalogRow(s);
    if (row !== undefined) rows.push(row);
  }
  // reenableable_disabled_stubs: a disabled name counts when config.toml or a plugin defines it.
  const defined = new Set([...config.mcpServers.map((s) => s.name), ...owners.keys()]);
  const stubs = [...disabledMcpServerNames(config)]
    .filter((n) => defined.has(n) && !seen.has(n))
    .sort();
  for (const name of stubs) {
    seen.add(name);
    rows.push(placeholderRow(name, { enabled: false }));
  }
  if (session === undefined) return rows.map((r) => labelled(r, owners));
  for (const row of rows)
    row.session = sessionState(String(row.name), session.servers, session.live);
  // Session-only servers: only those with a live client get a row (handle_list); stand-ins
  // (plugin stdio servers included) have one from the moment the list is set (mcp-connect.ts).
  for (const s of session.servers) {
    if (seen.has(s.name) || session.live.status(s.name) === undefined) continue;
    seen.add(s.name);
    rows.push(placeholderRow(s.name, sessionState(s.name, session.servers, session.live)));
  }
  return rows.map((r) => labelled(r, owners));
}
