/**
 * What the two pid-reuse fixtures (`kernel/fixtures/pid-reuse.ts`, `reliability/fixtures/pid-reuse-run.ts`)
 * both need inside their pid namespace: a process's start tick, a call's outcome as a code, and
 * waiting for a child's exit or its READY line.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

/** The start time of `pid` in clock ticks (`/proc/<pid>/stat` field 22). */
export function tick(pid: number): string {
  const t = readFileSync(`/proc/${pid}/stat`, "utf8");
  return t.slice(t.lastIndexOf(")") + 2).split(" ")[19] ?? "";
}

/** `OK` when `fn` returns, else the thrown error's `code` (its text when it has none). */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
    return "OK";
  } catch (err) {
    const code = typeof err === "object" && err !== null ? Reflect.get(err, "code") : undefined;
    return typeof code === "string" ? code : String(err);
  }
}

/** Resolves once `child` has exited (at once when it already has). */
export function exitOf(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** Resolves when `child` prints READY; rejects after 10 s without it. */
export function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no READY")), 10_000);
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("READY")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}
