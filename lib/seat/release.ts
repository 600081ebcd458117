/**
 * The I/O of release (the decision is the pure `release-policy.ts`): look at the leader through
 * the kernel handle taken when it was proven, stop it through that handle (SIGTERM, then wait for
 * the kernel to report this very process exited: never `kill(pid)`), and only then remove the
 * socket and lock files a signalled leader leaves behind (docs/design/grok-leader-protocol.md §1: a
 * signal exit skips the destructors) — only in our own directory, only files we own, only a socket
 * no one listens on (docs/design/reliability-plan.md §1.2: "never remove a socket you did not prove
 * stale").
 */
import { lstatSync, unlinkSync } from "node:fs";
import { failureOf } from "../errors.js";
import {
  type KernelPort,
  type ProcessHandle,
  readProcess,
  sameIdentity,
  systemKernel,
} from "../kernel/index.js";
import type { LeaderNow } from "./release-policy.js";

function listenersOf(kernel: KernelPort, socketPath: string): readonly number[] {
  try {
    return kernel.socketFacts(socketPath, { allUsers: true }).listeners;
  } catch {
    return [];
  }
}

/** The leader as its handle sees it now. */
export function leaderNow(
  handle: ProcessHandle,
  socketPath: string,
  kernel: KernelPort = systemKernel,
): LeaderNow {
  let alive: boolean;
  try {
    alive = handle.isAlive();
  } catch (err) {
    return { kind: "unproven", code: failureOf(err)?.code ?? "HANDLE_ERROR" };
  }
  if (!alive) {
    return { kind: "exited", socketServedByOther: listenersOf(kernel, socketPath).length > 0 };
  }
  const now = readProcess(kernel, handle.pid);
  if (!now.ok) return { kind: "unproven", code: now.error.code };
  // The handle's process lives, yet the pid names another: only possible mid-exit.
  if (!sameIdentity(now.facts.identity, handle.identity)) {
    return { kind: "unproven", code: "IDENTITY_CHANGED" };
  }
  return { kind: "proven" };
}

/**
 * Has the TUI exited, or begun to? The handle (pidfd readable) reports the exit only once the
 * whole thread group is gone (the kernel's pidfd_poll waits for an empty thread group), while
 * the main thread may already be a zombie, the pane closed and Herdr's `pane_exited` sent: a
 * release in that gap would decide TUI_ALIVE and leave the leader running for good. This only
 * says whether release should wait (bounded) for the exit watch; the stop still needs the
 * watch's kernel verdict. A zombie under the pid is our TUI: while its pidfd is not readable the
 * process was not reaped, so its pid cannot have been reused.
 */
export function tuiExitUnderway(handle: ProcessHandle, kernel: KernelPort = systemKernel): boolean {
  if (!handle.isAlive()) return true;
  const now = readProcess(kernel, handle.pid);
  return !now.ok && now.error.code === "ZOMBIE";
}

/** SIGTERM through the handle, then wait (bounded) for the kernel to report the exit. */
export async function stopLeader(handle: ProcessHandle, timeoutMs: number): Promise<boolean> {
  handle.signal("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([handle.exited.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function euid(): number {
  return typeof process.geteuid === "function" ? process.geteuid() : -1;
}

/** Remove the stale socket and lock a stopped leader left in our private directory. */
export function removeStaleLeaderFiles(
  socketPath: string,
  lockPath: string,
  kernel: KernelPort = systemKernel,
): string[] {
  const removed: string[] = [];
  // A listener means some leader serves the path (not ours: ours has exited): leave both alone.
  if (listenersOf(kernel, socketPath).length > 0) return removed;
  const sock = lstatSync(socketPath, { throwIfNoEntry: false });
  if (sock?.isSocket() === true && sock.uid === euid()) {
    unlinkSync(socketPath);
    removed.push(socketPath);
  }
  const lock = lstatSync(lockPath, { throwIfNoEntry: false });
  if (lock?.isFile() === true && lock.uid === euid()) {
    unlinkSync(lockPath);
    removed.push(lockPath);
  }
  return removed;
}
