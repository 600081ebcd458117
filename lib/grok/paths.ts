/**
 * Where Grok keeps its files (docs/design/grok-leader-protocol.md §1; the real rules are in
 * `xai-grok-home/src/lib.rs` and `leader/lock.rs`):
 * - GROK_HOME is `$GROK_HOME` verbatim when set and non-empty, else `<home>/.grok` with the home
 *   directory canonicalized (`dunce::canonicalize`, falling back to the raw path).
 * - The default socket is `$GROK_HOME/leader.sock` (the production relay adds no suffix).
 * - The lock belonging to a socket is `socket.with_extension("lock")`: Rust's `Path::with_extension`,
 *   so `/x/foo.sock` -> `/x/foo.lock`, `/x/foo` -> `/x/foo.lock`, `/x/a.b.sock` -> `/x/a.b.lock`,
 *   and a dotfile without another dot keeps its name: `/x/.sock` -> `/x/.sock.lock`.
 * - `active_sessions.json` lives directly in GROK_HOME (`xai-grok-active-sessions`).
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/** Pure resolution of GROK_HOME from an environment and an (already canonical) home directory. */
export function resolveGrokHome(env: NodeJS.ProcessEnv, canonicalHome: string): string {
  const fromEnv = env.GROK_HOME;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  return join(canonicalHome, ".grok");
}

/** GROK_HOME for this process (or the given environment), canonicalizing the home as Grok does. */
export function grokHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
  let canonical = home;
  try {
    canonical = realpathSync(home);
  } catch {
    // dunce::canonicalize failing falls back to the raw home, as in grok_home_in.
  }
  return resolveGrokHome(env, canonical);
}

export function defaultLeaderSocketPath(home: string): string {
  return join(home, "leader.sock");
}

export function activeSessionsPath(home: string): string {
  return join(home, "active_sessions.json");
}

/** `Path::with_extension("lock")` on a unix path, exactly as `leader/lock.rs` `lock_path_for_socket`. */
export function lockPathForSocket(socketPath: string): string {
  // Path::components drops trailing separators and non-leading "." components.
  let path = socketPath;
  for (;;) {
    const trimmed = path.replace(/\/+$/, "").replace(/\/\.$/, "");
    if (trimmed === path || trimmed === "") break;
    path = trimmed;
  }
  const slash = path.lastIndexOf("/");
  const dir = path.slice(0, slash + 1);
  const name = path.slice(slash + 1);
  // No file name (root, empty, or ending in ".."): with_extension leaves the path unchanged.
  if (name === "" || name === ".." || name === ".") return socketPath;
  const dot = name.lastIndexOf(".");
  // rsplit_file_at_dot: a name whose only dot is the leading one has no extension.
  const stem = dot <= 0 ? name : name.slice(0, dot);
  return `${dir}${stem}.lock`;
}

/**
 * The canonical path of the grok executable: `explicit` when given, else the first executable
 * `grok` on PATH; null when there is none. Canonical (symlinks resolved) because the kernel reports
 * a process's executable that way (`/proc/<pid>/exe`, `proc_pidpath`).
 */
export function resolveGrokExecutable(
  explicit: string | null = null,
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  const candidates =
    explicit !== null
      ? [explicit]
      : (env.PATH ?? "")
          .split(delimiter)
          .filter((d) => d !== "")
          .map((d) => join(d, "grok"));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (!statSync(c).isFile()) continue;
      return realpathSync(c);
    } catch {
      // not there or not executable: try the next one
    }
  }
  return null;
}

/** The longest directory name `encode_cwd_dirname` writes before it hashes instead. */
export const MAX_CWD_DIRNAME_BYTES = 255;

/**
 * `urlencoding::encode(cwd)`: every byte but ASCII alphanumerics and `-_.~` as `%XX` (upper
 * case), the name of a session's cwd directory under `$GROK_HOME/sessions/`
 * (xai-grok-config `paths.rs` `encode_cwd_dirname`). Null when it is longer than
 * `MAX_CWD_DIRNAME_BYTES`: Grok then names the directory `<slug>-<BLAKE3 prefix>` and writes the
 * cwd into its `.cwd` file, which is how `nativeTranscriptPath` finds it.
 */
export function encodeCwdDirname(cwd: string): string | null {
  let out = "";
  for (const byte of Buffer.from(cwd, "utf8")) {
    const safe =
      (byte >= 0x30 && byte <= 0x39) ||
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      byte === 0x2d ||
      byte === 0x5f ||
      byte === 0x2e ||
      byte === 0x7e;
    out += safe
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out.length <= MAX_CWD_DIRNAME_BYTES ? out : null;
}

/** `$GROK_HOME/sessions` (`session/storage/mod.rs`). */
export function sessionsRoot(home: string): string {
  return join(home, "sessions");
}

/** The name of a session's update log inside its directory (`session/persistence.rs`). */
export const UPDATES_FILE = "updates.jsonl";
