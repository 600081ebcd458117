// Launching a pane process the way Herdr does (src/pane.rs spawn_argv_command,
// apply_pane_terminal_env, apply_pane_launch_env; src/integration/env.rs apply_pane_base_env;
// vendor/portable-pty/src/cmdbuilder.rs as_command/search_path):
// - env: the server's own environment without CODEX_THREAD_ID, then TERM/COLORTERM, then the
//   caller's `env` sorted by key, then HERDR_ENV, HERDR_SOCKET_PATH, HERDR_BIN_PATH and the pane
//   identity (HERDR_WORKSPACE_ID, HERDR_TAB_ID, HERDR_PANE_ID), which win on conflict;
// - cwd: the requested directory when it is a directory, else $HOME (portable-pty falls back);
// - the executable resolved against the pane env's PATH with portable-pty's error messages.
// tmux cannot exec an argv safely (it splits arguments ending in ';'), so each pane runs
// `/bin/sh <launcher>`; the launcher deletes itself and `exec`s `env -i ... argv`, so the pane's
// pid is the argv command's pid and its environment is exactly the composed one.
import { accessSync, constants, statSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { isAbsolute } from "node:path";

export type PaneIdentity = {
  readonly workspaceId: string;
  readonly tabId: string;
  readonly paneId: string;
};

export type LaunchEnvInput = {
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly extra: ReadonlyArray<readonly [string, string]>;
  readonly socketPath: string;
  readonly binPath: string;
  readonly identity: PaneIdentity;
};

export function composeEnv(input: LaunchEnvInput): Map<string, string> {
  const env = new Map<string, string>();
  for (const [k, v] of Object.entries(input.baseEnv)) if (v !== undefined) env.set(k, v);
  // tmux adds these to every pane; a Herdr pane never has them.
  for (const k of ["TMUX", "TMUX_PANE", "TERM_PROGRAM", "TERM_PROGRAM_VERSION"]) env.delete(k);
  env.set("TERM", "xterm-256color");
  env.set("COLORTERM", "truecolor");
  env.delete("CODEX_THREAD_ID");
  for (const [k, v] of input.extra) env.set(k, v);
  env.set("HERDR_ENV", "1");
  env.set("HERDR_SOCKET_PATH", input.socketPath);
  env.set("HERDR_BIN_PATH", input.binPath);
  env.set("HERDR_WORKSPACE_ID", input.identity.workspaceId);
  env.set("HERDR_TAB_ID", input.identity.tabId);
  env.set("HERDR_PANE_ID", input.identity.paneId);
  return env;
}

/** env::normalize_launch_env: [code, message] on failure, sorted entries on success. */
export function normalizeLaunchEnv(
  env: ReadonlyMap<string, string>,
): { ok: Array<[string, string]> } | { code: string; message: string } {
  const out: Array<[string, string]> = [];
  for (const [key, value] of env) {
    if (key === "") return { code: "invalid_env", message: "env key must not be empty" };
    if (key.includes("="))
      return { code: "invalid_env", message: `env key ${key} must not contain '='` };
    if (key.includes("\0"))
      return { code: "invalid_env", message: "env key must not contain NUL bytes" };
    if (value.includes("\0"))
      return { code: "invalid_env", message: `env value for ${key} must not contain NUL bytes` };
    out.push([key, value]);
  }
  out.sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  return { ok: out };
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function can(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

export function effectiveDir(cwd: string, env: ReadonlyMap<string, string>): string {
  if (isDir(cwd)) return cwd;
  return env.get("HOME") ?? userInfo().homedir ?? "/";
}

/** Rust's Path::join: an absolute right side replaces, nothing is normalized. */
function rustJoin(a: string, b: string): string {
  if (b.startsWith("/")) return b;
  return a.endsWith("/") ? `${a}${b}` : `${a}/${b}`;
}

/** Rust's `{:?}` of an OsStr PATH value. */
function debugQuoted(s: string): string {
  return JSON.stringify(s);
}

/** portable-pty search_path: the executable to exec, or the spawn error text. */
export function resolveExecutable(
  exe: string,
  dir: string,
  env: ReadonlyMap<string, string>,
): { path: string } | { error: string } {
  if (isAbsolute(exe)) {
    if (isDir(exe)) return { error: `Unable to spawn ${exe} because it is a directory` };
    if (can(exe, constants.X_OK)) return { path: exe };
    if (can(exe, constants.F_OK))
      return {
        error: `Unable to spawn ${exe} because it is not executable (EACCES: Permission denied)`,
      };
    return {
      error: `Unable to spawn ${exe} because it doesn't exist on the filesystem (ENOENT: No such file or directory)`,
    };
  }
  if (exe.startsWith("./") || exe.startsWith("../")) {
    const abs = rustJoin(dir, exe);
    if (isDir(abs)) return { error: `Unable to spawn ${abs} because it is a directory` };
    if (can(abs, constants.X_OK)) return { path: abs };
    if (can(abs, constants.F_OK))
      return { error: `Unable to spawn ${abs} because it is not executable` };
    return { error: `Unable to spawn ${abs} because it does not exist` };
  }
  const errors: string[] = [];
  const path = env.get("PATH");
  if (path === undefined) errors.push("Unable to resolve the PATH");
  else {
    for (const entry of path.split(":")) {
      const candidate = rustJoin(rustJoin(dir, entry), exe);
      if (isDir(candidate)) errors.push(`${candidate} exists but is a directory`);
      else if (can(candidate, constants.X_OK)) return { path: candidate };
      else if (can(candidate, constants.F_OK))
        errors.push(`${candidate} exists but is not executable`);
    }
    errors.push(`No viable candidates found in PATH ${debugQuoted(path)}`);
  }
  return { error: `Unable to spawn ${exe} because:\n${errors.join(".\n")}` };
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * Write the launcher for one pane. `argv0` is what the process sees as argv[0]; `execPath`
 * is what `env` execs (the same unless portable-pty's PATH search differs from execvp's).
 */
export function writeLauncher(
  file: string,
  env: ReadonlyMap<string, string>,
  execTarget: string,
  args: readonly string[],
  size: { readonly cols: number; readonly rows: number } | null,
): void {
  const assignments = [...env].map(([k, v]) => shellQuote(`${k}=${v}`)).join(" ");
  const command = [execTarget, ...args].map(shellQuote).join(" ");
  // When the window is not created at Herdr's headless size (tmux.ts, geometry), the pty gets it
  // before the program starts.
  const stty = size === null ? "" : `stty cols ${size.cols} rows ${size.rows} 2>/dev/null\n`;
  const text = `rm -f -- "$0"\n${stty}exec /usr/bin/env -i -- ${assignments} ${command}\n`;
  writeFileSync(file, text, { mode: 0o600 });
}
