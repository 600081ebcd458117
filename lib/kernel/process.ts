/**
 * Per-pid facts read from the kernel in one native call (kernel-proofs.md §1.1, §2.1): parent,
 * uids, executable, cwd, controlling tty, start time with its honest precision, and an identity
 * stronger than (pid, start time).
 */
import { callNative } from "./addon.js";
import { KernelError } from "./kernel-error.js";
import { badProcessFactsField, isRawProcessFacts } from "./native.js";
import type { ProcessFacts } from "./types.js";

/**
 * Facts of one process. Throws KernelError: NO_SUCH_PROCESS (really gone), ZOMBIE (exited, not
 * reaped), ACCESS_DENIED (exists but unreadable to us: never reported as gone); UsageError
 * INVALID_ARGUMENT for a pid that is not an integer in 1..2^31-1.
 */
export function processFacts(pid: number): ProcessFacts {
  const raw: unknown = callNative((n) => n.processFacts(pid));
  if (!isRawProcessFacts(raw)) {
    throw new KernelError("SYSCALL_FAILED", {
      pid,
      syscall: "processFacts",
      errno: 0,
      message: `SYSCALL_FAILED: processFacts returned an unexpected shape at ${badProcessFactsField(raw)}`,
    });
  }
  const [
    p,
    ppid,
    uid,
    euid,
    executable,
    executableDeleted,
    cwd,
    tty,
    start,
    precision,
    kind,
    value,
  ] = raw;
  return {
    pid: p,
    ppid,
    uid,
    euid,
    executable,
    executableDeleted,
    cwd,
    tty,
    startTimeUs: start,
    startTimePrecisionUs: precision,
    identity: { kind, value },
  };
}
