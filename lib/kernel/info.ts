/** What the running kernel offers for proofs (pidfs identities, SO_PEERPIDFD, boot id). */

import { RawKernelInfo } from "./binding.js";
import { callNative, parseNative } from "./loader.js";
import type { KernelInfo } from "./types.js";

export interface KernelInfoDetails extends KernelInfo {
  /** Longest socket path bind()/connect() accept, in bytes without the NUL (107 / 103). */
  readonly sunPathMax: number;
}

/**
 * Test switch `GROK_SEAT_NO_PEERPIDFD=1` (Linux only): behave as on a kernel without SO_PEERPIDFD
 * (Linux < 6.5), where the addon reports `peerPidfd: false` and peer credentials without an
 * identity (method SO_PEERCRED; native/linux/peer.cc). It can only take a proof away, never add
 * one, so it is safe to honour in production. Read here and nowhere else.
 */
export function peerPidfdSwitchedOff(): boolean {
  return process.platform === "linux" && process.env.GROK_SEAT_NO_PEERPIDFD === "1";
}

export function kernelInfo(): KernelInfoDetails {
  const info = parseNative(
    RawKernelInfo,
    callNative((n) => n.kernelInfo()),
    "kernelInfo",
  );
  return peerPidfdSwitchedOff() ? { ...info, peerPidfd: false } : info;
}
