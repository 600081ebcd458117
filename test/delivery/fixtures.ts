/** Shared fixtures of the delivery tests: private temp seat directories and a spying JournalIO. */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FenceInput, JournalGuard } from "../../lib/delivery/journal.js";
import { nodeJournalIO } from "../../lib/delivery/journal.js";
import type { JournalIO } from "../../lib/delivery/journal-io.js";

export const openGuard: JournalGuard = { assertHeld() {} };

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

let n = 0;
/** A fence input with a fresh, valid prompt id. */
export function prompt(overrides: Partial<FenceInput> = {}): FenceInput {
  n++;
  return {
    promptId: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    sessionId: "0198c0de-0000-4000-8000-000000000001",
    leader: "linux-pidfs:boot:777",
    pane: "herdr:pane-1",
    text: `hello ${n} ✓`,
    ...overrides,
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
