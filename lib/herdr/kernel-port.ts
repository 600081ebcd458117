/**
 * The kernel facts this layer needs, as one small interface so the Herdr flows can be exercised
 * with the real addon in tests and instrumented in the bench. `systemKernel` is the real one
 * (`lib/kernel`, loaded lazily on first call).
 */
import type { Socket } from "node:net";
import { openProcessHandle, peerCredentials, processFacts } from "../kernel/index.js";
import type {
  PeerCredentials,
  ProcessFacts,
  ProcessHandle,
  ProcessIdentity,
} from "../kernel/types.js";

export interface HerdrKernel {
  processFacts(pid: number): ProcessFacts;
  peerCredentials(socket: Socket): PeerCredentials;
  openProcessHandle(pid: number, identity: ProcessIdentity): ProcessHandle;
}

export const systemKernel: HerdrKernel = {
  processFacts: (pid) => processFacts(pid),
  peerCredentials: (socket) => peerCredentials(socket),
  openProcessHandle: (pid, identity) => openProcessHandle(pid, identity),
};
