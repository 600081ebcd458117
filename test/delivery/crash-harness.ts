/**
 * The harness shared by the process-crash (T1) and I/O-error (T3) tests: scenario directories,
 * running the bundled workload (optionally under strace), the checks a fresh process makes right
 * after the crash, the finishing run, and the final invariants. Each check throws with the
 * scenario named, so a failure says exactly which crash point broke what.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import { acquireControllerLock } from "../../lib/delivery/admission.js";
import { Journal } from "../../lib/delivery/journal.js";
import { isTerminal } from "../../lib/delivery/receipt.js";
import { type CountingLeader, startCountingLeader } from "../helpers/counting-leader.js";
import { crashPlan } from "../helpers/crash-plan.js";
import { type Bundle, bundleHelper } from "./bundle.js";

/** strace drives the syscall-level injection (docs/design/reliability-plan.md A.3); CI installs it. */
export const STRACE_MISSING: string | null =
  process.platform !== "linux"
    ? `strace fault injection is Linux-only (this is ${process.platform})`
    : spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0
      ? null
      : "strace is not installed (.ci/run installs it)";

/** A test that needs strace: without it, it prints why it is skipped and passes. */
export function straceTest(name: string, body: () => Promise<void>): void {
  test(name, async () => {
    if (STRACE_MISSING !== null) {
      console.log(`SKIP: ${STRACE_MISSING}`);
      return;
    }
    await body();
  });
}

export interface Scenario {
  readonly dir: string;
  readonly seat: string;
  readonly name: string;
}

export function newScenario(name: string): Scenario {
  const dir = mkdtempSync(join(tmpdir(), "grok-seat-crash-"));
  const seat = join(dir, "seat");
  mkdirSync(seat, { mode: 0o700 });
  return { dir, seat, name };
}

export function removeScenario(s: Scenario): void {
  rmSync(s.dir, { recursive: true, force: true });
}

const RUN_TIMEOUT_MS = 30_000;

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lines: readonly string[];
  readonly stderr: string;
}

/** Run `argv` (e.g. strace ... node workload.mjs ...), optionally SIGKILLing it after `killAfterMs`. */
export function run(argv: readonly string[], killAfterMs?: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv;
    // Its own process group: killing strace alone would leave the traced workload running.
    const child = spawn(cmd ?? "false", args, {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString("utf8");
    });
    const timer = killAfterMs === undefined ? undefined : setTimeout(killGroup, killAfterMs);
    // A hung workload is a failure with a name, not a hung test file.
    const guard = setTimeout(() => {
      err += `\n[harness] killed after ${RUN_TIMEOUT_MS} ms without exiting`;
      killGroup();
    }, RUN_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      clearTimeout(guard);
      resolve({ code, signal, lines: out.split("\n").filter((l) => l.length > 0), stderr: err });
    });
  });
}

/**
 * The argv running `workload` under `strace -f` with `flags` (`-c`, `-y`), its output to `out`,
 * `filter` (`-P <path>` …), tracing `trace` and, when given, strace's fault injection `inject`.
 */
export function straced(
  o: {
    flags?: readonly string[];
    out: string;
    filter?: readonly string[];
    trace: readonly string[];
    inject?: string;
  },
  workload: readonly string[],
): string[] {
  return [
    "strace",
    "-f",
    ...(o.flags ?? []),
    "-o",
    o.out,
    ...(o.filter ?? []),
    "-e",
    `trace=${o.trace.join(",")}`,
    ...(o.inject === undefined ? [] : ["-e", `inject=${o.inject}`]),
    ...workload,
  ];
}

/**
 * Run `workload` under `strace -f -c` tracing `types` (and `filter`, e.g. `-P <path>`): its result
 * and the number of calls of each traced syscall, read from strace's summary table.
 */
export async function countSyscalls(
  s: Scenario,
  types: readonly string[],
  filter: readonly string[],
  workload: readonly string[],
): Promise<{ readonly result: RunResult; readonly counts: Map<string, number> }> {
  const countFile = join(s.dir, "strace-count");
  const result = await run(
    straced({ flags: ["-c"], out: countFile, filter, trace: types }, workload),
  );
  const counts = new Map<string, number>();
  if (existsSync(countFile)) {
    for (const line of readFileSync(countFile, "utf8").split("\n")) {
      const f = line.trim().split(/\s+/);
      const name = f[f.length - 1] ?? "";
      const calls = Number(f[3]);
      if (types.includes(name) && Number.isInteger(calls)) counts.set(name, calls);
    }
  }
  return { result, counts };
}

/** Each crash point of `counts`: every traced syscall type with the ordinal of each of its calls. */
export function crashPoints(counts: ReadonlyMap<string, number>): [string, number][] {
  const points: [string, number][] = [];
  for (const [type, n] of counts) for (let i = 1; i <= n; i++) points.push([type, i]);
  return points;
}

/** Run `workload` under strace, SIGKILLed (strace's fault injection) at its `i`-th `type` call. */
export function killAtSyscall(
  type: string,
  i: number,
  workload: readonly string[],
): Promise<RunResult> {
  const inject = `${type}:signal=SIGKILL:when=${i}`;
  return run(straced({ out: "/dev/null", trace: [type], inject }, workload));
}

export function workloadArgv(
  bundle: string,
  s: Scenario,
  socket: string,
  prompts: number,
  compactAboveBytes?: number,
): string[] {
  const argv = [process.execPath, bundle, s.seat, socket, String(prompts)];
  return compactAboveBytes === undefined ? argv : [...argv, String(compactAboveBytes)];
}

export function leaderLog(s: Scenario): string[] {
  const path = join(s.dir, "leader.log");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => l.split(" ")[0] ?? "");
}

export function ackedIds(lines: readonly string[]): string[] {
  return lines.filter((l) => l.startsWith("ACK ")).map((l) => l.split(" ")[1] ?? "");
}

function seatBytes(s: Scenario): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(s.seat).sort())
    out.set(name, readFileSync(join(s.seat, name)).toString("base64"));
  return out;
}

function fail(s: Scenario, what: string): never {
  throw new Error(`${s.name}: ${what}`);
}

export interface RecoveryFacts {
  readonly madeUncertain: number;
  readonly quarantined: number;
  readonly maxEpoch: number;
}

/**
 * What a fresh process checks right after the crash: every prompt the leader logged and every
 * prompt acknowledged has a receipt; nothing is left fenced/dispatched; a second recovery changes
 * no byte.
 */
export function checkAfterCrash(s: Scenario, acked: readonly string[]): RecoveryFacts {
  const lock = acquireControllerLock(s.seat);
  try {
    const a = Journal.open({ dir: s.seat, guard: lock });
    const facts: RecoveryFacts = {
      madeUncertain: a.recovery.madeUncertain.length,
      quarantined: a.recovery.warnings.filter((w) => w.code === "JOURNAL_TAIL_QUARANTINED").length,
      maxEpoch: a.maxEpoch,
    };
    for (const id of leaderLog(s))
      if (!a.isKnownPromptId(id)) fail(s, `${id} reached the leader without a fence`);
    for (const id of acked)
      if (!a.isKnownPromptId(id)) fail(s, `acknowledged ${id} has no receipt`);
    for (const r of a.receipts()) {
      if (r.state === "fenced" || r.state === "dispatched")
        fail(s, `${r.promptId} left ${r.state} after recovery`);
    }
    a.close();
    const before = seatBytes(s);
    const b = Journal.open({ dir: s.seat, guard: lock });
    if (b.recovery.madeUncertain.length > 0 || b.recovery.warnings.length > 0)
      fail(s, "second recovery changed receipts");
    b.close();
    const after = seatBytes(s);
    if (JSON.stringify([...before]) !== JSON.stringify([...after]))
      fail(s, "second recovery changed bytes");
    return facts;
  } finally {
    lock.release();
  }
}

export interface FinalFacts {
  readonly uncertain: number;
  readonly sent: number;
}

/** After the finishing run: 0 duplicates, every plan prompt known, uncertain never resent. */
export function checkFinal(s: Scenario, prompts: number): FinalFacts {
  const log = leaderLog(s);
  const seen = new Set<string>();
  for (const id of log) {
    if (seen.has(id)) fail(s, `${id} reached the leader twice`);
    seen.add(id);
  }
  const lock = acquireControllerLock(s.seat);
  try {
    const j = Journal.open({ dir: s.seat, guard: lock });
    let uncertain = 0;
    for (const step of crashPlan(prompts)) {
      if (step.kind === "prompt" && !j.isKnownPromptId(step.id))
        fail(s, `${step.id} was never fenced`);
    }
    for (const id of seen) if (!j.isKnownPromptId(id)) fail(s, `${id} sent without a receipt`);
    for (const r of j.receipts()) {
      if (r.state === "uncertain") {
        uncertain++;
        if (seen.has(r.promptId))
          fail(s, `${r.promptId} reached the leader but was never reconciled`);
      } else if (!isTerminal(r.state)) {
        fail(s, `${r.promptId} unsettled (${r.state})`);
      } else if (!seen.has(r.promptId)) {
        fail(s, `${r.promptId} ${r.state} without reaching the leader`);
      }
    }
    if (j.recovery.madeUncertain.length > 0) fail(s, "the finished journal still needed recovery");
    j.close();
    return { uncertain, sent: log.length };
  } finally {
    lock.release();
  }
}

/** What the T1 and T3 suites share: the bundled workload and a counting leader on a fresh socket. */
export interface CrashRig {
  readonly bundle: Bundle;
  readonly socket: string;
  readonly leader: CountingLeader;
  close(): Promise<void>;
}

export async function startCrashRig(): Promise<CrashRig> {
  const bundle = await bundleHelper("crash-workload");
  const sockDir = mkdtempSync(join(tmpdir(), "grok-seat-leader-"));
  const socket = join(sockDir, "leader.sock");
  const leader = await startCountingLeader(socket);
  return {
    bundle,
    socket,
    leader,
    close: async () => {
      await leader.close();
      rmSync(sockDir, { recursive: true, force: true });
      bundle.cleanup();
    },
  };
}
