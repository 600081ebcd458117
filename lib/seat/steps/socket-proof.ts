/**
 * Step `socket_proof`: the address first (a path, not an abstract name; within sun_path), then
 * the private-socket checks (lib/proof/socket.ts) on our runtime directory's socket, and the lock
 * file's pid among its listeners. Nothing is connected to before this passes (ADR 0224 (docs/design/adr-0224.md):
 * "Connect to that socket once"; docs/design/reliability-plan.md §6 T4).
 */
import { lstatSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type CheckResult, fail, firstFailure, pass } from "../../check.js";
import {
  type FileType,
  type SocketDirFacts,
  type SocketFacts,
  socketFactsFor,
} from "../../kernel/index.js";
import { checkPrivateSocket, checkSocketAddress, checkSocketDir } from "../../proof/socket.js";
import { refuseOnCheck, SeatRefusal } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";

export interface SocketProofInput {
  readonly socketPath: string;
  /** The pid the leader's lock file names (`leader_wait`). */
  readonly lockPid: number;
}

/** lstat facts of a directory, or null when it cannot be looked at either. */
function dirFacts(path: string): SocketDirFacts | null {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return null;
  const type: FileType = st.isSymbolicLink()
    ? "symlink"
    : st.isDirectory()
      ? "directory"
      : st.isSocket()
        ? "socket"
        : st.isFIFO()
          ? "fifo"
          : st.isCharacterDevice()
            ? "char"
            : st.isBlockDevice()
              ? "block"
              : "file";
  return { path, type, uid: st.uid, mode: st.mode & 0o7777, isSymlink: type === "symlink" };
}

export const socketProof = hireStep("socket_proof", (input: SocketProofInput, ctx) => {
  const { socketPath, lockPid } = input;
  const uid = ctx.uid;
  // The address first: an abstract name or an over-long path is refused by its own name before
  // anything is looked at or connected to.
  const address = checkSocketAddress(
    socketPath.includes("\0") ? socketPath : resolve(socketPath),
    ctx.kernel.kernelInfo().sunPathMax,
  );
  const badAddress = firstFailure(address);
  if (badAddress !== undefined) throw refuseOnCheck("socket_proof", "SOCKET_UNPROVEN", badAddress);
  let facts: SocketFacts;
  try {
    facts = socketFactsFor(ctx.kernel, socketPath, lockPid);
  } catch (err) {
    // A socket we cannot look at is often the directory's fault (another owner's 0700
    // directory, a file where the directory should be): then refuse with the directory's check.
    const dir = socketPath === "" ? null : dirFacts(dirname(resolve(socketPath)));
    const dirFailed = dir === null ? undefined : firstFailure(checkSocketDir(dir, { uid }));
    if (dirFailed !== undefined) throw refuseOnCheck("socket_proof", "SOCKET_UNPROVEN", dirFailed);
    throw new SeatRefusal({
      step: "socket_proof",
      code: "SOCKET_UNPROVEN",
      check: "socket.exists",
      reason: `${socketPath} cannot be looked at`,
      cause: err,
    });
  }
  const checks: CheckResult[] = [
    ...checkPrivateSocket(facts, { uid }),
    facts.listeners.includes(lockPid)
      ? pass("socket.lock_pid_listens", lockPid, [...facts.listeners])
      : fail(
          "socket.lock_pid_listens",
          lockPid,
          [...facts.listeners],
          `the lock file's pid ${lockPid} does not listen on ${socketPath}`,
        ),
  ];
  const failed = firstFailure(checks);
  if (failed !== undefined) throw refuseOnCheck("socket_proof", "SOCKET_UNPROVEN", failed);
  return outcome(
    facts,
    `${socketPath}: socket in a 0${(facts.dir.mode & 0o777).toString(8)} directory we own, listener pid ${facts.listeners.join(",")}`,
    checks,
    {
      path: facts.path,
      inode: facts.inode,
      device: facts.device,
      dirMode: facts.dir.mode,
      listeners: [...facts.listeners],
    },
  );
});
