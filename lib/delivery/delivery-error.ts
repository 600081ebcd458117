import { GrokSeatError } from "../errors.js";

/**
 * The stable codes of the delivery layer. Tests and callers branch on these, never on messages.
 * - JOURNAL_IO: a write, fsync, rename, truncate or open of the journal failed. The journal is then
 *   fail-stopped (fsyncgate, docs/design/reliability-plan.md §3.2): every later call throws
 *   JOURNAL_IO again until the seat is admitted afresh and the journal recovered. An fsync is never
 *   retried.
 * - ADMISSION_LOST: this controller is no longer the sole owner of the seat (lock file replaced or
 *   unlinked, lock released, journal replaced or grown by someone else). Fail-stopped as well.
 * - LEADER_BUSY: another live controller holds the seat's admission lock.
 * - PROMPT_ID_DUPLICATE: this journal fenced that prompt id before (compacted ones included);
 *   nothing was fenced or sent. The one duplicate check of the library: `deliver` relies on it.
 * - ILLEGAL_TRANSITION: the caller asked for a move the receipt state machine forbids.
 * - UNKNOWN_PROMPT: no receipt with this prompt id.
 * - NOT_ADMITTED: a fence needs a controller epoch (`beginEpoch`, done by admission).
 * - JOURNAL_CLOSED: the journal was closed by its owner.
 * - SEAT_DIR_UNSAFE / JOURNAL_FILE_UNSAFE: ownership, mode or type of the seat directory or of a
 *   file in it is not private to us (details.reason names which).
 * - RECORD_TOO_LARGE: a record would exceed the line bound (a bug: fields are bounded first).
 * - EPOCH_EXHAUSTED: the journal's highest epoch is Number.MAX_SAFE_INTEGER; no further controller
 *   can be admitted to this seat (nothing was written).
 */
export type DeliveryErrorCode =
  | "JOURNAL_IO"
  | "ADMISSION_LOST"
  | "LEADER_BUSY"
  | "PROMPT_ID_DUPLICATE"
  | "ILLEGAL_TRANSITION"
  | "UNKNOWN_PROMPT"
  | "NOT_ADMITTED"
  | "JOURNAL_CLOSED"
  | "SEAT_DIR_UNSAFE"
  | "JOURNAL_FILE_UNSAFE"
  | "RECORD_TOO_LARGE"
  | "EPOCH_EXHAUSTED";

export class DeliveryError extends GrokSeatError<DeliveryErrorCode> {}
