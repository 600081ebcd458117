/**
 * Step `leader_wait`: the bounded wait for the TUI's leader. The TUI spawns `grok agent leader` and
 * polls for its socket for up to 10 s (docs/design/grok-leader-protocol.md §1,
 * `SPAWN_WAIT_TIMEOUT`); the leader locks `<socket>.lock`, writes its pid there and binds the
 * socket before auth. We look at the same two files plus the lock pid's own fds whenever the
 * runtime directory changes (with a backing-off poll beneath: lib/seat/steps/dir-wake.ts), until the lock names a pid that listens on that very socket file — or the TUI exits
 * (kernel handle), or the deadline passes. Nothing is connected to here: the socket proof comes
 * first.
 */
import { lstatSync } from "node:fs";
import { dirname } from "node:path";
import { pass } from "../../check.js";
import { GrokSeatError } from "../../errors.js";
import {
  KernelError,
  type KernelPort,
  type ProcessHandle,
  type SocketFacts,
} from "../../kernel/index.js";
import { readRegularFile } from "../../kernel/regular-file.js";
import { parseLockPid } from "../../proof/leader.js";
import { SeatRefusal } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";
import { watchDir } from "./dir-wake.js";

export interface LeaderWaitInput {
  readonly socketPath: string;
  readonly lockPath: string;
  readonly tui: ProcessHandle;
  /** TUI start to a listening leader (default 30 s; grok waits 10 s for its own spawn). */
  readonly timeoutMs?: number | undefined;
  readonly pollMs?: number;
}

export interface LeaderSighting {
  readonly lockPid: number;
  readonly facts: SocketFacts;
  readonly polls: number;
}

type Seen =
  | { readonly kind: "no_socket" }
  | { readonly kind: "not_a_socket"; readonly type: string }
  | { readonly kind: "no_listener" }
  | { readonly kind: "no_lock_pid"; readonly listeners: readonly number[] }
  | {
      readonly kind: "lock_pid_not_listening";
      readonly lockPid: number;
      readonly listeners: readonly number[];
    }
  | { readonly kind: "ready"; readonly lockPid: number; readonly facts: SocketFacts };

/** The pid the lock file names, or null (missing, unreadable, not a regular file, not a pid). */
function lockFilePid(lockPath: string): number | null {
  try {
    return parseLockPid(readRegularFile(lockPath, 64).bytes.toString("utf8"));
  } catch {
    return null;
  }
}

function look(kernel: KernelPort, socketPath: string, lockPath: string): Seen {
  // Cheap looks first (an lstat, a 10-byte read); then only the lock file's pid is asked whether
  // it holds a listener on this file (its fd table, not every process's: the proof path never
  // scans, docs/design/kernel-proofs.md §2.4). The reads are synchronous: a small file in our own
  // runtime directory, read some twenty times while Grok starts, where each asynchronous open,
  // read and close was a thread-pool round trip of our CPU (issue 19).
  const st = lstatSync(socketPath, { throwIfNoEntry: false });
  if (st === undefined) return { kind: "no_socket" };
  if (!st.isSocket())
    return { kind: "not_a_socket", type: st.isDirectory() ? "directory" : "other" };
  const early = lockFilePid(lockPath);
  if (early === null) return { kind: "no_lock_pid", listeners: [] };
  let facts: SocketFacts;
  try {
    facts = kernel.socketFacts(socketPath, { pid: early });
  } catch (err) {
    // The lock names a process whose fds we may not read: not ours, so not our leader.
    if (err instanceof KernelError && err.pid === early) {
      return { kind: "lock_pid_not_listening", lockPid: early, listeners: [] };
    }
    if (err instanceof GrokSeatError) return { kind: "no_socket" };
    throw err;
  }
  if (facts.type !== "socket") return { kind: "not_a_socket", type: facts.type };
  if (!facts.listeners.includes(early)) {
    return facts.listeningSockets === 0
      ? { kind: "no_listener" }
      : { kind: "lock_pid_not_listening", lockPid: early, listeners: facts.listeners };
  }
  const lockPid = lockFilePid(lockPath);
  if (lockPid === null) return { kind: "no_lock_pid", listeners: facts.listeners };
  // The lock changed hands between the two reads: look again at the next poll.
  if (lockPid !== early) return { kind: "lock_pid_not_listening", lockPid, listeners: [] };
  return { kind: "ready", lockPid, facts };
}

/**
 * What the last look saw, for a refusal: where the lock's pid did not listen, who does (the one
 * listener scan, on the failure path only).
 */
function lastSeen(kernel: KernelPort, socketPath: string, last: Seen): Seen {
  if (last.kind !== "lock_pid_not_listening") return last;
  try {
    return { ...last, listeners: kernel.socketFacts(socketPath, { allUsers: true }).listeners };
  } catch {
    return last;
  }
}

export const leaderWait = hireStep("leader_wait", async (input: LeaderWaitInput, ctx) => {
  const pollMs = input.pollMs ?? 10;
  const timeoutMs = input.timeoutMs ?? 30_000;
  const deadline = performance.now() + timeoutMs;
  let tuiExited = false;
  void input.tui.exited.then(
    () => {
      tuiExited = true;
    },
    () => {},
  );
  let polls = 0;
  let last: Seen = { kind: "no_socket" };
  const dir = watchDir(dirname(input.socketPath), pollMs);
  try {
    for (;;) {
      polls += 1;
      last = look(ctx.kernel, input.socketPath, input.lockPath);
      if (last.kind === "ready") break;
      if (tuiExited || !input.tui.isAlive()) {
        throw new SeatRefusal({
          step: "leader_wait",
          code: "TUI_EXITED",
          check: "leader_wait.tui_alive",
          reason: `the TUI (pid ${input.tui.pid}) exited before its leader was listening`,
          details: { last: last.kind },
        });
      }
      if (ctx.signal?.aborted === true) {
        throw new SeatRefusal({
          step: "leader_wait",
          code: "HIRE_ABORTED",
          reason: "the caller aborted the hire",
        });
      }
      if (performance.now() >= deadline) {
        throw new SeatRefusal({
          step: "leader_wait",
          code: "LEADER_NOT_READY",
          check: "leader_wait.listening",
          reason: `no leader listened on ${input.socketPath} within ${timeoutMs} ms (last seen: ${last.kind})`,
          details: {
            last: { ...lastSeen(ctx.kernel, input.socketPath, last) },
            socketPath: input.socketPath,
            timeoutMs,
          },
        });
      }
      await dir.pause(input.tui);
    }
  } finally {
    dir.close();
  }
  const { lockPid, facts } = last;
  ctx.left.leaderPid = lockPid;
  return outcome(
    { lockPid, facts, polls },
    `leader pid ${lockPid} listens on ${input.socketPath} (lock file names it)`,
    [
      pass("leader_wait.listening", "a listener on the socket file", [...facts.listeners]),
      pass("leader_wait.lock_pid", "the lock file names a listener", lockPid),
    ],
    { lockPid, listeners: [...facts.listeners], polls },
  );
});
