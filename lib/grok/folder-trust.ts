/**
 * Will the TUI ask the owner "do you trust this folder?" before it creates its session? The same
 * rules as the real gate (`xai-grok-workspace/src/folder_trust.rs` `decide`,
 * `collect_repo_config_kinds`, `feature_enabled`; `trust.rs` `TrustStore::is_trusted`,
 * `workspace_key`, `is_unsafe_trust_root`; the pager asks whenever its stdin is a terminal, which
 * a pane's is): the feature is on unless `GROK_FOLDER_TRUST` or `[folder_trust] enabled` turns it
 * off; a workspace the store trusts (itself or the nearest recorded ancestor) or an over-broad
 * one ($HOME, `/`) is trusted; otherwise the question comes whenever the workspace holds
 * repo-local configuration that can run code. A prediction for the owner, read-only: the seat
 * never answers the question. docs/design/decisions.md §12.2.
 */
import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { failureOf } from "../errors.js";
import { isTable, readTomlFile, type TomlFile, tomlGet } from "./toml-file.js";

export const TRUST_FILE = "trusted_folders.toml";

export type FolderTrustWhy =
  | "feature_off"
  | "store"
  | "unsafe_root"
  | "no_repo_config"
  | "repo_config";

export interface FolderTrustPrediction {
  /** `prompt`: the TUI will ask the owner before it creates its session. */
  readonly outcome: "prompt" | "trusted";
  readonly why: FolderTrustWhy;
  /** The workspace key the question and the store are about. */
  readonly workspace: string;
  /** The repo-local configuration kinds found (`repo_config_kinds` order), when looked for. */
  readonly kinds: readonly string[];
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function look(path: string, follow: boolean): Stats | "absent" | "uncertain" {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch (err) {
    const code = failureOf(err)?.code;
    return code === "ENOENT" || code === "ENOTDIR" ? "absent" : "uncertain";
  }
}

function isFile(path: string): boolean {
  const st = look(path, true);
  return typeof st === "object" && st.isFile();
}

/** `directory_present_or_uncertain`: a directory, or a look that failed otherwise than absent. */
function dirPresentOrUncertain(path: string): boolean {
  const st = look(path, true);
  return st === "uncertain" || (typeof st === "object" && st.isDirectory());
}

/** `path_present_or_uncertain` (symlink_metadata: anything at all, a dangling link too). */
function presentOrUncertain(path: string): boolean {
  return look(path, false) !== "absent";
}

/** `is_home_dir`. */
function isHome(path: string, home: string | null): boolean {
  return home !== null && canonical(path) === canonical(home);
}

/** `is_unsafe_trust_root`: not absolute, the filesystem root, or the home directory. */
export function isUnsafeTrustRoot(key: string, home: string | null): boolean {
  return !isAbsolute(key) || dirname(key) === key || isHome(key, home);
}

/** git2's discover, reduced: the nearest ancestor with a `.git` entry. */
function gitRoot(cwd: string): string | null {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (look(join(dir, ".git"), true) !== "absent") return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** `workspace_key`: the canonical git work-tree root, else the cwd; never an over-broad root. */
export function workspaceKey(cwd: string, home: string | null): string {
  const root = gitRoot(cwd);
  const key = canonical(root ?? cwd);
  return isUnsafeTrustRoot(key, home) ? canonical(cwd) : key;
}

/**
 * `RepoDirChain` (xai-grok-agent/src/repo.rs): the git root (never $HOME) and the directories from
 * the cwd up to it; outside a repo just the cwd. Folder trust and plugin discovery share it.
 */
export function dirChain(
  cwd: string,
  home: string | null,
): { root: string | null; dirs: string[] } {
  let root = gitRoot(cwd);
  if (root !== null && isHome(root, home)) root = null;
  if (root === null) return { root: null, dirs: [cwd] };
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  return { root, dirs };
}

/** Rust `Path::starts_with`: whole components. */
function startsWithPath(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
}

/** `TrustStore::is_trusted`: the longest recorded ancestor decides; a tie must agree. */
export function storeTrusts(store: TomlFile | null, key: string, home: string | null): boolean {
  if (store === null || store.status !== "ok") return false;
  const folders = tomlGet(store.table, "folders");
  if (!isTable(folders)) return false;
  const k = canonical(key);
  let best = -1;
  let trusted = false;
  for (const [folder, rec] of Object.entries(folders)) {
    const t = tomlGet(rec, "trusted");
    if (typeof t !== "boolean" || isUnsafeTrustRoot(folder, home)) continue;
    if (!startsWithPath(k, folder)) continue;
    const depth = folder.split("/").filter((c) => c !== "").length;
    if (depth < best) continue;
    if (depth === best) trusted &&= t;
    else {
      best = depth;
      trusted = t;
    }
  }
  return trusted;
}

function envBool(value: string | undefined): boolean | undefined {
  switch ((value ?? "").trim().toLowerCase()) {
    case "1":
    case "true":
    case "yes":
    case "on":
    case "enabled":
      return true;
    case "0":
    case "false":
    case "no":
    case "off":
    case "disabled":
      return false;
    default:
      return undefined;
  }
}

/** `feature_enabled` for a release build: GROK_FOLDER_TRUST > `[folder_trust] enabled` > on. */
export function folderTrustEnabled(
  env: Readonly<Record<string, string | undefined>>,
  config: TomlFile,
): boolean {
  const fromEnv = envBool(env.GROK_FOLDER_TRUST);
  if (fromEnv !== undefined) return fromEnv;
  const fromConfig =
    config.status === "ok" ? tomlGet(config.table, "folder_trust", "enabled") : undefined;
  return typeof fromConfig === "boolean" ? fromConfig : true;
}

/** `config_toml_permission_contributes`. */
function permissionContributes(value: unknown): boolean {
  if (!isTable(value)) return true;
  for (const k of ["deny", "allow", "ask", "rules"]) {
    const a = value[k];
    if (Array.isArray(a) && a.length > 0) return true;
  }
  return false;
}

/** `~/.claude.json` `projects.<cwd>.mcpServers` is a non-empty object. */
async function claudeProjectMcp(cwd: string, home: string | null): Promise<boolean> {
  if (home === null) return false;
  try {
    const doc: unknown = JSON.parse(await readFile(join(home, ".claude.json"), "utf8"));
    const servers = tomlGet(doc, "projects", cwd, "mcpServers");
    return isTable(servers) && Object.keys(servers).length > 0;
  } catch {
    return false;
  }
}

/**
 * `collect_repo_config_kinds`: the repo-local configuration of `cwd` that can run code, in the
 * real scan order (`mcp`, `plugins`, `permission`, `lsp`, `envrc`, `claude`, `hooks`, `agents`,
 * `roles`, `personas`, `workflows`), each kind once.
 */
export async function repoConfigKinds(
  cwd: string,
  home: string | null,
  userConfigPath: string | null,
): Promise<string[]> {
  const { root, dirs } = dirChain(cwd, home);
  const kinds: string[] = [];
  const hit = (k: string): void => {
    if (!kinds.includes(k)) kinds.push(k);
  };
  if (dirs.some((d) => isFile(join(d, ".mcp.json")))) hit("mcp");
  const userConfig = userConfigPath === null ? null : canonical(userConfigPath);
  for (const dir of [...dirs].reverse()) {
    const path = join(dir, ".grok", "config.toml");
    if (!isFile(path) || canonical(path) === userConfig) continue;
    const file = await readTomlFile(path);
    if (file.status !== "ok") continue;
    const servers = tomlGet(file.table, "mcp_servers");
    if (isTable(servers) && Object.keys(servers).length > 0) hit("mcp");
    const paths = tomlGet(file.table, "plugins", "paths");
    if (Array.isArray(paths) && paths.length > 0) hit("plugins");
    const permission = tomlGet(file.table, "permission");
    if (permission !== undefined && permissionContributes(permission)) hit("permission");
  }
  if (isFile(join(cwd, ".grok", "lsp.json"))) hit("lsp");
  if (isFile(join(cwd, ".cursor", "mcp.json"))) hit("mcp");
  if (isFile(join(cwd, ".envrc"))) hit("envrc");
  // `project_claude_settings_present`: `.claude/settings(.local).json` from the cwd up to the root.
  if (
    dirs.some(
      (d) =>
        isFile(join(d, ".claude", "settings.json")) ||
        isFile(join(d, ".claude", "settings.local.json")),
    )
  ) {
    hit("claude");
  }
  const hookRoot = root ?? cwd;
  if (
    presentOrUncertain(join(hookRoot, ".grok", "hooks")) ||
    isFile(join(hookRoot, ".cursor", "hooks.json"))
  ) {
    hit("hooks");
  }
  const along = (subdirs: readonly string[]): boolean =>
    dirs.some((d) => subdirs.some((s) => dirPresentOrUncertain(join(d, s))));
  if (along([".grok/plugins", ".claude/plugins"])) hit("plugins");
  if (along([".grok/agents", ".claude/agents"])) hit("agents");
  if (dirPresentOrUncertain(join(cwd, ".grok", "roles"))) hit("roles");
  if (dirPresentOrUncertain(join(cwd, ".grok", "personas"))) hit("personas");
  if (dirPresentOrUncertain(join(hookRoot, ".grok", "workflows"))) hit("workflows");
  if (await claudeProjectMcp(cwd, home)) hit("mcp");
  return kinds;
}

export interface FolderTrustInput {
  /** The TUI's canonical cwd. */
  readonly cwd: string;
  /** The home directory the TUI will see (HOME), or null. */
  readonly home: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The profile's config.toml. */
  readonly config: TomlFile;
  /** The profile's `trusted_folders.toml`; null for an empty store. */
  readonly store: TomlFile | null;
  /** The profile's config.toml path (never read as a project config). */
  readonly userConfigPath: string | null;
}

/** `decide`, for a TUI on a terminal. */
export async function predictFolderTrust(input: FolderTrustInput): Promise<FolderTrustPrediction> {
  const workspace = workspaceKey(input.cwd, input.home);
  const trusted = (why: FolderTrustWhy): FolderTrustPrediction => ({
    outcome: "trusted",
    why,
    workspace,
    kinds: [],
  });
  if (!folderTrustEnabled(input.env, input.config)) return trusted("feature_off");
  if (storeTrusts(input.store, workspace, input.home)) return trusted("store");
  if (isUnsafeTrustRoot(workspace, input.home)) return trusted("unsafe_root");
  const kinds = await repoConfigKinds(input.cwd, input.home, input.userConfigPath);
  if (kinds.length === 0) return trusted("no_repo_config");
  return { outcome: "prompt", why: "repo_config", workspace, kinds };
}
