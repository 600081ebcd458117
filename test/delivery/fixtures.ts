/** Shared fixtures of the delivery tests: private temp seat directories and a spying JournalIO. */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FenceInput, Journal, type JournalGuard } from "../../lib/delivery/journal.js";
import type { JournalIO } from "../../lib/delivery/journal-io.js";
import { nodeJournalIO } from "../../lib/delivery/journal-io.js";
import type { JournalRecord } from "../../lib/delivery/journal-record.js";
import { isErrorCode } from "../../lib/errors.js";
import { poll } from "../helpers/poll.js";

export const openGuard: JournalGuard = { assertHeld() {} };

/** The stable `code` of the GrokSeatError `f` throws, or "no error"; anything else is rethrown. */
export function errorCode(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (isErrorCode(err)) return err.code;
    throw err;
  }
  return "no error";
}

/** A journal opened in `dir` (an always-held guard) and admitted with a new epoch. */
export function admitted(
  dir: string,
  extra: Partial<Parameters<typeof Journal.open>[0]> = {},
): Journal {
  const j = Journal.open({ dir, guard: openGuard, ...extra });
  j.beginEpoch();
  return j;
}

/** Every file of `dir` by name, as base64 bytes (to prove a step changed nothing). */
export function bytesOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir))
    out.set(name, readFileSync(join(dir, name)).toString("base64"));
  return out;
}

const made: string[] = [];

/** A fresh 0700 seat directory under the OS temp dir (removed by `cleanupSeats`). */
export function tempSeat(prefix = "grok-seat-delivery-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o700);
  made.push(dir);
  return dir;
}

export function cleanupSeats(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The session, leader and pane every test prompt and fence record names. */
const SESSION_ID = "0198c0de-0000-4000-8000-000000000001";
const LEADER = "linux-pidfs:boot:777";
const PANE = "herdr:pane-1";

let n = 0;
/** A fence input with a fresh, valid prompt id. */
export function prompt(overrides: Partial<FenceInput> = {}): FenceInput {
  n++;
  return {
    promptId: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    sessionId: SESSION_ID,
    leader: LEADER,
    pane: PANE,
    text: `hello ${n} ✓`,
    ...overrides,
  };
}

/** A journal `fence` record of the test session, leader and pane (the ones `prompt` names). */
export function fenceRecord(f: {
  id: string;
  sha256: string;
  len: number;
  epoch: number;
  at: number;
}): JournalRecord {
  return {
    v: 1,
    t: "fence",
    id: f.id,
    sid: SESSION_ID,
    leader: LEADER,
    pane: PANE,
    sha256: f.sha256,
    len: f.len,
    epoch: f.epoch,
    at: f.at,
  };
}

export type IOCall = { readonly op: keyof JournalIO; readonly arg: string; result?: unknown };

/**
 * The real JournalIO, with every call logged and optional errno faults: `fail.fsync = [2]` makes
 * the 2nd fsync throw `code`.
 */
export function spyIO(
  fail: Partial<Record<keyof JournalIO, number[]>> = {},
  code = "EIO",
): { io: JournalIO; calls: IOCall[] } {
  const calls: IOCall[] = [];
  const counts = new Map<string, number>();
  const wrap =
    <A extends unknown[], R>(op: keyof JournalIO, f: (...a: A) => R) =>
    (...a: A): R => {
      const call: IOCall = { op, arg: String(a[0]) };
      calls.push(call);
      const k = (counts.get(op) ?? 0) + 1;
      counts.set(op, k);
      if (fail[op]?.includes(k))
        throw Object.assign(new Error(`${code}: injected (${op} #${k})`), { code });
      const result = f(...a);
      call.result = result;
      return result;
    };
  const b = nodeJournalIO;
  const io: JournalIO = {
    lstat: wrap("lstat", b.lstat),
    fstat: wrap("fstat", b.fstat),
    openDirectory: wrap("openDirectory", b.openDirectory),
    openFile: wrap("openFile", b.openFile),
    readAll: wrap("readAll", b.readAll),
    append: wrap("append", b.append),
    fsync: wrap("fsync", b.fsync),
    truncate: wrap("truncate", b.truncate),
    rename: wrap("rename", b.rename),
    unlink: wrap("unlink", b.unlink),
    close: wrap("close", b.close),
    euid: wrap("euid", b.euid),
  };
  return { io, calls };
}

/** A child process whose stdout is read line by line; `waitFor` polls, never sleeps blindly. */
export class LineChild {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  #exit: Promise<number | null>;

  constructor(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv } = {}) {
    this.child = spawn(command, args, {
      stdio: ["pipe", "pipe", "inherit"],
      env: options.env ?? process.env,
    });
    let buf = "";
    this.child.stdout?.on("data", (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        this.lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
    this.#exit = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  send(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  async waitFor(match: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.lines.find((l) => match.test(l));
      if (hit !== undefined) return hit;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${match}; got ${JSON.stringify(this.lines)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  exited(): Promise<number | null> {
    return this.#exit;
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.#exit;
  }
}

/** Poll `f` until it returns a value other than undefined (or time out). */
export function pollUntil<T>(
  f: () => T | undefined,
  timeoutMs = 15_000,
  what = "condition",
): Promise<T> {
  return poll(what, f, timeoutMs, 5);
}

/** Pids holding an exclusive flock on the inode (from /proc/locks: an independent kernel oracle). */
export function flockHolders(ino: number | bigint): number[] {
  const out: number[] = [];
  for (const line of readFileSync("/proc/locks", "utf8").split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[1] === "FLOCK" && f[3] === "WRITE" && f[5]?.endsWith(`:${ino}`)) out.push(Number(f[4]));
  }
  return out;
}
