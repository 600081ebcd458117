/**
 * Gathering the facts of the leader proof (I/O; the checks are the pure `lib/proof/leader.ts`).
 * Every fact comes from the kernel or the filesystem, independently of the leader's self-report:
 * the report only says *which* pid and paths to look at. A read that fails is recorded as its
 * typed error (a denied read is not a negative proof, docs/design/kernel-proofs.md §3), never
 * thrown.
 */
import { failureOf } from "../errors.js";
import { lockPathForSocket } from "../grok/paths.js";
import { type KernelPort, readProcess, socketFactsFor } from "../kernel/index.js";
import type { LeaderInfo } from "../leader/control.js";
import type { LeaderConnection } from "../leader/leader-connection.js";
import { flockHolder, readSmallFile } from "../leader/lock-file.js";
import type { BoundTui, FactRead, LeaderProofInput } from "../proof/leader.js";

/** The lock file holds a u32 in decimal; anything longer is not a lock file of a leader. */
const MAX_LOCK_BYTES = 64;

function failure(err: unknown): { code: string; message: string } {
  const f = failureOf(err);
  if (f === null) throw err; // not an I/O or kernel failure: a bug, let it surface
  return f;
}

function read<T>(fn: () => T): FactRead<T> {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    return { ok: false, error: failure(err) };
  }
}

async function readAsync<T>(fn: () => Promise<T>): Promise<FactRead<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return { ok: false, error: failure(err) };
  }
}

export interface LeaderFactsRequest {
  /** A registered, ready connection to the leader (its socket is "our connection"). */
  readonly connection: LeaderConnection;
  /** The leader's `get_leader_info` reply. */
  readonly leaderInfo: LeaderInfo;
  /** Our private socket path (already through the socket proof). */
  readonly socketPath: string;
  readonly tui: BoundTui | null;
  readonly grokExecutable: string | null;
  readonly kernel: KernelPort;
}

export async function gatherLeaderFacts(req: LeaderFactsRequest): Promise<LeaderProofInput> {
  const kernel = req.kernel;
  const { platform } = kernel.kernelInfo();
  const pid = req.leaderInfo.pid;
  const lockPath = lockPathForSocket(req.socketPath);
  const socket = req.connection.socket;
  const leader = readProcess(kernel, pid);
  const tuiNow = req.tui === null ? null : readProcess(kernel, req.tui.pid);
  const peer = read(() => kernel.peerCredentials(socket));
  const peerFile =
    platform === "linux"
      ? read(() => {
          const p = kernel.peerSocketFile(socket);
          return p.file === null ? null : { device: p.file.device, inode32: p.file.inode32 };
        })
      : null;
  const sock = read(() => socketFactsFor(kernel, req.socketPath, pid));
  const lockContent = await readAsync(async () =>
    (await readSmallFile(lockPath, MAX_LOCK_BYTES)).toString("utf8"),
  );
  const holder = platform === "linux" ? await readAsync(() => flockHolder(lockPath)) : null;
  return {
    platform,
    uid: process.getuid?.() ?? -1,
    tui: req.tui,
    tuiNow,
    grokExecutable: req.grokExecutable,
    socketPath: req.socketPath,
    lockPath,
    leaderInfo: {
      pid,
      socket_path: req.leaderInfo.socket_path,
      lock_path: req.leaderInfo.lock_path,
    },
    leader,
    socket: sock,
    peer,
    peerSocketFile: peerFile,
    lockContent,
    flockHolder: holder,
  };
}
