/** What the running kernel offers for proofs (pidfs identities, SO_PEERPIDFD, boot id). */
import { callNative, parseNative } from "./addon.js";
import { RawKernelInfo } from "./native.js";
import type { KernelInfo } from "./types.js";

export interface KernelInfoDetails extends KernelInfo {
  /** Longest socket path bind()/connect() accept, in bytes without the NUL (107 / 103). */
  readonly sunPathMax: number;
}

export function kernelInfo(): KernelInfoDetails {
  return parseNative(
    RawKernelInfo,
    callNative((n) => n.kernelInfo()),
    "kernelInfo",
  );
}
