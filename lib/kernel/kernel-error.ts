import { GrokSeatError } from "../errors.js";
import type { KernelFailureCode } from "./types.js";

/**
 * A kernel failure, classified where the evidence is: errno first, then "is the pid gone",
 * then "is it a zombie" (psutil's rule). An unreadable proof is ACCESS_DENIED, never
 * NO_SUCH_PROCESS: a denied read is not a negative proof.
 */
export class KernelError extends GrokSeatError {
  declare readonly code: KernelFailureCode;
  /** The pid the call was about, or null for path/fd calls. */
  readonly pid: number | null;
  /** The syscall or libproc call that failed, e.g. "readlinkat(exe)". */
  readonly syscall: string;
  /** errno as the kernel reported it (0 for a short read or a missing feature). */
  readonly errno: number;

  constructor(
    code: KernelFailureCode,
    fields: { pid: number | null; syscall: string; errno: number; message?: string },
  ) {
    const where = fields.pid === null ? fields.syscall : `${fields.syscall} for pid ${fields.pid}`;
    super(code, fields.message ?? `${code}: ${where} failed (errno ${fields.errno})`, {
      details: { pid: fields.pid, syscall: fields.syscall, errno: fields.errno },
    });
    this.pid = fields.pid;
    this.syscall = fields.syscall;
    this.errno = fields.errno;
  }
}
