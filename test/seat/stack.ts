/**
 * The seat tests' world: a Herdr simulator (real tmux panes), the `grok` simulator binary, a
 * private GROK_HOME and work cwd, a private runtime base for the seats, and the simulator's frame
 * log (GROK_SIM_LOG) as the independent oracle of what reached the leader. `cleanup()` kills
 * every simulator process that ran in this stack's cwd (TUIs, leaders, replacements), stops the
 * Herdr simulator and removes every directory.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as assert from "uvu/assert";
import { socketFacts } from "../../lib/kernel/index.js";
import type { HireOptions } from "../../lib/seat/hire.js";
import type { HireEvent } from "../../lib/seat/hire-events.js";
import { SeatRefusal } from "../../lib/seat/refusal.js";
import { rejectionOf } from "../helpers/error-code.js";
import {
  ensureGrokSim,
  type GrokHomeFixture,
  grokHomeFixture,
  type McpServerFixture,
  pidAlive,
  readSimLog,
  waitFor,
} from "../helpers/grok-sim.js";
import { type HerdrSimHandle, startHerdrSim } from "../helpers/herdr-sim.js";
import type { PartialSwitches } from "../sim/herdr/switches.js";

export const NO_LINEAR: McpServerFixture[] = [
  { name: "docs", url: "https://docs.example/mcp", tools: ["search"] },
];

export interface Stack {
  readonly herdr: HerdrSimHandle;
  readonly home: GrokHomeFixture;
  readonly grok: string;
  readonly cwd: string;
  readonly runtimeBase: string;
  readonly logPath: string;
  readonly events: HireEvent[];
  /** Hire options for this stack (the sim log and `env` merged in). */
  options(extra?: Partial<HireOptions>): HireOptions;
  /** Every JSON line of the simulator's trace log. */
  log(): Record<string, unknown>[];
  /** `session/prompt` frames our client type sent (as the leader read them) + accepted prompts. */
  promptsFromUs(): number;
  /** Frames (any, `register` included) a leader read from a grok-seat client; `pid` is the leader's. */
  framesFromUs(): Record<string, unknown>[];
  /**
   * Resolves once the leader's log shows our `disconnect` frame; rejects after 5 s. The leader is
   * another process that logs a frame when it reads it, so this may trail our close.
   */
  disconnectSeen(): Promise<true>;
  /** Pids of running simulator processes in this stack's cwd. */
  simPids(): number[];
  cleanup(): Promise<void>;
}

/** Processes whose executable is the simulator binary and whose cwd is `cwd` (Linux /proc). */
export function simProcesses(grok: string, cwd: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/exe`) !== grok) continue;
      if (readlinkSync(`/proc/${name}/cwd`) !== cwd) continue;
      out.push(Number(name));
    } catch {
      // gone or not ours
    }
  }
  return out;
}

/**
 * SIGKILL every simulator process of `cwd` (TUIs, leaders, replacements) until none is left, for
 * at most `rounds` sweeps 20 ms apart (a TUI may spawn a leader between two sweeps).
 */
export async function killSimProcesses(grok: string, cwd: string, rounds = 50): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const pids = simProcesses(grok, cwd);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface StackOptions {
  mcpServers?: McpServerFixture[];
  switches?: PartialSwitches;
  herdrVersion?: string;
  env?: Record<string, string>;
  /** More of the GROK_HOME fixture (`extraToml`, `signedIn`, …). */
  home?: Omit<NonNullable<Parameters<typeof grokHomeFixture>[0]>, "mcpServers">;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const grok = realpathSync(await ensureGrokSim());
  const home = grokHomeFixture({ ...opts.home, mcpServers: opts.mcpServers ?? NO_LINEAR });
  const cwd = realpathSync(home.cwd);
  const runtimeBase = mkdtempSync(join(tmpdir(), "seat-rt-"));
  const logPath = join(home.dir, "..", "sim-frames.log");
  const herdr = await startHerdrSim({
    switches: { detectMs: 100, ...opts.switches },
    // The pane's environment is Herdr's own plus what the seat asks for: none of ours may decide
    // how Grok behaves around the session (GROK_DISABLE_AUTOUPDATER above all, which every seat
    // must set itself).
    env: Object.fromEntries(
      Object.keys(process.env)
        .filter((k) => k.startsWith("GROK_") || k.startsWith("npm_"))
        .map((k) => [k, undefined]),
    ),
    ...(opts.herdrVersion === undefined ? {} : { version: opts.herdrVersion }),
  });
  const events: HireEvent[] = [];
  const log = (): Record<string, unknown>[] => readSimLog(logPath);
  // A `register` frame is traced before the leader knows the client type: read it from the frame.
  const framesFromUs = (): Record<string, unknown>[] =>
    log().filter((l) => {
      if (l.event !== "frame_in") return false;
      if (l.client_type === "grok-seat") return true;
      const f = l.frame;
      return (
        typeof f === "object" && f !== null && "client_type" in f && f.client_type === "grok-seat"
      );
    });
  return {
    herdr,
    home,
    grok,
    cwd,
    runtimeBase,
    logPath,
    events,
    options: (extra = {}) => ({
      cwd,
      profile: { kind: "grok-home", grokHome: home.dir },
      grok,
      herdr: { socketPath: herdr.socketPath },
      runtimeBase,
      onProgress: (e) => events.push(e),
      timeouts: { leaderMs: 20_000, activeSessionMs: 15_000, agentMs: 10_000, requestMs: 10_000 },
      ...extra,
      // No GROK_DISABLE_AUTOUPDATER here: the seat sets it itself (issue 13), and a fixture that
      // set it would hide a seat that does not.
      env: {
        GROK_SIM_LOG: logPath,
        ...opts.env,
        ...(extra.env ?? {}),
      },
    }),
    log,
    framesFromUs,
    disconnectSeen: () =>
      waitFor(
        "the leader to log our disconnect frame",
        () => framesFromUs().some((l) => JSON.stringify(l.frame).includes('"disconnect"')),
        5_000,
      ),
    promptsFromUs: () =>
      framesFromUs().filter((l) => JSON.stringify(l.frame ?? "").includes("session/prompt"))
        .length +
      // The TUI never prompts in these tests: every accepted prompt would be ours.
      log().filter((l) => l.event === "prompt").length,
    simPids: () => simProcesses(grok, cwd),
    cleanup: async () => {
      await killSimProcesses(grok, cwd);
      await herdr.stop();
      home.remove();
      rmSync(runtimeBase, { recursive: true, force: true });
    },
  };
}

/** Run `body` against a fresh stack and clean the stack up after it, whatever `body` did. */
export async function withStack(body: (stack: Stack) => Promise<void>): Promise<void>;
export async function withStack(
  opts: StackOptions,
  body: (stack: Stack) => Promise<void>,
): Promise<void>;
export async function withStack(
  a: StackOptions | ((stack: Stack) => Promise<void>),
  b?: (stack: Stack) => Promise<void>,
): Promise<void> {
  const [opts, body] = typeof a === "function" ? [{}, a] : [a, b];
  if (body === undefined) throw new Error("withStack: no body");
  const stack = await startStack(opts);
  try {
    await body(stack);
  } finally {
    await stack.cleanup();
  }
}

/** The pids listening on the unix socket at `path`; none when it is gone or unreadable. */
export function socketListeners(path: string): readonly number[] {
  try {
    return socketFacts(path).listeners;
  } catch {
    return [];
  }
}

/**
 * The next leader listening at a seat's socket once the proven one is gone (the TUI's respawn
 * or replacement), waited for as `what`.
 */
export function nextLeaderAt(
  record: { readonly socketPath: string; readonly leader: { readonly pid: number } },
  what: string,
  timeoutMs: number,
): Promise<number> {
  const proven = record.leader.pid;
  return waitFor(
    what,
    () => socketListeners(record.socketPath).find((p) => p !== proven),
    timeoutMs,
  );
}

/** Frames a grok-seat client sent to a leader process other than `provenPid`. */
export function framesToOthers(stack: Stack, provenPid: number): number {
  return stack.framesFromUs().filter((l) => l.pid !== provenPid).length;
}

/** Wait until `pid` is gone (or a zombie), polling. */
export async function waitDead(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pidAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`pid ${pid} still alive after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A temporary profile holding a copy of the stack's login (the seat's own GROK_HOME). */
export function temporaryProfile(stack: Stack): { kind: "temporary"; loginFile: string } {
  return { kind: "temporary", loginFile: stack.home.authPath };
}

/** The refusal a promise rejected with; anything else (or a resolution) fails the test. */
export const refusalOf = (p: Promise<unknown>): Promise<SeatRefusal> => rejectionOf(p, SeatRefusal);

/** The hire's one `waiting` event; none or several fail the test. */
export function onlyWait(stack: Stack): Extract<HireEvent, { type: "waiting" }> {
  const waits = stack.events.filter((e) => e.type === "waiting");
  assert.is(waits.length, 1);
  const w = waits[0];
  if (w?.type !== "waiting") throw new Error("no waiting event");
  return w;
}

/**
 * `stack.options()` whose progress listener plays the official Grok hook: right after `launch`,
 * it reports the pane's agent session to Herdr with `method` and `fields` (herdr-socket-api §5).
 */
export function optionsWithHookReport(
  stack: Stack,
  method: string,
  fields: Record<string, string> = {},
): HireOptions {
  const options = stack.options();
  let sessionId = "";
  return {
    ...options,
    onProgress: (e: HireEvent) => {
      options.onProgress?.(e);
      if (e.type !== "proven") return;
      const f = e.facts;
      if (typeof f !== "object" || f === null || Array.isArray(f)) return;
      if (e.step === "session_id") sessionId = String(f.sessionId);
      if (e.step === "launch") {
        reportHookSync(stack.herdr.socketPath, method, {
          pane_id: String(f.paneId),
          source: "herdr:grok",
          agent: "grok",
          ...fields,
          agent_session_id: sessionId,
        });
      }
    },
  };
}

/**
 * A Grok hook's report to Herdr (`pane.report_agent_session` / `pane.report_agent`, source
 * `herdr:grok`), sent synchronously from a child process so that it lands before the hire's next
 * step: a progress listener is synchronous, and the hire must not be able to run ahead of it.
 */
export function reportHookSync(socketPath: string, method: string, params: object): void {
  const line = JSON.stringify({ id: `hook-${process.pid}`, method, params });
  const script =
    'const s=require("net").createConnection(process.argv[1]);let b="";' +
    's.on("connect",()=>s.write(process.argv[2]+"\\n"));s.on("data",d=>b+=d);' +
    's.on("close",()=>{if(!b.includes("\\"ok\\""))process.exit(3)});';
  execFileSync(process.execPath, ["-e", script, socketPath, line], { timeout: 10_000 });
}
