/**
 * The MCP servers Grok's plugins bring into a session, read from the plugin manifests where the
 * real program looks for them, so the catalog rule can judge a plugin row that `x.ai/mcp/list`
 * shows only as a `stdio` placeholder with `sourceLabel: "plugin: <name>"`
 * (`xai-grok-shell/src/extensions/mcp.rs` `handle_list`; `session/managed_mcp.rs`
 * `load_plugin_mcp_servers`). Roots (`xai-grok-agent/src/plugins/discovery.rs`
 * `discover_plugins`, `user_plugin_dirs`, `project_plugin_dirs`): project `.grok/plugins/*` and
 * `.claude/plugins/*` from the cwd up to the git root (only the cwd's own outside a repo, or when
 * the repo is $HOME: `repo.rs` `RepoDirChain`), `$GROK_HOME/plugins/*`, `~/.claude/plugins/*`
 * (never the legacy `~/.grok/plugins`), and `[plugins] paths`. A plugin's name is its
 * manifest's (`plugin.json`, `.grok-plugin/plugin.json`, `.claude-plugin/plugin.json`), else its
 * directory's (`manifest.rs`); its servers come from the manifest's `mcpServers` (a path or an
 * inline object) and its root `.mcp.json`, with `${GROK_PLUGIN_ROOT}`-style tokens and `${VAR}`
 * substituted (`registry.rs`). Marketplace and install-registry plugins are not read: a row of
 * theirs stays unresolved, which the catalog rule refuses (docs/design/decisions.md §12.3).
 * Read-only; every file is bounded and any unreadable one is skipped.
 */
import { readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, isAbsolute, join, resolve } from "node:path";
import { dirChain } from "./folder-trust.js";
import { isTable, type TomlFile, tomlGet } from "./toml-file.js";

const MANIFESTS = ["plugin.json", ".grok-plugin/plugin.json", ".claude-plugin/plugin.json"];
const MAX_JSON_BYTES = 1024 * 1024;

/** One server as a plugin declares it, with its variables substituted. */
export interface PluginServerSpec {
  readonly plugin: string;
  readonly name: string;
  readonly url: string | null;
  readonly command: string | null;
  readonly args: readonly string[];
  /** A `${VAR}` that could not be substituted is left in: the transport is not known. */
  readonly unresolved: boolean;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function children(dir: string): string[] {
  try {
    return readdirSync(dir)
      .sort()
      .map((n) => join(dir, n))
      .filter(isDir);
  } catch {
    return [];
  }
}

async function readJson(path: string): Promise<unknown> {
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_JSON_BYTES) return undefined;
    return JSON.parse(await readFile(path, "utf8"));
  } catch {
    return undefined;
  }
}

/** `${GROK_PLUGIN_ROOT}` (and the Claude spelling), `${VAR}`, `${VAR:-default}`. */
function substitute(
  text: string,
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): { text: string; unresolved: boolean } {
  let unresolved = false;
  const out = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (all, name, dflt) => {
    if (name === "GROK_PLUGIN_ROOT" || name === "CLAUDE_PLUGIN_ROOT") return root;
    if (name === "GROK_PLUGIN_DATA" || name === "CLAUDE_PLUGIN_DATA") return join(root, ".data");
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (typeof dflt === "string") return dflt;
    unresolved = true;
    return all;
  });
  return { text: out, unresolved };
}

function serversOf(
  doc: unknown,
  plugin: string,
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): PluginServerSpec[] {
  const wrapped = tomlGet(doc, "mcpServers");
  const table = isTable(wrapped) ? wrapped : doc;
  if (!isTable(table)) return [];
  const out: PluginServerSpec[] = [];
  for (const [name, raw] of Object.entries(table)) {
    if (!isTable(raw)) continue;
    let unresolved = false;
    const sub = (v: unknown): string | null => {
      if (typeof v !== "string") return null;
      const s = substitute(v, root, env);
      unresolved ||= s.unresolved;
      return s.text;
    };
    const url = sub(raw.url);
    const command = sub(raw.command);
    const args = Array.isArray(raw.args) ? raw.args.map((a) => sub(a) ?? "") : [];
    out.push({ plugin, name, url, command, args, unresolved });
  }
  return out;
}

/** The plugin at `root`: its name and servers, or null when the root holds no plugin. */
async function readPlugin(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ name: string; servers: PluginServerSpec[] } | null> {
  let manifest: unknown;
  for (const m of MANIFESTS) {
    manifest = await readJson(join(root, m));
    if (manifest !== undefined) break;
  }
  const named = tomlGet(manifest, "name");
  const name = typeof named === "string" && named !== "" ? named : basename(root);
  const servers: PluginServerSpec[] = [];
  const declared = tomlGet(manifest, "mcpServers");
  if (typeof declared === "string") {
    const path = isAbsolute(declared) ? declared : resolve(root, declared);
    servers.push(...serversOf(await readJson(path), name, root, env));
  } else if (isTable(declared)) {
    servers.push(...serversOf(declared, name, root, env));
  }
  servers.push(...serversOf(await readJson(join(root, ".mcp.json")), name, root, env));
  return manifest === undefined && servers.length === 0 ? null : { name, servers };
}

export interface PluginLookup {
  readonly grokHome: string;
  /** The TUI's canonical cwd. */
  readonly cwd: string;
  readonly home: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The profile's config.toml (`[plugins] paths`). */
  readonly config: TomlFile;
}

/** Every plugin's servers, by plugin name (a name found twice keeps every definition). */
export async function findPluginServers(
  lookup: PluginLookup,
): Promise<Map<string, PluginServerSpec[]>> {
  const roots: string[] = [];
  for (const dir of dirChain(lookup.cwd, lookup.home).dirs) {
    roots.push(
      ...children(join(dir, ".grok", "plugins")),
      ...children(join(dir, ".claude", "plugins")),
    );
  }
  roots.push(...children(join(lookup.grokHome, "plugins")));
  if (lookup.home !== null) roots.push(...children(join(lookup.home, ".claude", "plugins")));
  const paths =
    lookup.config.status === "ok" ? tomlGet(lookup.config.table, "plugins", "paths") : [];
  if (Array.isArray(paths)) {
    for (const p of paths) if (typeof p === "string" && isDir(p)) roots.push(p);
  }
  const out = new Map<string, PluginServerSpec[]>();
  for (const root of [...new Set(roots)]) {
    const plugin = await readPlugin(root, lookup.env);
    if (plugin === null) continue;
    out.set(plugin.name, [...(out.get(plugin.name) ?? []), ...plugin.servers]);
  }
  return out;
}
