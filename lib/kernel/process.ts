/**
 * Per-pid facts read from the kernel in one native call (docs/design/kernel-proofs.md §1.1, §2.1): parent,
 * uids, executable, cwd, controlling tty, start time with its honest precision, and an identity
 * stronger than (pid, start time).
 */

import { requirePid } from "./arguments.js";
import { processFactsSlots, readProcessFacts } from "./binding.js";
import { KernelError } from "./kernel-error.js";
import { callNative } from "./loader.js";
import type { ProcessFacts } from "./types.js";

/** The binding writes the numbers here (one per module: calls are synchronous). */
const numbers = new Float64Array(processFactsSlots);

/**
 * Facts of one process. Throws KernelError: NO_SUCH_PROCESS (really gone), ZOMBIE (exited, not
 * reaped), ACCESS_DENIED (exists but unreadable to us: never reported as gone); UsageError
 * INVALID_ARGUMENT for a pid that is not an integer in 1..2^31-1.
 */
export function processFacts(pid: number): ProcessFacts {
  requirePid(pid, "processFacts");
  const strings: unknown = callNative((n) => n.processFacts(pid, numbers));
  const raw = readProcessFacts(numbers, strings);
  if ("bad" in raw) {
    throw new KernelError("SYSCALL_FAILED", {
      pid,
      syscall: "processFacts",
      errno: 0,
      message: `SYSCALL_FAILED: processFacts returned an unexpected shape at ${raw.bad}`,
    });
  }
  return {
    pid: raw.pid,
    ppid: raw.ppid,
    uid: raw.uid,
    euid: raw.euid,
    executable: raw.executable,
    executableDeleted: raw.executableDeleted,
    cwd: raw.cwd,
    tty: raw.tty,
    startTimeUs: raw.startTimeUs,
    startTimePrecisionUs: raw.startTimePrecisionUs,
    identity: { kind: raw.identityKind, value: raw.identity },
  };
}
