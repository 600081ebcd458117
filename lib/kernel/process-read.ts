/**
 * One process read as a value (kernel/port.ts re-exports it): in a file of its own, beside
 * `processFacts`, so a caller that reads one process (lib/seat/resume.ts, loaded by the root entry
 * at import) need not load every kernel call with `systemKernel` (issue 19).
 */
import { GrokSeatError } from "../errors.js";
import type { ProcessFacts } from "./types.js";

/** The outcome of one `processFacts` call: the facts, or the typed error the kernel layer gave. */
export type ProcessRead =
  | { readonly ok: true; readonly facts: ProcessFacts }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/**
 * Read a pid's facts as a value: a typed failure (NO_SUCH_PROCESS, ZOMBIE, ACCESS_DENIED, …) is
 * the `error` of the read, since a denied read is not a negative proof. With `answers`, only
 * those codes are; any other failure is thrown as it was, and so is anything untyped (a bug).
 */
export function readProcess(
  kernel: { processFacts(pid: number): ProcessFacts },
  pid: number,
  answers?: ReadonlySet<string>,
): ProcessRead {
  try {
    return { ok: true, facts: kernel.processFacts(pid) };
  } catch (err) {
    if (!(err instanceof GrokSeatError) || (answers !== undefined && !answers.has(err.code))) {
      throw err;
    }
    return { ok: false, error: { code: err.code, message: err.message } };
  }
}
