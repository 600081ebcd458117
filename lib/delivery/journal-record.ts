/**
 * The journal's record types (version 1) and their valibot schemas. A journal line is decoded as
 * `unknown` and only becomes a `JournalRecord` through `JournalRecordSchema` (docs/design/style.md habit 6).
 *
 * Every field is bounded so that any valid record fits in one line of at most MAX_LINE_BYTES
 * (codec.ts), even when every character of a detail string needs a 6-byte JSON escape.
 * Field names are short because a prompt costs four to six lines; their meaning is documented here.
 */
import * as v from "valibot";

export const RECORD_VERSION = 1;
/**
 * The version of the `settled` snapshot record. A release that knows only version 1 refuses a
 * journal holding one (codec.ts "unsupported-version": JOURNAL_FILE_UNSAFE) instead of
 * quarantining it as a corrupt tail, which would forget which prompt ids were used.
 */
export const SNAPSHOT_VERSION = 2;

/** Prompt and session ids: ASCII, as Grok's UUIDs are (docs/design/grok-leader-protocol.md §6). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** Leader and pane identities: printable ASCII (a ProcessIdentity value, a Herdr pane id). */
export const IDENTITY_PATTERN = /^[\x20-\x7e]{1,256}$/;
/** Informational detail strings are clipped to this many UTF-16 units before they are journaled. */
export const MAX_DETAIL_CHARS = 256;

const id = v.pipe(v.string(), v.regex(ID_PATTERN));
const identity = v.pipe(v.string(), v.regex(IDENTITY_PATTERN));
const time = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));
/**
 * Epochs are written up to Number.MAX_SAFE_INTEGER (`beginEpoch` refuses after it, EPOCH_EXHAUSTED)
 * and read up to 2^53: the one value above it an older release could write (max + 1 at the
 * ceiling, whose fsynced fences must not be quarantined for an epoch problem).
 */
const epoch = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2 ** 53));
const detail = v.exactOptional(v.pipe(v.string(), v.maxLength(MAX_DETAIL_CHARS)));
const version = v.literal(RECORD_VERSION);

/** How consumption was observed: our id among the queue entries, or as `runningPromptId` (§6 Queue). */
export const ConsumptionKind = v.picklist(["queue-entry", "running-prompt"]);
export type ConsumptionKind = v.InferOutput<typeof ConsumptionKind>;

/** The three final-result channels of docs/design/grok-leader-protocol.md §6 "Final result". */
export const ResultChannel = v.picklist(["rpc-response", "prompt-complete", "turn-completed"]);
export type ResultChannel = v.InferOutput<typeof ResultChannel>;

/** ACP stop reasons plus Grok's `rate_limit` / `error`; open-ended but bounded. */
export const STOP_REASON_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
export const StopReason = v.pipe(v.string(), v.regex(STOP_REASON_PATTERN));

/** How we asked to cancel: `x.ai/queue/remove` for a queued prompt, `session/cancel` for ours running. */
export const CancelHow = v.picklist(["queue-remove", "session-cancel"]);
export type CancelHow = v.InferOutput<typeof CancelHow>;

/**
 * Why a receipt is uncertain: the send itself failed; the connection was lost before consumption
 * evidence; or recovery found a fence with no dispatch evidence (`recovered-fenced`) or a dispatch
 * with no consumption evidence (`recovered-dispatched`): the old connection died with the old process.
 */
export const UncertainReason = v.picklist([
  "send-failed",
  "connection-lost",
  "recovered-fenced",
  "recovered-dispatched",
  // Grok answered our session/prompt without echoing our session and prompt id before any
  // consumption: it ran no turn (acp_agent.rs `prompt`, allowed_models excluding every model).
  "answered-without-turn",
]);
export type UncertainReason = v.InferOutput<typeof UncertainReason>;

/** A controller was admitted: `epoch` is one more than any epoch in the journal before it. */
export const EpochRecord = v.strictObject({
  v: version,
  t: v.literal("epoch"),
  epoch,
  pid: v.pipe(v.number(), v.integer(), v.minValue(1)),
  at: time,
});

/**
 * Written and fsynced before the prompt frame leaves. `sha256`/`len` describe the exact UTF-8 bytes
 * of the prompt text handed to the sender; `epoch` is the admitting controller's.
 */
export const FenceRecord = v.strictObject({
  v: version,
  t: v.literal("fence"),
  id,
  sid: id,
  leader: identity,
  pane: identity,
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  len: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2 ** 31)),
  epoch,
  at: time,
});

/** The sender reported the frame written. Not evidence that the leader read it. */
export const DispatchedRecord = v.strictObject({
  v: version,
  t: v.literal("dispatched"),
  id,
  at: time,
});

/** The leader consumed the prompt (queue or running). Consumption, not model awareness. */
export const ConsumedRecord = v.strictObject({
  v: version,
  t: v.literal("consumed"),
  id,
  at: time,
  kind: ConsumptionKind,
  detail,
});

/** A final result echoing our session and prompt id, with a stop reason other than `cancelled`. */
export const CompletedRecord = v.strictObject({
  v: version,
  t: v.literal("completed"),
  id,
  at: time,
  ch: ResultChannel,
  stop: StopReason,
  detail,
});

/** We asked the leader to cancel; no result yet. Never a completion. */
export const CancelSubmittedRecord = v.strictObject({
  v: version,
  t: v.literal("cancel-submitted"),
  id,
  at: time,
  how: CancelHow,
});

/**
 * A JSON-RPC error code as the wire carried it: any integer (JSON-RPC 2.0 §5.1). Every finite
 * double prints in at most 24 characters, so the record stays bounded whatever the peer sent.
 */
export const RpcErrorCode = v.pipe(v.number(), v.integer());
/** The wire error's `message`, clipped like a detail (see MAX_DETAIL_CHARS). */
const rpcMessage = v.pipe(v.string(), v.maxLength(MAX_DETAIL_CHARS));

/**
 * Grok answered our `session/prompt` with a JSON-RPC error before any consumption evidence: it
 * refused the prompt (docs/design/grok-leader-protocol.md §6, "Errors come back as JSON-RPC errors"), e.g. the
 * agent's -32602 `unknown session id` (`agent/mvp_agent/acp_agent.rs`, `prompt`) or the leader's
 * -32002 `leader_starting` (`leader/server.rs`, `make_leader_starting_error`). `code` and `msg` are
 * the error object's `code` and `message`, `detail` its `data` as text (clipped). `sid` is the
 * session the refused frame named (it must be the fence's). Terminal: never resent.
 */
export const PromptRejectedRecord = v.strictObject({
  v: version,
  t: v.literal("rejected"),
  id,
  sid: id,
  at: time,
  code: RpcErrorCode,
  msg: rpcMessage,
  detail,
});

/** A final result with stop reason `cancelled`. */
export const CancelledRecord = v.strictObject({
  v: version,
  t: v.literal("cancelled"),
  id,
  at: time,
  ch: ResultChannel,
  detail,
});

export const UncertainRecord = v.strictObject({
  v: version,
  t: v.literal("uncertain"),
  id,
  at: time,
  reason: UncertainReason,
  detail,
});

const ConsumptionEvidenceFields = v.strictObject({ kind: ConsumptionKind, detail });
const ResultEvidenceFields = v.strictObject({ ch: ResultChannel, stop: StopReason, detail });

/** Late evidence moved an `uncertain` receipt on: the original receipt, never a new prompt. */
export const ReconciledRecord = v.strictObject({
  v: version,
  t: v.literal("reconciled"),
  id,
  at: time,
  ev: v.union([ConsumptionEvidenceFields, ResultEvidenceFields]),
});

/**
 * Compaction dropped a finished receipt's records and kept only this: the prompt id stays known,
 * so it is still refused as a duplicate and late evidence for it is recognised as ours. Written by
 * earlier releases; read, and rewritten as `settled` records by the next compaction.
 */
export const CompactedRecord = v.strictObject({
  v: version,
  t: v.literal("compacted"),
  id,
  state: v.picklist(["completed", "cancelled", "rejected"]),
  at: time,
});

/** How a finished receipt ended: the states compaction reduces to a prompt id. */
export const SettledState = v.picklist(["completed", "cancelled", "rejected"]);
export type SettledState = v.InferOutput<typeof SettledState>;

/** A bound on the ids of one `settled` record; in practice the line limit (codec.ts) packs fewer. */
export const MAX_SETTLED_IDS = 4096;

/**
 * Compaction's snapshot of finished receipts (docs/design/decisions.md §5.7): the prompt
 * ids that ended in `state`, as many as fit one line. Like a `compacted` line for each id (still
 * refused as a duplicate, late evidence recognised as ours), at about a third of the bytes and a
 * hundredth of the lines to parse on reopen.
 */
export const SettledRecord = v.strictObject({
  v: v.literal(SNAPSHOT_VERSION),
  t: v.literal("settled"),
  state: SettledState,
  at: time,
  ids: v.pipe(v.array(id), v.minLength(1), v.maxLength(MAX_SETTLED_IDS)),
});

export const JournalRecordSchema = v.variant("t", [
  EpochRecord,
  FenceRecord,
  DispatchedRecord,
  ConsumedRecord,
  CompletedRecord,
  CancelSubmittedRecord,
  CancelledRecord,
  PromptRejectedRecord,
  UncertainRecord,
  ReconciledRecord,
  CompactedRecord,
  SettledRecord,
]);

export type EpochRecord = v.InferOutput<typeof EpochRecord>;
export type FenceRecord = v.InferOutput<typeof FenceRecord>;
export type DispatchedRecord = v.InferOutput<typeof DispatchedRecord>;
export type ConsumedRecord = v.InferOutput<typeof ConsumedRecord>;
export type CompletedRecord = v.InferOutput<typeof CompletedRecord>;
export type CancelSubmittedRecord = v.InferOutput<typeof CancelSubmittedRecord>;
export type CancelledRecord = v.InferOutput<typeof CancelledRecord>;
export type PromptRejectedRecord = v.InferOutput<typeof PromptRejectedRecord>;
export type UncertainRecord = v.InferOutput<typeof UncertainRecord>;
export type ReconciledRecord = v.InferOutput<typeof ReconciledRecord>;
export type CompactedRecord = v.InferOutput<typeof CompactedRecord>;
export type SettledRecord = v.InferOutput<typeof SettledRecord>;
export type JournalRecord = v.InferOutput<typeof JournalRecordSchema>;
/** Every record that belongs to one prompt's receipt. */
export type ReceiptRecord = Exclude<JournalRecord, EpochRecord | CompactedRecord | SettledRecord>;

/** Clip an informational string so a record stays bounded (see MAX_DETAIL_CHARS). */
export function clipDetail(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  if (s.length <= MAX_DETAIL_CHARS) return s;
  // Do not cut a surrogate pair in half: the journal line must stay well-formed UTF-8.
  let end = MAX_DETAIL_CHARS;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return s.slice(0, end);
}

/** What the caller fences (and `dispatch` sends). */
export interface FenceInput {
  readonly promptId: string;
  readonly sessionId: string;
  /** The leader's identity, e.g. `${ProcessIdentity.kind}:${ProcessIdentity.value}`. */
  readonly leader: string;
  /** The pane's identity, e.g. the Herdr pane id and terminal. */
  readonly pane: string;
  /** The exact prompt text; its UTF-8 bytes are hashed into the fence and handed to the sender. */
  readonly text: string;
}

/** With the `u` flag a surrogate pair is one code point; only a lone surrogate is category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;
/** Any surrogate code unit at all: a cheap pre-check, most prompts have none. */
const ANY_SURROGATE = /[\ud800-\udfff]/;

/** Why a fence input cannot be journaled (the bounds above), or null. */
export function fenceInputProblem(input: FenceInput): { field: string; why: string } | null {
  if (!ID_PATTERN.test(input.promptId))
    return { field: "promptId", why: `must match ${ID_PATTERN.source}` };
  if (!ID_PATTERN.test(input.sessionId))
    return { field: "sessionId", why: `must match ${ID_PATTERN.source}` };
  if (!IDENTITY_PATTERN.test(input.leader))
    return { field: "leader", why: "must be 1-256 printable ASCII characters" };
  if (!IDENTITY_PATTERN.test(input.pane))
    return { field: "pane", why: "must be 1-256 printable ASCII characters" };
  // A lone surrogate has no UTF-8 form: the bytes sent would not be the bytes hashed
  // (docs/design/reliability-plan.md §4, JSON edge cases).
  if (
    typeof input.text !== "string" ||
    (ANY_SURROGATE.test(input.text) && LONE_SURROGATE.test(input.text))
  ) {
    return { field: "text", why: "must be well-formed Unicode (no lone surrogates)" };
  }
  return null;
}
