/**
 * Command-line surface of the `grok` binary (pager/app/cli.rs PagerArgs, bin/main.rs dispatch):
 * `-v/-V/--version`, `version [--json]`, `leader list|info|kill`, `agent [stdio|headless|serve|
 * leader ...]` and the TUI (`[--leader] [--leader-socket P] [-s|--session-id ID] [-r|--resume
 * [ID]] [--load ID] [-c|--continue] [--fork-session] [--cwd D] [PROMPT]`). `--leader-socket` is
 * global (clap `global = true`). `--resume` takes 0 or 1 value (`num_args = 0..=1`,
 * `default_missing_value = ""`: bare = the most recent session of the cwd); `--continue`
 * conflicts with `--resume`/`--load` at parse time (exit 2). Which combinations of these make a
 * valid startup is decided later, as in the real program (tui/startup.ts). Pure: argv in, intent
 * out.
 */

export interface LeaderArgs {
  noExitOnDisconnect: boolean;
  relayOnDemand: boolean;
  noAutoUpdate: boolean;
  wsUrl: string | undefined;
  wsOrigin: string | undefined;
}

export interface TuiArgs {
  leader: boolean;
  noLeader: boolean;
  sessionId: string | undefined;
  /** `-r/--resume [ID]`: undefined when absent, "" when given without a value. */
  resume: string | undefined;
  /** The hidden `--load ID` alias of `--resume ID`. */
  load: string | undefined;
  continueLast: boolean;
  forkSession: boolean;
  cwd: string | undefined;
  prompt: string | undefined;
  /** `--no-auto-update`: the TUI's own startup check only (its leader is spawned without it). */
  noAutoUpdate: boolean;
  /** `--sandbox <PROFILE>` (SandboxStartup; a confining profile turns leader mode off). */
  sandbox: string | undefined;
  /** `--minimal` / `--fullscreen` (screen mode; /minimal and /fullscreen re-exec with them). */
  minimal: boolean;
  fullscreen: boolean;
  /** `--trust`: persist trust for the cwd's workspace before startup. */
  trust: boolean;
  /** `--rules <TEXT>` (alias `--append-system-prompt`): initialize `_meta.rules`. */
  rules: string | undefined;
}

const RESUME_ARG = "--resume [<SESSION_ID_OR_TITLE>]";
const LOAD_ARG = "--load <SESSION_ID>";
const CONTINUE_ARG = "--continue";

export type Intent =
  | { kind: "version" }
  | { kind: "version_cmd"; json: boolean }
  | { kind: "update"; trigger: string | undefined }
  | { kind: "leader_list"; json: boolean }
  | { kind: "leader_info"; json: boolean; pid: number | undefined }
  | { kind: "leader_kill" }
  | { kind: "agent_leader"; args: LeaderArgs }
  | { kind: "agent_refused"; mode: string }
  | { kind: "tui"; args: TuiArgs }
  | { kind: "imposter"; socketPath: string; leaderPid: number }
  | { kind: "usage_error"; message: string }
  | { kind: "runtime_error"; message: string };

export interface ParsedCli {
  intent: Intent;
  leaderSocket: string | undefined;
}

const USAGE = "Usage: grok [OPTIONS] [PROMPT] [COMMAND]\n\nFor more information, try '--help'.";

export function usageError(detail: string): Intent {
  return { kind: "usage_error", message: `error: ${detail}\n\n${USAGE}\n` };
}

export function parseCli(argv: readonly string[]): ParsedCli {
  const args = [...argv];
  let leaderSocket: string | undefined;
  // Global flag: take it out wherever it appears (clap `global = true`).
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    if (a === "--leader-socket") {
      const value = args[i + 1];
      if (value === undefined) {
        return {
          intent: usageError(
            "a value is required for '--leader-socket <PATH>' but none was supplied",
          ),
          leaderSocket,
        };
      }
      leaderSocket = value;
      args.splice(i, 2);
      i--;
    } else if (a.startsWith("--leader-socket=")) {
      leaderSocket = a.slice("--leader-socket=".length);
      args.splice(i, 1);
      i--;
    }
  }
  if (args[0] === "__sim-imposter") {
    return {
      intent: { kind: "imposter", socketPath: args[1] ?? "", leaderPid: Number(args[2] ?? "0") },
      leaderSocket,
    };
  }
  const tui: TuiArgs = {
    leader: false,
    noLeader: false,
    sessionId: undefined,
    resume: undefined,
    load: undefined,
    continueLast: false,
    forkSession: false,
    cwd: undefined,
    prompt: undefined,
    noAutoUpdate: false,
    sandbox: undefined,
    minimal: false,
    fullscreen: false,
    trust: false,
    rules: undefined,
  };
  let version = false;
  // Order of appearance of the mutually exclusive resume selectors, for clap's conflict error.
  const selectors: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    const next = (): string | undefined => {
      const v = args[i + 1];
      i++;
      return v;
    };
    if (a === "-v" || a === "-V" || a === "--version") version = true;
    else if (a === "--leader") tui.leader = true;
    else if (a === "--no-leader") tui.noLeader = true;
    else if (a === "--debug") continue;
    else if (a === "--no-auto-update") tui.noAutoUpdate = true;
    else if (a === "--minimal") tui.minimal = true;
    else if (a === "--fullscreen") tui.fullscreen = true;
    else if (a === "--trust") tui.trust = true;
    else if (a === "--sandbox") {
      const v = next();
      if (v === undefined)
        return {
          intent: usageError("a value is required for '--sandbox <PROFILE>'"),
          leaderSocket,
        };
      tui.sandbox = v;
    } else if (a.startsWith("--sandbox=")) tui.sandbox = a.slice("--sandbox=".length);
    else if (a === "-s" || a === "--session-id") {
      const v = next();
      if (v === undefined)
        return { intent: usageError(`a value is required for '${a} <SESSION_ID>'`), leaderSocket };
      tui.sessionId = v;
    } else if (a.startsWith("--session-id=")) tui.sessionId = a.slice(13);
    else if (a === "-r" || a === "--resume") {
      // num_args = 0..=1: the next token is the value unless it looks like a flag.
      const v = args[i + 1];
      if (v !== undefined && !v.startsWith("-")) {
        tui.resume = v;
        i++;
      } else tui.resume = "";
      selectors.push(RESUME_ARG);
    } else if (a.startsWith("--resume=")) {
      tui.resume = a.slice("--resume=".length);
      selectors.push(RESUME_ARG);
    } else if (a === "--load") {
      const v = next();
      if (v === undefined)
        return { intent: usageError(`a value is required for '${LOAD_ARG}'`), leaderSocket };
      tui.load = v;
      selectors.push(LOAD_ARG);
    } else if (a.startsWith("--load=")) {
      tui.load = a.slice("--load=".length);
      selectors.push(LOAD_ARG);
    } else if (a === "-c" || a === "--continue") {
      tui.continueLast = true;
      selectors.push(CONTINUE_ARG);
    } else if (a === "--fork-session") tui.forkSession = true;
    else if (a === "--cwd") {
      const v = next();
      if (v === undefined)
        return { intent: usageError("a value is required for '--cwd <CWD>'"), leaderSocket };
      tui.cwd = v;
    } else if (a.startsWith("--cwd=")) tui.cwd = a.slice(6);
    else if (a === "--rules" || a === "--append-system-prompt") {
      // No `allow_hyphen_values` on this arg (pager app/cli.rs): clap takes a next token that
      // starts with `-` for a flag, so such a value must be passed as `--rules=<value>`.
      const v = next();
      if (v === undefined || (v.startsWith("-") && v !== "-"))
        return {
          intent: usageError("a value is required for '--rules <RULES>' but none was supplied"),
          leaderSocket,
        };
      tui.rules = v;
    } else if (a.startsWith("--rules=")) tui.rules = a.slice("--rules=".length);
    else if (a.startsWith("--append-system-prompt="))
      tui.rules = a.slice("--append-system-prompt=".length);
    else if (
      !a.startsWith("-") &&
      (a === "version" || a === "agent" || a === "leader" || a === "update")
    ) {
      if (version) return { intent: { kind: "version" }, leaderSocket };
      return { intent: subcommand(a, args.slice(i + 1), tui), leaderSocket };
    } else if (a.startsWith("-")) {
      return { intent: usageError(`unexpected argument '${a}' found`), leaderSocket };
    } else if (tui.prompt === undefined) tui.prompt = a;
    else return { intent: usageError(`unexpected argument '${a}' found`), leaderSocket };
  }
  if (tui.minimal && tui.fullscreen) {
    return {
      intent: usageError("the argument '--minimal' cannot be used with '--fullscreen'"),
      leaderSocket,
    };
  }
  if (tui.leader && tui.noLeader) {
    return {
      intent: usageError("the argument '--leader' cannot be used with '--no-leader'"),
      leaderSocket,
    };
  }
  if (version) return { intent: { kind: "version" }, leaderSocket };
  // `--continue` conflicts_with_all `--resume`/`--load` (clap, before anything runs).
  const resumeAt = selectors.findIndex((s) => s !== CONTINUE_ARG);
  if (tui.continueLast && resumeAt >= 0) {
    const continueAt = selectors.indexOf(CONTINUE_ARG);
    const [first, other] =
      continueAt < resumeAt
        ? [CONTINUE_ARG, selectors[resumeAt]]
        : [selectors[resumeAt], CONTINUE_ARG];
    return {
      intent: usageError(`the argument '${first}' cannot be used with '${other}'`),
      leaderSocket,
    };
  }
  return { intent: { kind: "tui", args: tui }, leaderSocket };
}

function subcommand(name: string, rest: string[], top: TuiArgs): Intent {
  if (name === "version") {
    const extra = rest.filter((a) => a !== "--json");
    if (extra.length > 0) return usageError(`unexpected argument '${extra[0]}' found`);
    return { kind: "version_cmd", json: rest.includes("--json") };
  }
  if (name === "leader") return leaderMgmt(rest);
  if (name === "update") return updateCmd(rest);
  // `agent`: a top-level --leader/--no-leader is rejected (bin/main.rs async_main).
  if (top.leader || top.noLeader) {
    const flag = top.leader ? "--leader" : "--no-leader";
    return {
      kind: "runtime_error",
      message: `Error: top-level ${flag} applies to the pager TUI, not the agent subcommand. Use \`grok-pager agent ${flag}\` instead.\n`,
    };
  }
  const modeIdx = rest.findIndex((a) => !a.startsWith("-"));
  const mode = modeIdx < 0 ? undefined : rest[modeIdx];
  if (mode === "leader") return agentLeader(rest.slice(modeIdx + 1));
  return { kind: "agent_refused", mode: mode ?? "stdio" };
}

/** `grok update [--trigger=T] [--auto]`; the other update flags are not simulated. */
function updateCmd(rest: string[]): Intent {
  let trigger: string | undefined;
  for (const a of rest) {
    if (a.startsWith("--trigger=")) trigger = a.slice("--trigger=".length);
    else if (a === "--auto") trigger ??= "auto_background";
    else return usageError(`unexpected argument '${a}' found`);
  }
  return { kind: "update", trigger };
}

function leaderMgmt(rest: string[]): Intent {
  const [cmd, ...flags] = rest;
  const json = flags.includes("--json");
  if (cmd === "list") return { kind: "leader_list", json };
  if (cmd === "kill") return { kind: "leader_kill" };
  if (cmd === "info") {
    const at = flags.indexOf("--pid");
    const pid = at >= 0 ? Number(flags[at + 1]) : undefined;
    if (pid !== undefined && !Number.isInteger(pid))
      return usageError("invalid value for '--pid <PID>'");
    return { kind: "leader_info", json, pid };
  }
  return usageError(`unrecognized subcommand '${cmd ?? ""}'`);
}

function agentLeader(rest: string[]): Intent {
  const args: LeaderArgs = {
    noExitOnDisconnect: false,
    relayOnDemand: false,
    noAutoUpdate: false,
    wsUrl: undefined,
    wsOrigin: undefined,
  };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--no-exit-on-disconnect") args.noExitOnDisconnect = true;
    else if (a === "--relay-on-demand") args.relayOnDemand = true;
    else if (a === "--no-auto-update") args.noAutoUpdate = true;
    else if (a === "--grok-ws-url") args.wsUrl = rest[++i];
    else if (a === "--grok-ws-origin") args.wsOrigin = rest[++i];
    else return usageError(`unexpected argument '${a ?? ""}' found`);
  }
  return { kind: "agent_leader", args };
}
