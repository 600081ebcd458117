/**
 * What a JSON-RPC error answering our `session/prompt` does to a receipt (pure; the state machine
 * is receipt.ts, which calls `decideRejection` for a `rejected` event).
 *
 * Grok answers a `session/prompt` it will not run with a JSON-RPC error
 * (grok-leader-protocol.md §6, "Errors come back as JSON-RPC errors"): the agent's -32602
 * `unknown session id` for a session that is not resident, or an invalid `outputSchema` /
 * `toolOverrides` (`agent/mvp_agent/acp_agent.rs`, `prompt`, before `SessionCommand::Prompt`);
 * the leader's -32002 `leader_starting` before it is ready (`leader/server.rs`,
 * `make_leader_starting_error`). Such a refusal comes before any consumption evidence and is
 * terminal: the receipt becomes `rejected`, with the code, message and data, and is never resent.
 *
 * An error after the leader took the prompt is a failed turn instead: the agent first broadcasts
 * `x.ai/session/prompt_complete{stopReason:"error"|"rate_limit", agentResult}` and persists
 * `turn_completed{stop_reason:"error"}` (`session/turn_completion.rs`), then returns the error
 * (`acp_agent.rs`, `prompt`, the `Err(err)` arm; `sampling/error.rs`, `prompt_complete_fields`:
 * -32003 is `rate_limit`, any other code `error`). So with consumption evidence the error
 * completes the receipt with that stop reason over the `rpc-response` channel, or is the
 * duplicate of the `prompt_complete` that did.
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
