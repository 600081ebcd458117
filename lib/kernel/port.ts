/**
 * The kernel as every layer above it uses it: one small interface (`KernelPort`) with the real
 * addon behind it (`systemKernel`, loaded lazily on first call), so a flow can be run against the
 * real kernel in tests and instrumented in the bench without reaching past it. Also the two value
 * forms those layers share: one process read that never throws for a kernel failure
 * (`readProcess`) and the JSON form of a process identity (`identityJson`).
 */
import type { Socket } from "node:net";
import { GrokSeatError } from "../errors.js";
import { processArgv } from "./argv.js";
import { openProcessHandle } from "./handle.js";
import { type KernelInfoDetails, kernelInfo } from "./info.js";
import { peerCredentials } from "./peer.js";
import { type PeerSocketFile, peerSocketFile } from "./peer-socket.js";
import { processFacts } from "./process.js";
import { ptyMasters } from "./procfs-read.js";
import { type SocketFactsOptions, socketFacts } from "./socket.js";
import type {
  PeerCredentials,
  ProcessFacts,
  ProcessHandle,
  ProcessIdentity,
  SocketFacts,
} from "./types.js";

export { identityJson, sameIdentity } from "./identity.js";
export { type ProcessRead, readProcess } from "./process-read.js";

export interface KernelPort {
  processFacts(pid: number): ProcessFacts;
  /** With `options.pid`, only that process's fds are read (the proof path never scans). */
  socketFacts(path: string, options?: SocketFactsOptions): SocketFacts;
  peerCredentials(socket: Socket): PeerCredentials;
  peerSocketFile(socket: Socket): PeerSocketFile;
  kernelInfo(): KernelInfoDetails;
  openProcessHandle(pid: number, identity: ProcessIdentity): ProcessHandle;
  /** argv as the kernel holds it (Linux /proc/<pid>/cmdline, macOS KERN_PROCARGS2). */
  processArgv(pid: number): readonly string[];
  /** pty indexes whose master `pid` holds (Linux fdinfo; null: not reported; macOS UNSUPPORTED). */
  ptyMasters(pid: number): readonly number[] | null;
}

export const systemKernel: KernelPort = {
  processFacts: (pid) => processFacts(pid),
  socketFacts: (path, options) => socketFacts(path, options),
  peerCredentials: (socket) => peerCredentials(socket),
  peerSocketFile: (socket) => peerSocketFile(socket),
  kernelInfo: () => kernelInfo(),
  openProcessHandle: (pid, identity) => openProcessHandle(pid, identity),
  processArgv: (pid) => processArgv(pid),
  ptyMasters: (pid) => ptyMasters(pid),
};

/**
 * Facts of a socket path as a proof asks them: does this pid (the lock file's, the peer of our
 * connection) hold a listener bound to it. Only that pid's fd table is read, so the proof's cost
 * does not grow with the number of processes (docs/design/kernel-proofs.md §2.4). Where it does
 * not listen, or the pid lookup fails, one scan of every process we may read (another uid's too,
 * as root) names who does listen (the failure path only, so a refusal says who holds it).
 */
export function socketFactsFor(kernel: KernelPort, path: string, pid: number): SocketFacts {
  try {
    const facts = kernel.socketFacts(path, { pid });
    if (facts.listeners.includes(pid)) return facts;
  } catch (err) {
    // Any typed failure of the pid lookup (its fds unreadable, a pid out of range) is answered by
    // the scan below, exactly as before the pid lookup: it throws or reports what the path is.
    if (!(err instanceof GrokSeatError)) throw err;
  }
  return kernel.socketFacts(path, { allUsers: true });
}
