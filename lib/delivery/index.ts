/** lib/delivery: fence journal, receipts, reconciliation, admission lock. Exports by name. */
export {
  type AdmitOptions,
  acquireControllerLock,
  admitController,
  type Controller,
  type ControllerLock,
  LOCK_FILE,
} from "./admission.js";
export {
  type DecodedJournal,
  type DecodedLine,
  decodeJournal,
  encodeRecord,
  type JournalTail,
  MAX_LINE_BYTES,
  type TailReason,
} from "./codec.js";
export { DeliveryError, type DeliveryErrorCode } from "./delivery-error.js";
export { dispatch, type OutgoingPrompt, type PromptSender } from "./dispatch.js";
export {
  type CompactionReport,
  DEFAULT_COMPACT_ABOVE_BYTES,
  type EvidenceOutcome,
  type Fenced,
  type FenceInput,
  JOURNAL_FILE,
  Journal,
  type JournalGuard,
  type JournalWarning,
  type OpenJournalOptions,
  type RecoveryReport,
} from "./journal.js";
export { type JournalIO, nodeJournalIO, type PathFacts, type PathKind } from "./journal-io.js";
export type {
  CancelHow,
  ConsumptionKind,
  JournalRecord,
  PromptRejectedRecord,
  ResultChannel,
  UncertainReason,
} from "./journal-record.js";
export {
  type ConsumptionEvidence,
  type Decision,
  decide,
  type IgnoredOutcome,
  isConsumed,
  isModelFinished,
  isTerminal,
  type Receipt,
  type ReceiptEvent,
  type ReceiptState,
  type ResultEvidence,
  TERMINAL_STATES,
} from "./receipt.js";
export type { Rejection, RejectionEvidence } from "./receipt-types.js";
