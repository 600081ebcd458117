/**
 * The data of the receipt state machine (receipt.ts): a receipt, its states, the evidence and
 * events that move it, and the decision `decide` returns. Types only, so the state machine and its
 * refusal rule (rejection.ts) both build on them without importing each other.
 */
import type {
  CancelHow,
  ConsumptionKind,
  ReceiptRecord,
  ResultChannel,
  UncertainReason,
} from "./journal-record.js";

export type ReceiptState =
  | "fenced"
  | "dispatched"
  | "consumed"
  | "completed"
  | "cancel-submitted"
  | "cancelled"
  | "uncertain"
  /** Grok refused the prompt with a JSON-RPC error before taking it (`Receipt.rejection`). */
  | "rejected";

export interface Consumption {
  readonly kind: ConsumptionKind;
  readonly detail: string | null;
  readonly at: number;
  /** True when this evidence reconciled an uncertain receipt. */
  readonly reconciled: boolean;
}

export interface FinalResult {
  readonly channel: ResultChannel;
  readonly stopReason: string;
  readonly detail: string | null;
  readonly at: number;
  readonly reconciled: boolean;
}

export interface Receipt {
  readonly promptId: string;
  readonly sessionId: string;
  readonly leader: string;
  readonly pane: string;
  readonly textSha256: string;
  readonly textBytes: number;
  /** The admission epoch of the controller that fenced it. */
  readonly epoch: number;
  readonly fencedAt: number;
  readonly state: ReceiptState;
  readonly dispatchedAt: number | null;
  /** The leader took the prompt. Consumption, not model awareness. */
  readonly consumption: Consumption | null;
  /** The model finished: a final result echoing our session and prompt id. */
  readonly result: FinalResult | null;
  readonly cancelRequest: { readonly how: CancelHow; readonly at: number } | null;
  /** The last time the receipt became uncertain; kept after reconciliation as history. */
  readonly uncertainty: {
    readonly reason: UncertainReason;
    readonly detail: string | null;
    readonly at: number;
  } | null;
  /** Grok refused the prompt (state `rejected`): the wire error, durable. Null otherwise. */
  readonly rejection: Rejection | null;
}

/** Evidence that the leader consumed a prompt (its id in `x.ai/queue/changed`). */
export interface ConsumptionEvidence {
  readonly promptId: string;
  readonly sessionId: string;
  readonly kind: ConsumptionKind;
  readonly detail?: string;
}

/** A final result from one of the three channels; it must echo our session and prompt id. */
export interface ResultEvidence {
  readonly promptId: string;
  readonly sessionId: string;
  readonly channel: ResultChannel;
  readonly stopReason: string;
  readonly detail?: string;
}

export type ReceiptEvent =
  | { readonly type: "dispatched" }
  | { readonly type: "consumed"; readonly evidence: ConsumptionEvidence }
  | { readonly type: "result"; readonly evidence: ResultEvidence }
  | { readonly type: "rejected"; readonly evidence: RejectionEvidence }
  | { readonly type: "cancel-submitted"; readonly how: CancelHow }
  | { readonly type: "uncertain"; readonly reason: UncertainReason; readonly detail?: string };

/** What happened to a piece of evidence that was not journaled. */
export type IgnoredOutcome =
  | "duplicate" // the receipt already shows this (e.g. the second of three result channels)
  | "stale" // the receipt is already past this (e.g. queue evidence after the result)
  | "conflict" // disagrees with the recorded end (completed vs cancelled; anything after a refusal)
  | "session-mismatch"; // the evidence names another session: not ours, never applied

export type Decision =
  | {
      readonly kind: "record";
      readonly record: ReceiptRecord;
      readonly outcome: "applied" | "reconciled";
    }
  | { readonly kind: "ignore"; readonly outcome: IgnoredOutcome }
  | { readonly kind: "illegal"; readonly from: ReceiptState; readonly reason: string };

/** Why Grok refused a prompt: the JSON-RPC error object of its `session/prompt` answer. */
export interface Rejection {
  /** The error's `code` (e.g. -32602 invalid params, -32002 `leader_starting`). */
  readonly code: number;
  /** The error's `message` (clipped to MAX_DETAIL_CHARS). */
  readonly message: string;
  /** The error's `data` as text (e.g. "unknown session id"), clipped; null when it had none. */
  readonly detail: string | null;
  readonly at: number;
}

/**
 * A JSON-RPC error answering our `session/prompt` (correlated by request id, so it is ours). A
 * refusal while the receipt awaits consumption; a failed turn once consumption was seen.
 */
export interface RejectionEvidence {
  readonly promptId: string;
  /** The session our `session/prompt` named. */
  readonly sessionId: string;
  /** The error's `code`: an integer. */
  readonly code: number;
  readonly message: string;
  /** The error's `data` as text, if any. */
  readonly detail?: string;
  /**
   * The stop reason this error means if the turn had already started: what Grok's
   * `prompt_complete` reports for it (`rate_limit` for -32003, else `error`). Default `error`.
   */
  readonly stopReason?: string;
}
