/**
 * `/minimal` and `/fullscreen` (pager app/screen_mode_relaunch.rs): the TUI unregisters its
 * active session, quits its event loop, restores the terminal and replaces its own process image
 * with `current_exe()` and a rebuilt argv (`build_screen_mode_relaunch_args`): the old arguments
 * minus argv[0], minus `--minimal`/`--fullscreen`/`--continue`/`-c`/`--fork-session`/
 * `--restore-code`, minus `--resume`/`-r`/`--load`/`--session-id`/`-s`/`--worktree`/`-w`/
 * `--worktree-ref`/`--ref` and their value, minus everything after `--` and the positional
 * prompt, plus `--resume <id>` and `--minimal` or `--fullscreen`; `GROK_SCREEN_MODE` in the
 * environment forces the mode once. Same pid, same pty, same children (the leader it spawned is
 * still its child). The new image reconnects, replays with `session/load` and registers again.
 *
 * Node 20 has no process.execve: the simulator loads a test-only Node-API shim
 * (native/execve.c, built by `npm run build:sim` beside the binary).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { addonFunction } from "../addon.js";
import { selfCommand } from "../self.js";

declare const __GROK_SIM_REPO__: string | undefined;

export const SCREEN_MODE_ENV = "GROK_SCREEN_MODE";

const DROP_FLAGS = new Set([
  "--minimal",
  "--fullscreen",
  "--continue",
  "-c",
  "--fork-session",
  "--restore-code",
]);
const DROP_WITH_VALUE = new Set([
  "--resume",
  "-r",
  "--load",
  "--session-id",
  "-s",
  "--worktree",
  "-w",
  "--worktree-ref",
  "--ref",
]);
const DROP_PREFIXES = [
  "--resume=",
  "--load=",
  "--session-id=",
  "-s=",
  "--worktree=",
  "--worktree-ref=",
  "--ref=",
];
/** The simulator's value-taking TUI flags (clap `takes_values`, aliases too), kept with their value. */
const VALUE_FLAGS = new Set([
  "--leader-socket",
  "--cwd",
  "--sandbox",
  "--rules",
  "--append-system-prompt",
]);

/** build_screen_mode_relaunch_args; `args` excludes argv[0]. */
export function buildRelaunchArgs(
  args: readonly string[],
  sessionId: string,
  minimal: boolean,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    if (a === "--") break;
    if (DROP_FLAGS.has(a)) continue;
    if (DROP_PREFIXES.some((p) => a.startsWith(p))) continue;
    if (DROP_WITH_VALUE.has(a)) {
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith("-")) i++;
      continue;
    }
    if (a.startsWith("-")) {
      out.push(a);
      const next = args[i + 1];
      if (!a.includes("=") && VALUE_FLAGS.has(a) && next !== undefined && !next.startsWith("-")) {
        out.push(next);
        i++;
      }
    }
    // A bare word is the positional prompt: it must not fire again on resume.
  }
  out.push("--resume", sessionId, minimal ? "--minimal" : "--fullscreen");
  return out;
}

/** take_screen_mode_env_override: read once and removed, so children never see it. */
export function takeScreenModeOverride(): "minimal" | "fullscreen" | undefined {
  const v = process.env[SCREEN_MODE_ENV];
  delete process.env[SCREEN_MODE_ENV];
  return v === "minimal" || v === "fullscreen" ? v : undefined;
}

type ExecveFn = (path: string, argv: string[], env: string[]) => never;

function shimPaths(): string[] {
  const explicit = process.env.GROK_SIM_EXECVE_ADDON;
  if (explicit !== undefined && explicit !== "") return [explicit];
  const paths = [join(dirname(process.execPath), "grok-execve.node")];
  const repo = typeof __GROK_SIM_REPO__ === "string" ? __GROK_SIM_REPO__ : undefined;
  if (repo !== undefined) paths.push(join(repo, ".sim-build", "bin", "grok-execve.node"));
  return paths.filter((p) => existsSync(p));
}

function loadExecve(): ExecveFn {
  const fn = addonFunction(shimPaths(), "execve");
  if (fn !== undefined) {
    return (file, argv, env) => {
      fn(file, argv, env);
      throw new Error("execve returned");
    };
  }
  throw new Error("grok simulator: the execve shim is missing (run `npm run build:sim`)");
}

/** exec_screen_mode_relaunch (Unix): never returns on success. */
export function execRelaunch(args: readonly string[], sessionId: string, minimal: boolean): never {
  const self = selfCommand();
  const rebuilt = buildRelaunchArgs(args, sessionId, minimal);
  const env: string[] = [];
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== SCREEN_MODE_ENV) env.push(`${k}=${v}`);
  }
  env.push(`${SCREEN_MODE_ENV}=${minimal ? "minimal" : "fullscreen"}`);
  return loadExecve()(self.file, [self.file, ...self.prefix, ...rebuilt], env);
}
