import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { clipDetail, type ReceiptRecord } from "../../lib/delivery/journal-record.js";
import {
  applyRecord,
  decide,
  isConsumed,
  isModelFinished,
  isTerminal,
  type Receipt,
  type ReceiptEvent,
  type ReceiptState,
} from "../../lib/delivery/receipt.js";
import { soakScaled } from "./claim-run.js";

const ID = "5f0c0000-0000-4000-8000-000000000001";
const SID = "0198c0de-0000-4000-8000-000000000001";

const fence: ReceiptRecord = {
  v: 1,
  t: "fence",
  id: ID,
  sid: SID,
  leader: "linux-pidfs:b:1",
  pane: "herdr:p",
  sha256: "b".repeat(64),
  len: 5,
  epoch: 1,
  at: 1,
};

function build(records: readonly ReceiptRecord[]): Receipt {
  let r: Receipt | undefined;
  for (const rec of records) {
    const next = applyRecord(r, rec);
    if (!next.ok) throw new Error(`fixture: ${next.reason}`);
    r = next.receipt;
  }
  if (r === undefined) throw new Error("fixture: empty");
  return r;
}

const d = (at: number): ReceiptRecord => ({ v: 1, t: "dispatched", id: ID, at });
const c = (at: number): ReceiptRecord => ({ v: 1, t: "consumed", id: ID, at, kind: "queue-entry" });
const rej = (at: number, sid = SID): ReceiptRecord => ({
  v: 1,
  t: "rejected",
  id: ID,
  sid,
  at,
  code: -32602,
  msg: "Invalid params",
  detail: "unknown session id",
});

const inState: Record<ReceiptState, Receipt> = {
  fenced: build([fence]),
  dispatched: build([fence, d(2)]),
  consumed: build([fence, d(2), c(3)]),
  "cancel-submitted": build([
    fence,
    d(2),
    c(3),
    { v: 1, t: "cancel-submitted", id: ID, at: 4, how: "session-cancel" },
  ]),
  completed: build([
    fence,
    d(2),
    c(3),
    { v: 1, t: "completed", id: ID, at: 4, ch: "rpc-response", stop: "end_turn" },
  ]),
  cancelled: build([
    fence,
    d(2),
    c(3),
    { v: 1, t: "cancelled", id: ID, at: 4, ch: "prompt-complete" },
  ]),
  uncertain: build([
    fence,
    d(2),
    { v: 1, t: "uncertain", id: ID, at: 3, reason: "connection-lost" },
  ]),
  rejected: build([fence, d(2), rej(3)]),
};

const events: Record<string, ReceiptEvent> = {
  dispatched: { type: "dispatched" },
  consumed: {
    type: "consumed",
    evidence: { promptId: ID, sessionId: SID, kind: "running-prompt" },
  },
  end_turn: {
    type: "result",
    evidence: { promptId: ID, sessionId: SID, channel: "turn-completed", stopReason: "end_turn" },
  },
  cancelled: {
    type: "result",
    evidence: { promptId: ID, sessionId: SID, channel: "rpc-response", stopReason: "cancelled" },
  },
  cancel: { type: "cancel-submitted", how: "queue-remove" },
  uncertain: { type: "uncertain", reason: "send-failed" },
  // A JSON-RPC error answering our session/prompt (a refusal, or a failed turn after consumption).
  rpc_error: {
    type: "rejected",
    evidence: {
      promptId: ID,
      sessionId: SID,
      code: -32602,
      message: "Invalid params",
      detail: "unknown session id",
    },
  },
};

// "applied:x" / "reconciled:x" = journal a record, next state x; otherwise the ignore/illegal kind.
const table: Record<ReceiptState, Record<string, string>> = {
  fenced: {
    dispatched: "applied:dispatched",
    consumed: "applied:consumed",
    end_turn: "applied:completed",
    cancelled: "applied:cancelled",
    cancel: "illegal",
    uncertain: "applied:uncertain",
    rpc_error: "illegal",
  },
  dispatched: {
    dispatched: "duplicate",
    consumed: "applied:consumed",
    end_turn: "applied:completed",
    cancelled: "applied:cancelled",
    cancel: "illegal",
    uncertain: "applied:uncertain",
    rpc_error: "applied:rejected",
  },
  consumed: {
    dispatched: "stale",
    consumed: "duplicate",
    end_turn: "applied:completed",
    cancelled: "applied:cancelled",
    cancel: "applied:cancel-submitted",
    uncertain: "illegal",
    rpc_error: "applied:completed",
  },
  "cancel-submitted": {
    dispatched: "stale",
    consumed: "stale",
    end_turn: "applied:completed",
    cancelled: "applied:cancelled",
    cancel: "duplicate",
    uncertain: "illegal",
    rpc_error: "applied:completed",
  },
  completed: {
    dispatched: "stale",
    consumed: "stale",
    end_turn: "duplicate",
    cancelled: "conflict",
    cancel: "illegal",
    uncertain: "illegal",
    rpc_error: "conflict",
  },
  cancelled: {
    dispatched: "stale",
    consumed: "stale",
    end_turn: "conflict",
    cancelled: "duplicate",
    cancel: "illegal",
    uncertain: "illegal",
    rpc_error: "conflict",
  },
  uncertain: {
    dispatched: "stale",
    consumed: "reconciled:consumed",
    end_turn: "reconciled:completed",
    cancelled: "reconciled:cancelled",
    cancel: "illegal",
    uncertain: "duplicate",
    rpc_error: "stale",
  },
  rejected: {
    dispatched: "stale",
    consumed: "conflict",
    end_turn: "conflict",
    cancelled: "conflict",
    cancel: "illegal",
    uncertain: "illegal",
    rpc_error: "duplicate",
  },
};

test("the transition table: every state x every event", () => {
  let n = 0;
  assert.equal(Object.keys(table).sort(), Object.keys(inState).sort(), "every state has a row");
  for (const [state, row] of Object.entries(table) as [ReceiptState, Record<string, string>][]) {
    assert.equal(Object.keys(row).sort(), Object.keys(events).sort(), `${state}: every event`);
    for (const [name, expected] of Object.entries(row)) {
      const r = inState[state];
      const ev = events[name];
      if (ev === undefined) throw new Error(name);
      const got = decide(r, ev, 100);
      n++;
      if (got.kind === "record") {
        const next = applyRecord(r, got.record);
        assert.ok(next.ok, `${state} + ${name}: decided record does not apply`);
        if (next.ok)
          assert.is(`${got.outcome}:${next.receipt.state}`, expected, `${state} + ${name}`);
      } else if (got.kind === "ignore") {
        assert.is(got.outcome, expected, `${state} + ${name}`);
      } else {
        assert.is("illegal", expected, `${state} + ${name}`);
        assert.is(got.from, state);
      }
    }
  }
  console.log(`receipt: ${n} (state, event) pairs match the table`);
});

test("evidence naming another session is never applied", () => {
  for (const r of Object.values(inState)) {
    const wrong = { promptId: ID, sessionId: "other-session", kind: "queue-entry" as const };
    assert.equal(decide(r, { type: "consumed", evidence: wrong }, 9), {
      kind: "ignore",
      outcome: "session-mismatch",
    });
    const res = {
      promptId: ID,
      sessionId: "other-session",
      channel: "rpc-response" as const,
      stopReason: "end_turn",
    };
    assert.equal(decide(r, { type: "result", evidence: res }, 9), {
      kind: "ignore",
      outcome: "session-mismatch",
    });
    const refusal = { promptId: ID, sessionId: "other-session", code: -32602, message: "x" };
    assert.equal(decide(r, { type: "rejected", evidence: refusal }, 9), {
      kind: "ignore",
      outcome: "session-mismatch",
    });
  }
});

test("consumed and model-finished are named apart; reconciliation keeps the uncertainty as history", () => {
  assert.is(isConsumed(inState.dispatched), false);
  assert.is(isConsumed(inState.consumed), true);
  assert.is(isModelFinished(inState.consumed), false);
  assert.is(isModelFinished(inState.completed), true);
  assert.is(
    isModelFinished(inState["cancel-submitted"]),
    false,
    "cancel asked is not a completion",
  );
  const late = decide(inState.uncertain, events.end_turn as ReceiptEvent, 50);
  assert.is(late.kind, "record");
  if (late.kind !== "record") return;
  assert.is(late.record.t, "reconciled");
  const next = applyRecord(inState.uncertain, late.record);
  assert.ok(next.ok);
  if (!next.ok) return;
  assert.is(next.receipt.promptId, ID, "the original receipt");
  assert.is(next.receipt.result?.reconciled, true);
  assert.is(next.receipt.result?.channel, "turn-completed");
  assert.is(next.receipt.uncertainty?.reason, "connection-lost");
  assert.is(isConsumed(next.receipt), true);
});

test("records that no controller writes in that order are rejected by applyRecord", () => {
  const bad: [ReceiptState | "none", ReceiptRecord][] = [
    ["none", d(2)],
    ["fenced", fence],
    ["dispatched", d(3)],
    ["completed", { v: 1, t: "uncertain", id: ID, at: 9, reason: "connection-lost" }],
    ["consumed", { v: 1, t: "reconciled", id: ID, at: 9, ev: { kind: "queue-entry" } }],
    ["dispatched", { v: 1, t: "cancel-submitted", id: ID, at: 9, how: "queue-remove" }],
    ["uncertain", { v: 1, t: "completed", id: ID, at: 9, ch: "rpc-response", stop: "end_turn" }],
    // A refusal only answers a dispatched frame, before consumption, and names the fence's session.
    ["fenced", rej(9)],
    ["consumed", rej(9)],
    ["uncertain", rej(9)],
    ["rejected", rej(9)],
    ["dispatched", rej(9, "0198c0de-0000-4000-8000-0000000000ff")],
    ["rejected", d(9)],
    ["rejected", { v: 1, t: "completed", id: ID, at: 9, ch: "rpc-response", stop: "end_turn" }],
  ];
  for (const [state, rec] of bad) {
    const got = applyRecord(state === "none" ? undefined : inState[state], rec);
    assert.is(got.ok, false, `${rec.t} after ${state}`);
  }
});

test("property: any event sequence keeps decide and applyRecord consistent", () => {
  const eventArb = fc.constantFrom(...Object.values(events));
  const runs = soakScaled(2_000, 50_000);
  fc.assert(
    fc.property(fc.array(eventArb, { maxLength: 12 }), (seq) => {
      let r = inState.fenced;
      let at = 10;
      for (const ev of seq) {
        const got = decide(r, ev, at++);
        if (got.kind !== "record") continue;
        const next = applyRecord(r, got.record);
        assert.ok(next.ok);
        if (next.ok) r = next.receipt;
      }
      // Nothing but a final result ever marks the model finished.
      if (isModelFinished(r)) assert.ok(r.state === "completed" || r.state === "cancelled");
      // A refusal is never consumption, never a result, and always says why.
      if (r.state === "rejected") {
        assert.is(isConsumed(r), false);
        assert.is(r.result, null);
        assert.is(r.rejection?.code, -32602);
      } else assert.is(r.rejection, null);
    }),
    { numRuns: runs },
  );
});

test("a refusal is terminal and says why; after consumption the same error is a failed turn", () => {
  const refused = inState.rejected;
  assert.ok(isTerminal(refused.state));
  assert.is(isConsumed(refused), false, "refused, not taken");
  assert.is(isModelFinished(refused), false, "no turn ran");
  assert.equal(refused.rejection, {
    code: -32602,
    message: "Invalid params",
    detail: "unknown session id",
    at: 3,
  });
  // After consumption: Grok's prompt_complete maps -32003 to rate_limit, anything else to error.
  const failed = (code: number, stopReason?: string) => {
    const evidence = { promptId: ID, sessionId: SID, code, message: "Rate limited" };
    const got = decide(
      inState.consumed,
      {
        type: "rejected",
        evidence: stopReason === undefined ? evidence : { ...evidence, stopReason },
      },
      7,
    );
    if (got.kind !== "record") throw new Error(`expected a record, got ${got.kind}`);
    const next = applyRecord(inState.consumed, got.record);
    if (!next.ok) throw new Error(next.reason);
    return next.receipt;
  };
  const rl = failed(-32003, "rate_limit");
  assert.is(rl.state, "completed");
  assert.is(rl.result?.stopReason, "rate_limit");
  assert.is(rl.result?.channel, "rpc-response");
  assert.is(rl.result?.detail, "session/prompt error -32003: Rate limited");
  assert.is(rl.rejection, null);
  assert.is(failed(-32603).result?.stopReason, "error", "default stop reason");
  assert.is(failed(-32603, "Not A Token").result?.stopReason, "error", "unjournalable stop reason");
  // The agent's prompt_complete(error) comes first; the JSON-RPC error after it is its duplicate.
  const viaNotice = build([
    fence,
    d(2),
    c(3),
    { v: 1, t: "completed", id: ID, at: 4, ch: "prompt-complete", stop: "error" },
  ]);
  assert.equal(decide(viaNotice, events.rpc_error as ReceiptEvent, 5), {
    kind: "ignore",
    outcome: "duplicate",
  });
  // A long message and data are clipped so the record stays bounded.
  const long = decide(
    inState.dispatched,
    {
      type: "rejected",
      evidence: {
        promptId: ID,
        sessionId: SID,
        code: 1,
        message: "m".repeat(999),
        detail: "d".repeat(999),
      },
    },
    6,
  );
  assert.ok(long.kind === "record" && long.record.t === "rejected");
  if (long.kind === "record" && long.record.t === "rejected") {
    assert.is(long.record.msg.length, 256);
    assert.is(long.record.detail?.length, 256);
  }
});

test("clipDetail bounds details without splitting a surrogate pair", () => {
  assert.is(clipDetail(undefined), undefined);
  assert.is(clipDetail("short"), "short");
  const s = `${"x".repeat(255)}😀tail`;
  const clipped = clipDetail(s) ?? "";
  assert.is(clipped.length, 255);
  assert.not.match(clipped, /[\ud800-\udbff]$/);
});

test.run();
