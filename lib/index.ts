/**
 * grok-seat: a proven native channel from an orchestrator into a visible Grok Build session in a
 * Herdr pane (ADR 0224 (docs/design/adr-0224.md)). This root entry is the seat API: `hire()` launches the visible
 * `grok --leader` TUI through Herdr, proves every fact against the kernel, connects once and
 * returns a ready `Seat` to `deliver()` to, or refuses with a `SeatRefusal` naming the step, the
 * failed check and the owner's next step. The layers underneath have entry points of their own:
 * grok-seat/kernel, /proof, /herdr, /leader, /acp and /mcp (lib/entry/).
 *
 * Importing it never loads the native addon (the first kernel call does) nor lib/mcp and its SDK
 * (scripts/check-layers.mjs fails the check if anything under it would).
 */

// ── Deliveries: receipts, replies and what the owner is asked ──────────────────────────────
export type { Delivery, TranscriptQuery } from "./acp/acp-session.js";
export type { OwnerAction } from "./acp/owner-actions.js";
export type { PromptUsage, Reply, ReplyToolCall } from "./acp/replies.js";
// ── Errors and values ───────────────────────────────────────────────────────────────────────
export type { CheckResult } from "./check.js";
// From the receipt module itself: delivery/index.js would load the journal and its recovery.
export {
  isConsumed,
  isModelFinished,
  isTerminal,
  type Receipt,
  type ReceiptState,
  TERMINAL_STATES,
} from "./delivery/receipt.js";
export type { Rejection } from "./delivery/receipt-types.js";
export {
  failureOf,
  failureOr,
  GrokSeatError,
  isErrorCode,
  UsageError,
  WireError,
  type WirePeer,
} from "./errors.js";
// The login file's name from Grok's own module: seat/profile.js reaches the kernel layer (issue 19).
export { LOGIN_FILE as LOGIN_FILE_NAME } from "./grok/login.js";
// ── Transcripts: live entries, pages, the stored file ──────────────────────────────────────
export {
  type NativeTranscript,
  nativeTranscriptPath,
  type ReadNativeTranscriptOptions,
  readNativeTranscript,
  type UnreadableLine,
} from "./grok/native-transcript.js";
export type { OwnerGate } from "./grok/owner-gates.js";
export {
  TRANSCRIPT_ENTRY_MAX_CHARS,
  TRANSCRIPT_ENTRY_VERSION,
  type TranscriptEntry,
} from "./grok/transcript-entry.js";
export type { TranscriptPage } from "./grok/transcript-page.js";
export { TranscriptReconciler } from "./grok/transcript-reconcile.js";
export type { JsonValue } from "./json.js";
// ── Hire, resume, the seat ─────────────────────────────────────────────────────────────────
export { type HireOptions, type HireTimeouts, hire, type PanePlacement } from "./seat/hire.js";
export {
  HIRE_STEPS,
  type HireEvent,
  type HireListener,
  type HireStep,
  type OwnerActionWait,
  type SeatStep,
} from "./seat/hire-events.js";
export type { Profile, ProfileSpec } from "./seat/profile.js";
export {
  ownerStepFor,
  type SeatOwnCode,
  SeatRefusal,
  type SeatRefusalCode,
} from "./seat/refusal.js";
export { type RegisteredSeat, SeatRegistry, type WorkerClaim } from "./seat/registry.js";
export type { ReleaseReason } from "./seat/release-policy.js";
export { type ResumeOptions, resume, resumeChecks } from "./seat/resume.js";
export {
  defaultSeatRegistry,
  type LeaderAction,
  type ReleaseOptions,
  type ReleaseReport,
  Seat,
  type SeatEvent,
} from "./seat/seat.js";
// ── Seat records ────────────────────────────────────────────────────────────────────────────
export {
  readSeatRecord,
  SEAT_RECORD_KIND,
  SEAT_RECORD_VERSION,
  type SeatRecord,
  SeatRecordSchema,
  writeSeatRecord,
} from "./seat/seat-record.js";
export type { SkillEntry } from "./seat/skills.js";
export { verifyRecord } from "./seat/verify-record-entry.js";
export type { RecordVerification } from "./seat/verify-seat-record.js";
