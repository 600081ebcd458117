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
 * list adds to or overrides them. Plugin servers join after config.toml (plugins.ts);
 * ~/.claude.json, ~/.cursor/mcp.json, `.mcp.json`, project `.grok/config.toml`, vendor kill
 * switches and managed allowlists are not simulated.
 *
 * `x.ai/mcp/list` (extensions/mcp.rs `handle_list`): the catalog of config servers that are not
 * `enabled = false` (load_mcp_servers), then one placeholder row per disabled name that has a
 * definition and no catalog row (`reenableable_disabled_stubs`, name order:
 * `{name,source:"local",type:"stdio",command:"",session:{enabled:false}}`, with `session` even
 * without a session id). With a resident session each row gets `session:{enabled, status, tools}`
 * (`enabled` = the session's configs name it; status/tools from its live MCP clients), and the
 * session's servers that have no row are appended as stdio placeholders with `enabled: true`.
 */
import { isRecord, str } from "../json.js";
import { disabledMcpServerNames, type McpServerConfig, type SimConfig } from "./config.js";

/** Tools a server reports when its config names none (`sim_tools`). */
const DEFAULT_TOOLS = ["search", "fetch"];

export interface SessionMcpServer {
  name: string;
  /** mcp_server_key: normalized URL for http/sse, the name for stdio. */
  key: string;
}

function normalizeUrl(url: string): string {
  return url.replace(/\/+$/, "");
}

function configKey(s: McpServerConfig): string {
  return s.transport.kind === "http" ? normalizeUrl(s.transport.url) : s.name;
}

/**
 * ACP McpServer entries a client sent: `type` "http"/"sse" are tagged URL servers, anything
 * else is the untagged stdio variant. Entries without a name are skipped (the real agent
 * refuses the whole request when an entry does not deserialize; not simulated).
 */
export function clientMcpServers(list: unknown): SessionMcpServer[] {
  if (!Array.isArray(list)) return [];
  const out: SessionMcpServer[] = [];
  for (const item of list) {
    if (!isRecord(item)) continue;
    const name = str(item.name);
    if (name === undefined) continue;
    const url = str(item.url);
    const tagged = item.type === "http" || item.type === "sse";
    out.push({ name, key: tagged && url !== undefined ? normalizeUrl(url) : name });
  }
  return out;
}

/**
 * resolve_mcp_servers → merge_managed_mcp_servers (see the module comment). Plugin servers
 * (plugins.ts) come after config.toml with `or_insert`, skipped when config.toml defines a server
 * of that name (`all_toml_mcp_server_names`, enabled or not).
 */
export function mergeSessionMcpServers(
  config: SimConfig,
  client: readonly SessionMcpServer[],
  plugin: readonly SessionMcpServer[] = [],
): SessionMcpServer[] {
  const byKey = new Map<string, SessionMcpServer>();
  for (const s of config.mcpServers) {
    if (s.enabled) byKey.set(configKey(s), { name: s.name, key: configKey(s) });
  }
  const tomlNames = new Set(config.mcpServers.map((s) => s.name));
  for (const s of plugin) {
    if (tomlNames.has(s.name) || byKey.has(s.key)) continue;
    byKey.set(s.key, { name: s.name, key: s.key });
  }
  for (const s of client) byKey.set(s.key, s);
  const disabled = disabledMcpServerNames(config);
  return [...byKey.values()]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .filter((s) => !disabled.has(s.name));
}

function toolsOf(config: SimConfig, name: string): string[] {
  return config.mcpServers.find((s) => s.name === name)?.tools ?? DEFAULT_TOOLS;
}

function sessionState(
  config: SimConfig,
  name: string,
  servers: readonly SessionMcpServer[],
): Record<string, unknown> {
  const live = servers.some((s) => s.name === name);
  const state: Record<string, unknown> = { enabled: live };
  if (live) {
    state.status = "ready";
    const tools = toolsOf(config, name);
    if (tools.length > 0) state.tools = tools.map((t) => ({ name: t, enabled: true }));
  }
  return state;
}

function catalogRow(server: McpServerConfig): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: server.name, source: "local" };
  if (server.transport.kind === "http") {
    entry.type = "http";
    entry.url = server.transport.url;
  } else {
    entry.type = "stdio";
    entry.command = server.transport.command;
    if (server.transport.args.length > 0) entry.args = server.transport.args;
    const env = Object.entries(server.transport.env).map(([name, value]) => ({ name, value }));
    if (env.length > 0) entry.env = env;
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
  session: readonly SessionMcpServer[] | undefined,
  owners: ReadonlyMap<string, string> = new Map(),
): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const s of config.mcpServers) {
    if (!s.enabled || seen.has(s.name)) continue;
    seen.add(s.name);
    rows.push(catalogRow(s));
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
  for (const row of rows) row.session = sessionState(config, String(row.name), session);
  for (const s of session) {
    if (seen.has(s.name)) continue;
    seen.add(s.name);
    rows.push(placeholderRow(s.name, sessionState(config, s.name, session)));
  }
  return rows.map((r) => labelled(r, owners));
}
