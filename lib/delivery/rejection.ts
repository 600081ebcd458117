/**
 * What a JSON-RPC error answering our `session/prompt` does to a receipt (pure; receipt.ts calls
 * `decideRejection` for a `rejected` event): before consumption evidence a terminal refusal,
 * after it a failed turn with Grok's own stop reason (docs/design/decisions.md §4.4;
 * docs/design/grok-leader-protocol.md §6).
 */
import { clipDetail, STOP_REASON_PATTERN } from "./journal-record.js";
import type { Decision, Receipt, RejectionEvidence } from "./receipt-types.js";

/** The stop reasons Grok gives a turn that ended in an error (`sampling/error.rs`). */
const ERROR_STOP_REASONS: ReadonlySet<string> = new Set(["error", "rate_limit"]);

/** Decide what a JSON-RPC error answering our `session/prompt` does (see the file comment). */
export function decideRejection(r: Receipt, e: RejectionEvidence, at: number): Decision {
  if (e.sessionId !== r.sessionId) return { kind: "ignore", outcome: "session-mismatch" };
  const id = r.promptId;
  const message = clipDetail(e.message) ?? "";
  const detail = clipDetail(e.detail);
  switch (r.state) {
    case "dispatched": {
      const extra = detail === undefined ? {} : { detail };
      return {
        kind: "record",
        outcome: "applied",
        record: {
          v: 1,
          t: "rejected",
          id,
          sid: r.sessionId,
          at,
          code: e.code,
          msg: message,
          ...extra,
        },
      };
    }
    case "consumed":
    case "cancel-submitted": {
      const stop =
        e.stopReason !== undefined && STOP_REASON_PATTERN.test(e.stopReason)
          ? e.stopReason
          : "error";
      const text = clipDetail(
        `session/prompt error ${e.code}: ${message}${detail === undefined ? "" : ` (${detail})`}`,
      );
      const extra = text === undefined ? {} : { detail: text };
      return {
        kind: "record",
        outcome: "applied",
        record: { v: 1, t: "completed", id, at, ch: "rpc-response", stop, ...extra },
      };
    }
    case "fenced":
      return {
        kind: "illegal",
        from: r.state,
        reason: "a refusal answers a written frame: the receipt must be dispatched first",
      };
    case "uncertain":
      // Only a live connection carries an answer, and an uncertain receipt's connection is gone
      // (or its send failed): nothing to apply. Late evidence reconciles it from Grok's record.
      return { kind: "ignore", outcome: "stale" };
    case "rejected":
      return { kind: "ignore", outcome: "duplicate" };
    case "completed":
      return {
        kind: "ignore",
        outcome: ERROR_STOP_REASONS.has(r.result?.stopReason ?? "") ? "duplicate" : "conflict",
      };
    case "cancelled":
      return { kind: "ignore", outcome: "conflict" };
  }
}
