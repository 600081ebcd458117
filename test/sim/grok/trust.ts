/**
 * Folder trust as the real TUI decides it before any session exists (xai-grok-workspace
 * folder_trust.rs `decide`, `repo_config_kinds`; trust.rs `TrustStore`, `workspace_key`; pager
 * app/event_loop.rs `seed_trust_state`). The simulator is a release-stamped build, so the feature
 * is on unless `GROK_FOLDER_TRUST` (env_bool) or `[folder_trust] enabled` says otherwise.
 *
 * Precedence: feature off → trusted; the store trusts the workspace key (itself or an ancestor;
 * the longest recorded prefix wins) → trusted; the key is an over-broad root ($HOME, `/`) →
 * trusted; no repo-local code-exec config → trusted; stdin is a TTY → the question; else
 * untrusted (no question).
 *
 * The workspace key is the canonical git work-tree root of the cwd (a `.git` found walking up,
 * not the home directory), else the canonical cwd. The store is `$GROK_HOME/trusted_folders.toml`
 * (`[folders."<key>"]` with `trusted` and `decided_at`), written owner-only by temp + rename under
 * an flock on `trusted_folders.toml.lock`.
 */
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { envBool, grokHome } from "./env.js";
import { lockExclusive, unlock } from "./flock.js";
import { canonical, gitRoot, isFile } from "./fs.js";
import { field, isRecord, parseJson } from "./json.js";
import { folderTrustConfig } from "./settings.js";
import { parseToml } from "./toml.js";

export const TRUST_FILE_NAME = "trusted_folders.toml";

function home(): string | undefined {
  try {
    return canonical(homedir());
  } catch {
    return undefined;
  }
}

function isHomeDir(path: string): boolean {
  const h = home();
  return h !== undefined && canonical(path) === h;
}

/** is_unsafe_trust_root: not absolute, the filesystem root, or the home directory. */
export function isUnsafeTrustRoot(key: string): boolean {
  return !isAbsolute(key) || dirname(key) === key || isHomeDir(key);
}

/** workspace_key: the canonical git root, else the canonical cwd; never an unsafe root. */
export function workspaceKey(cwd: string): string {
  const root = gitRoot(cwd);
  const key = canonical(root ?? cwd);
  return isUnsafeTrustRoot(key) ? canonical(cwd) : key;
}

/** Rust Path::starts_with: whole components. */
function pathStartsWith(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
}

function storePath(): string {
  return join(grokHome(), TRUST_FILE_NAME);
}

interface Folder {
  trusted: boolean;
  decided_at: number | undefined;
}

function readFolders(): Map<string, Folder> {
  const out = new Map<string, Folder>();
  let root: unknown;
  try {
    root = parseToml(readFileSync(storePath(), "utf8"));
  } catch {
    return out;
  }
  const folders = field(root, "folders");
  if (!isRecord(folders)) return out;
  for (const [k, v] of Object.entries(folders)) {
    if (!isRecord(v) || typeof v.trusted !== "boolean") continue;
    out.set(k, {
      trusted: v.trusted,
      decided_at: typeof v.decided_at === "number" ? v.decided_at : undefined,
    });
  }
  return out;
}

/** TrustStore::is_trusted: the longest recorded ancestor decides; a tie must agree on trust. */
export function storeTrusts(key: string): boolean {
  const k = canonical(key);
  let best = -1;
  let trusted = false;
  for (const [folder, rec] of readFolders()) {
    if (isUnsafeTrustRoot(folder) || !pathStartsWith(k, folder)) continue;
    const depth = folder.split("/").filter((c) => c !== "").length;
    if (depth < best) continue;
    if (depth === best) trusted &&= rec.trusted;
    else {
      best = depth;
      trusted = rec.trusted;
    }
  }
  return trusted;
}

function renderStore(folders: Map<string, Folder>): string {
  const parts: string[] = [];
  for (const key of [...folders.keys()].sort()) {
    const f = folders.get(key);
    if (f === undefined) continue;
    const lines = [`[folders.${JSON.stringify(key)}]`, `trusted = ${f.trusted}`];
    if (f.decided_at !== undefined) lines.push(`decided_at = ${f.decided_at}`);
    parts.push(lines.join("\n"));
  }
  return parts.length === 0 ? "" : `${parts.join("\n\n")}\n`;
}

/** TrustStore::set_trusted / set_untrusted: locked read-modify-write, 0600, temp + rename. */
export function recordTrust(key: string, trusted: boolean): void {
  const k = canonical(key);
  if (isUnsafeTrustRoot(k)) return;
  mkdirSync(grokHome(), { recursive: true });
  const fd = openSync(`${storePath()}.lock`, constants.O_RDWR | constants.O_CREAT, 0o600);
  try {
    lockExclusive(fd, false);
    const folders = readFolders();
    folders.set(k, { trusted, decided_at: Math.floor(Date.now() / 1000) });
    const tmp = `${storePath()}.tmp-${process.pid}`;
    writeFileSync(tmp, renderStore(folders), { mode: 0o600 });
    renameSync(tmp, storePath());
    unlock(fd);
  } finally {
    closeSync(fd);
  }
}

/** feature_enabled for a release build: GROK_FOLDER_TRUST > `[folder_trust] enabled` > on. */
export function folderTrustEnabled(): boolean {
  return envBool("GROK_FOLDER_TRUST") ?? folderTrustConfig() ?? true;
}

/** A directory, or a path whose kind cannot be read (only a missing path is no directory). */
function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch (err) {
    return !(err instanceof Error && "code" in err && err.code === "ENOENT");
  }
}

function present(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch (err) {
    return !(err instanceof Error && "code" in err && err.code === "ENOENT");
  }
}

/** RepoDirChain: the git root (not $HOME) and the dirs from cwd up to it; [cwd] outside a repo. */
function repoDirChain(cwd: string): { gitRoot: string | undefined; dirs: string[] } {
  let root = gitRoot(cwd);
  if (root !== undefined && isHomeDir(root)) root = undefined;
  if (root === undefined) return { gitRoot: undefined, dirs: [cwd] };
  const dirs: string[] = [];
  const stop = canonical(root);
  let dir = cwd;
  for (;;) {
    dirs.push(dir);
    if (canonical(dir) === stop) break;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return { gitRoot: root, dirs };
}

function permissionContributes(value: unknown): boolean {
  if (!isRecord(value)) return true;
  for (const k of ["deny", "allow", "ask"]) {
    const a = value[k];
    if (Array.isArray(a) && a.length > 0) return true;
  }
  return Array.isArray(value.rules) && value.rules.length > 0;
}

/** collect_project_claude_paths: `.claude/settings(.local).json` from cwd up to the `.git` root. */
function claudeSettingsPresent(cwd: string): boolean {
  let root = gitRoot(cwd);
  if (root !== undefined && isHomeDir(root)) root = undefined;
  const stop = root ?? cwd;
  let dir = cwd;
  for (;;) {
    const claude = join(dir, ".claude");
    if (isFile(join(claude, "settings.local.json")) || isFile(join(claude, "settings.json"))) {
      return true;
    }
    if (dir === stop) return false;
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

/** `~/.claude.json` `projects.<cwd>.mcpServers` is a non-empty object. */
function claudeProjectMcpPresent(cwd: string): boolean {
  const h = home();
  if (h === undefined) return false;
  try {
    const doc = parseJson(readFileSync(join(h, ".claude.json"), "utf8"));
    const servers = field(field(field(doc, "projects"), cwd), "mcpServers");
    return isRecord(servers) && Object.keys(servers).length > 0;
  } catch {
    return false;
  }
}

/**
 * repo_config_kinds: the repo-local configuration that can run code, in the real scan order
 * (`mcp`, `plugins`, `permission`, `lsp`, `envrc`, `claude`, `hooks`, `agents`, `roles`,
 * `personas`, `workflows`), deduplicated.
 */
export function repoConfigKinds(cwd: string): string[] {
  const chain = repoDirChain(cwd);
  const kinds: string[] = [];
  const hit = (k: string): void => {
    if (!kinds.includes(k)) kinds.push(k);
  };
  if (chain.dirs.some((d) => isFile(join(d, ".mcp.json")))) hit("mcp");
  const userConfig = canonical(join(grokHome(), "config.toml"));
  for (const dir of [...chain.dirs].reverse()) {
    const path = join(dir, ".grok", "config.toml");
    if (!isFile(path) || canonical(path) === userConfig) continue;
    let root: unknown;
    try {
      root = parseToml(readFileSync(path, "utf8"));
    } catch {
      continue;
    }
    const servers = field(root, "mcp_servers");
    if (isRecord(servers) && Object.keys(servers).length > 0) hit("mcp");
    const paths = field(field(root, "plugins"), "paths");
    if (Array.isArray(paths) && paths.length > 0) hit("plugins");
    const permission = field(root, "permission");
    if (permission !== undefined && permissionContributes(permission)) hit("permission");
  }
  if (isFile(join(cwd, ".grok", "lsp.json"))) hit("lsp");
  if (isFile(join(cwd, ".cursor", "mcp.json"))) hit("mcp");
  if (isFile(join(cwd, ".envrc"))) hit("envrc");
  if (claudeSettingsPresent(cwd)) hit("claude");
  const hookRoot = chain.gitRoot ?? cwd;
  if (
    present(join(hookRoot, ".grok", "hooks")) ||
    isFile(join(hookRoot, ".cursor", "hooks.json"))
  ) {
    hit("hooks");
  }
  const subdirs = (names: string[]): boolean =>
    chain.dirs.some((d) => names.some((n) => isDir(join(d, n)) && existsSync(join(d, n))));
  if (subdirs([".grok/plugins", ".claude/plugins"])) hit("plugins");
  if (subdirs([".grok/agents", ".claude/agents"])) hit("agents");
  const grok = join(cwd, ".grok");
  if (isDir(join(grok, "roles"))) hit("roles");
  if (isDir(join(grok, "personas"))) hit("personas");
  if (isDir(join(hookRoot, ".grok", "workflows"))) hit("workflows");
  if (claudeProjectMcpPresent(cwd)) hit("mcp");
  return kinds;
}

export type TrustDecision =
  | { outcome: "trusted"; why: "feature_off" | "store" | "unsafe_root" | "no_repo_config" }
  | { outcome: "prompt"; workspace: string; kinds: string[] }
  | { outcome: "untrusted"; kinds: string[] };

/** decide(), with the pager's stdin-only interactivity. */
export function decideTrust(cwd: string, interactive: boolean): TrustDecision {
  if (!folderTrustEnabled()) return { outcome: "trusted", why: "feature_off" };
  const key = workspaceKey(cwd);
  if (storeTrusts(key)) return { outcome: "trusted", why: "store" };
  if (isUnsafeTrustRoot(key)) return { outcome: "trusted", why: "unsafe_root" };
  const kinds = repoConfigKinds(cwd);
  if (kinds.length === 0) return { outcome: "trusted", why: "no_repo_config" };
  if (interactive) return { outcome: "prompt", workspace: key, kinds };
  return { outcome: "untrusted", kinds };
}
