/**
 * Plugins and the MCP servers they bring into a session (xai-grok-agent plugins/discovery.rs
 * `discover_plugins`, manifest.rs, registry.rs; xai-grok-shell session/managed_mcp.rs
 * `non_toml_mcp_servers_with_source`, `load_plugin_mcp_servers`).
 *
 * Every MCP merge a session gets (session/new, session/load, session/resume,
 * `x.ai/session/update_mcp_servers`) and the `x.ai/mcp/list` owner map read the agent's SHARED
 * plugin registry (agent_ops.rs `resolve_mcp_servers` → `plugin_registry_handle.snapshot()`,
 * populated by `ensure_plugin_registry` for the launch directory; session_admin.rs
 * `handle_update_mcp_servers`; extensions/mcp.rs `handle_list`). A session's `_meta.pluginDirs`
 * only go into that session's own registry (mvp_agent/mod.rs `parse_session_plugin_dirs`,
 * registry.rs `build_for_cwd`), whose MCP servers a session adopts only on a plugin reload
 * (hooks_plugins.rs `apply_plugin_registry_snapshot`; not simulated): so they bring no server.
 *
 * Simulated scopes of the shared registry, in priority order:
 * - `$GROK_HOME/plugins/<dir>` (User scope, trusted): enabled only when `[plugins] enabled`
 *   names it (populate_plugin_lists puts unlisted user plugins on the disabled list);
 * - `[plugins] paths` (ConfigPath scope): enabled unless `[plugins] disabled` names it, trusted
 *   when its real path is under the home directory (`is_config_path_auto_trusted`).
 * A root is a plugin when it has a manifest (`plugin.json`, `.grok-plugin/plugin.json`,
 * `.claude-plugin/plugin.json`, with a kebab-case `name`) or, without one, a component
 * (`skills/`, `commands/`, `agents/`, `.mcp.json`, `.lsp.json`, `hooks/hooks.json`; the name then
 * comes from the directory). Its MCP servers come from the manifest's `mcpServers` (a path, or an
 * inline object, with or without an `mcpServers` wrapper) and from `.mcp.json` at its root
 * (`{mcpServers: {<name>: McpServerConfig}}`, the config.toml server type: `command`/`args`/`env`
 * or `url`/`type`/`headers`/`bearer_token_env_var`, `enabled`, and the simulator-only `sim_tools`),
 * materialised like managed_mcp.rs `load_plugin_mcp_servers_from_config`: the
 * `${GROK_PLUGIN_ROOT}` / `${CLAUDE_PLUGIN_ROOT}` / `${GROK_PLUGIN_DATA}` / `${CLAUDE_PLUGIN_DATA}`
 * tokens (xai-grok-tools util/env.rs `substitute_plugin_tokens`), then `$VAR` expansion
 * (expand.ts), then `to_acp_mcp_server`. Project plugins, marketplace installs and the
 * trusted-plugins store are not simulated.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { grokHome } from "../env.js";
import { isDir, isFile } from "../fs.js";
import { isRecord, type JsonRecord, parseJson, str } from "../json.js";
import { pluginsSettings } from "../settings.js";
import { type AcpMcpServer, type McpServerConfig, materialize, parseServer } from "./config.js";
import { expandEnv } from "./expand.js";

export interface PluginMcpServer {
  /** The owning plugin's name. */
  plugin: string;
  /** The server as the plugin defines it (its `sim_tools` make it a stand-in, mcp.ts). */
  config: McpServerConfig;
  /** The materialised ACP entry (tokens and `$VAR` expanded). */
  entry: AcpMcpServer;
}

interface Plugin {
  name: string;
  root: string;
  scope: "user" | "config";
  enabled: boolean;
  trusted: boolean;
  manifest: JsonRecord | undefined;
}

const MANIFESTS = ["plugin.json", ".grok-plugin/plugin.json", ".claude-plugin/plugin.json"];

function validName(name: string): boolean {
  return /^[a-z0-9-]{1,64}$/.test(name) && !name.startsWith("-") && !name.endsWith("-");
}

/** name_from_dirname: lowercased, anything else than [a-z0-9-] becomes '-', trimmed. */
function nameFromDir(dir: string): string | undefined {
  const s = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .replace(/^-+|-+$/g, "");
  return s === "" || s.length > 64 ? undefined : s;
}

/** collect_plugin: the manifest, or convention-based discovery; undefined when not a plugin. */
function loadPlugin(root: string): { name: string; manifest: JsonRecord | undefined } | undefined {
  for (const rel of MANIFESTS) {
    const path = join(root, rel);
    if (!isFile(path)) continue;
    const doc = parseJson(readFileSync(path, "utf8"));
    const name = str(isRecord(doc) ? doc.name : undefined);
    if (!isRecord(doc) || name === undefined || !validName(name)) return undefined;
    return { name, manifest: doc };
  }
  const name = nameFromDir(root);
  if (name === undefined) return undefined;
  const component =
    isDir(join(root, "skills")) ||
    isDir(join(root, "commands")) ||
    isDir(join(root, "agents")) ||
    isFile(join(root, ".mcp.json")) ||
    isFile(join(root, ".lsp.json")) ||
    isFile(join(root, "hooks", "hooks.json"));
  return component ? { name, manifest: undefined } : undefined;
}

function canonical(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** discover_plugins + PluginRegistry::from_discovered for the simulated scopes. */
function discover(): Plugin[] {
  const settings = pluginsSettings();
  const seen = new Set<string>();
  const names = new Set<string>();
  const out: Plugin[] = [];
  const listed = (list: string[], name: string): boolean => list.includes(name);
  const add = (root: string, scope: Plugin["scope"]): void => {
    const real = canonical(root);
    if (real === undefined || seen.has(real)) return;
    seen.add(real);
    const found = loadPlugin(root);
    if (found === undefined || names.has(found.name)) return;
    names.add(found.name);
    const disabled = listed(settings.disabled, found.name);
    const enabled =
      scope === "user" ? listed(settings.enabled, found.name) && !disabled : !disabled;
    const home = canonical(homedir());
    const trusted =
      scope !== "config" || (home !== undefined && (real === home || real.startsWith(`${home}/`)));
    out.push({ name: found.name, root, scope, enabled, trusted, manifest: found.manifest });
  };
  const userDir = join(grokHome(), "plugins");
  if (isDir(userDir)) {
    const subdirs = readdirSync(userDir)
      .map((n) => join(userDir, n))
      .filter(isDir)
      .sort();
    for (const d of subdirs) add(d, "user");
  }
  for (const p of settings.paths) if (isDir(p)) add(p, "config");
  return out;
}

/** substitute_plugin_tokens (the literal `${…}` tokens only), then expand_env_vars_in_string. */
function substitute(s: string, root: string, data: string): string {
  const tokens: [string, string][] = [
    ["CLAUDE_PLUGIN_ROOT", root],
    ["GROK_PLUGIN_ROOT", root],
    ["CLAUDE_PLUGIN_DATA", data],
    ["GROK_PLUGIN_DATA", data],
  ];
  let out = s;
  for (const [token, value] of tokens) out = out.replaceAll(`\${${token}}`, value);
  return expandEnv(out);
}

function serverEntries(doc: unknown): [string, JsonRecord][] {
  if (!isRecord(doc)) return [];
  const inner = isRecord(doc.mcpServers) ? doc.mcpServers : doc;
  return Object.entries(inner).filter((e): e is [string, JsonRecord] => isRecord(e[1]));
}

function readJson(path: string): unknown {
  try {
    return parseJson(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/** The plugin's server sources: manifest path or inline object, and `.mcp.json` first. */
function serverSources(p: Plugin): unknown[] {
  const sources: unknown[] = [];
  const m = p.manifest?.mcpServers;
  if (typeof m === "string") sources.push(readJson(resolve(p.root, m)));
  else {
    if (isRecord(m)) sources.push(m);
    const dflt = join(p.root, ".mcp.json");
    if (existsSync(dflt)) sources.unshift(readJson(dflt));
  }
  return sources;
}

/**
 * The plugin's servers (non_toml_mcp_servers_with_source): each source parsed and materialised
 * on its own (a disabled entry or one without command or url yields nothing), then the first
 * server of each name kept.
 */
function pluginServers(p: Plugin): PluginMcpServer[] {
  const data = join(grokHome(), "plugin-data", p.name);
  const out: PluginMcpServer[] = [];
  const names = new Set<string>();
  for (const src of serverSources(p)) {
    for (const [name, raw] of serverEntries(src)) {
      const config = parseServer(name, raw);
      if (config === undefined || !config.enabled || names.has(name)) continue;
      const entry = materialize(config, (v) => substitute(v, p.root, data));
      if (entry === undefined) continue;
      names.add(name);
      out.push({ plugin: p.name, config, entry });
    }
  }
  return out;
}

function activePlugins(): Plugin[] {
  return discover().filter((p) => p.enabled && p.trusted);
}

/** Servers of every enabled and trusted plugin (active_plugins), in scope order. */
export function activePluginServers(): PluginMcpServer[] {
  return activePlugins().flatMap(pluginServers);
}

/**
 * PluginRegistry::mcp_server_owner of the shared registry: which enabled, trusted plugin owns each server name its files define (registry.rs
 * `plugin_mcp_server_names`, whatever the entry holds; the first plugin wins).
 */
export function mcpServerOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const p of activePlugins()) {
    for (const src of serverSources(p)) {
      for (const [name] of serverEntries(src)) if (!owners.has(name)) owners.set(name, p.name);
    }
  }
  return owners;
}
