/**
 * The receipt state machine (pure): a receipt is one prompt we fenced, and it moves only on
 * evidence (docs/design/decisions.md §4.1). `decide` turns an event into the record to journal, or
 * a named reason not to; `applyRecord` is the one transition function, for live appends and replay
 * alike. Terminal: completed, cancelled, rejected; `uncertain` is never resent.
 */
import {
  clipDetail,
  type FenceRecord,
  type ReceiptRecord,
  type ResultChannel,
} from "./journal-record.js";
import type {
  Consumption,
  Decision,
  FinalResult,
  Receipt,
  ReceiptEvent,
  ReceiptState,
} from "./receipt-types.js";
import { decideRejection } from "./rejection.js";

export type {
  Consumption,
  ConsumptionEvidence,
  Decision,
  FinalResult,
  IgnoredOutcome,
  Receipt,
  ReceiptEvent,
  ReceiptState,
  Rejection,
  RejectionEvidence,
  ResultEvidence,
} from "./receipt-types.js";

export const TERMINAL_STATES: ReadonlySet<ReceiptState> = new Set([
  "completed",
  "cancelled",
  "rejected",
]);

/** Which record types may follow which state (the one transition table). */
const ALLOWED: Readonly<Record<ReceiptRecord["t"], readonly ReceiptState[]>> = {
  fence: [],
  dispatched: ["fenced"],
  consumed: ["fenced", "dispatched"],
  completed: ["fenced", "dispatched", "consumed", "cancel-submitted"],
  cancelled: ["fenced", "dispatched", "consumed", "cancel-submitted"],
  "cancel-submitted": ["consumed"],
  rejected: ["dispatched"],
  uncertain: ["fenced", "dispatched"],
  reconciled: ["uncertain"],
};

export function isTerminal(state: ReceiptState): boolean {
  return TERMINAL_STATES.has(state);
}

/** The leader took the prompt (queue entry, runningPromptId, or any final result). Not awareness. */
export function isConsumed(r: Receipt): boolean {
  return r.consumption !== null || r.result !== null;
}

/** The model finished the turn: a final result (completed or cancelled). A refusal is not. */
export function isModelFinished(r: Receipt): boolean {
  return r.result !== null;
}

export function receiptFromFence(f: FenceRecord): Receipt {
  return {
    promptId: f.id,
    sessionId: f.sid,
    leader: f.leader,
    pane: f.pane,
    textSha256: f.sha256,
    textBytes: f.len,
    epoch: f.epoch,
    fencedAt: f.at,
    state: "fenced",
    dispatchedAt: null,
    consumption: null,
    result: null,
    cancelRequest: null,
    uncertainty: null,
    rejection: null,
  };
}

function resultFrom(
  ch: ResultChannel,
  stop: string,
  detail: string | undefined,
  at: number,
  reconciled: boolean,
): FinalResult {
  return { channel: ch, stopReason: stop, detail: detail ?? null, at, reconciled };
}

/**
 * Apply one journaled record. Returns the next receipt, or a reason when the record is not a legal
 * move from the current state (a record sequence no single controller writes).
 */
export function applyRecord(
  current: Receipt | undefined,
  record: ReceiptRecord,
): { ok: true; receipt: Receipt } | { ok: false; reason: string } {
  if (record.t === "fence") {
    return current === undefined
      ? { ok: true, receipt: receiptFromFence(record) }
      : { ok: false, reason: "a receipt with this prompt id already exists" };
  }
  if (current === undefined) return { ok: false, reason: "no fence for this prompt id" };
  if (!ALLOWED[record.t].includes(current.state)) {
    return { ok: false, reason: `${record.t} is not allowed in state ${current.state}` };
  }
  const r = current;
  switch (record.t) {
    case "dispatched":
      return { ok: true, receipt: { ...r, state: "dispatched", dispatchedAt: record.at } };
    case "consumed":
      return {
        ok: true,
        receipt: {
          ...r,
          state: "consumed",
          consumption: {
            kind: record.kind,
            detail: record.detail ?? null,
            at: record.at,
            reconciled: false,
          },
        },
      };
    case "completed":
      return {
        ok: true,
        receipt: {
          ...r,
          state: "completed",
          result: resultFrom(record.ch, record.stop, record.detail, record.at, false),
        },
      };
    case "cancelled":
      return {
        ok: true,
        receipt: {
          ...r,
          state: "cancelled",
          result: resultFrom(record.ch, "cancelled", record.detail, record.at, false),
        },
      };
    case "rejected":
      if (record.sid !== r.sessionId) {
        return { ok: false, reason: "the refusal names another session than the fence" };
      }
      return {
        ok: true,
        receipt: {
          ...r,
          state: "rejected",
          rejection: {
            code: record.code,
            message: record.msg,
            detail: record.detail ?? null,
            at: record.at,
          },
        },
      };
    case "cancel-submitted":
      return {
        ok: true,
        receipt: {
          ...r,
          state: "cancel-submitted",
          cancelRequest: { how: record.how, at: record.at },
        },
      };
    case "uncertain":
      return {
        ok: true,
        receipt: {
          ...r,
          state: "uncertain",
          uncertainty: { reason: record.reason, detail: record.detail ?? null, at: record.at },
        },
      };
    case "reconciled": {
      const ev = record.ev;
      if ("kind" in ev) {
        const consumption: Consumption = {
          kind: ev.kind,
          detail: ev.detail ?? null,
          at: record.at,
          reconciled: true,
        };
        return { ok: true, receipt: { ...r, state: "consumed", consumption } };
      }
      const result = resultFrom(ev.ch, ev.stop, ev.detail, record.at, true);
      return {
        ok: true,
        receipt: { ...r, state: ev.stop === "cancelled" ? "cancelled" : "completed", result },
      };
    }
  }
}

/** Only `fenced` and `dispatched` receipts are still waiting for the leader to take them. */
function awaitingConsumption(state: ReceiptState): boolean {
  return state === "fenced" || state === "dispatched";
}

/** Decide what an event does to a receipt, and the record that journals it. Pure. */
export function decide(r: Receipt, event: ReceiptEvent, at: number): Decision {
  const id = r.promptId;
  switch (event.type) {
    case "dispatched":
      if (r.state === "fenced")
        return { kind: "record", outcome: "applied", record: { v: 1, t: "dispatched", id, at } };
      return { kind: "ignore", outcome: r.state === "dispatched" ? "duplicate" : "stale" };
    case "consumed": {
      const e = event.evidence;
      if (e.sessionId !== r.sessionId) return { kind: "ignore", outcome: "session-mismatch" };
      const detail = clipDetail(e.detail);
      const ev = detail === undefined ? { kind: e.kind } : { kind: e.kind, detail };
      if (awaitingConsumption(r.state)) {
        return {
          kind: "record",
          outcome: "applied",
          record: { v: 1, t: "consumed", id, at, ...ev },
        };
      }
      if (r.state === "uncertain") {
        return {
          kind: "record",
          outcome: "reconciled",
          record: { v: 1, t: "reconciled", id, at, ev },
        };
      }
      return {
        kind: "ignore",
        outcome:
          r.state === "consumed" ? "duplicate" : r.state === "rejected" ? "conflict" : "stale",
      };
    }
    case "result": {
      const e = event.evidence;
      if (e.sessionId !== r.sessionId) return { kind: "ignore", outcome: "session-mismatch" };
      const cancelled = e.stopReason === "cancelled";
      const detail = clipDetail(e.detail);
      const extra = detail === undefined ? {} : { detail };
      if (isTerminal(r.state)) {
        const same = r.state !== "rejected" && (r.state === "cancelled") === cancelled;
        return { kind: "ignore", outcome: same ? "duplicate" : "conflict" };
      }
      if (r.state === "uncertain") {
        const ev = { ch: e.channel, stop: e.stopReason, ...extra };
        return {
          kind: "record",
          outcome: "reconciled",
          record: { v: 1, t: "reconciled", id, at, ev },
        };
      }
      const record: ReceiptRecord = cancelled
        ? { v: 1, t: "cancelled", id, at, ch: e.channel, ...extra }
        : { v: 1, t: "completed", id, at, ch: e.channel, stop: e.stopReason, ...extra };
      return { kind: "record", outcome: "applied", record };
    }
    case "rejected":
      return decideRejection(r, event.evidence, at);
    case "cancel-submitted":
      if (r.state === "consumed") {
        return {
          kind: "record",
          outcome: "applied",
          record: { v: 1, t: "cancel-submitted", id, at, how: event.how },
        };
      }
      if (r.state === "cancel-submitted") return { kind: "ignore", outcome: "duplicate" };
      return {
        kind: "illegal",
        from: r.state,
        reason:
          r.state === "rejected"
            ? "Grok refused the prompt: there is nothing to cancel"
            : isTerminal(r.state)
              ? "the prompt already has a final result"
              : "cancel only what the leader has consumed (queue entry or runningPromptId): no consumption evidence yet",
      };
    case "uncertain": {
      if (awaitingConsumption(r.state)) {
        const detail = clipDetail(event.detail);
        const extra = detail === undefined ? {} : { detail };
        return {
          kind: "record",
          outcome: "applied",
          record: { v: 1, t: "uncertain", id, at, reason: event.reason, ...extra },
        };
      }
      if (r.state === "uncertain") return { kind: "ignore", outcome: "duplicate" };
      return {
        kind: "illegal",
        from: r.state,
        reason:
          r.state === "rejected"
            ? "Grok refused the prompt: it is not uncertain"
            : "the leader already consumed the prompt: it is not uncertain",
      };
    }
  }
}
