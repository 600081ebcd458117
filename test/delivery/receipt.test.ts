import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  applyRecord,
  decide,
  isConsumed,
  isModelFinished,
  type Receipt,
  type ReceiptEvent,
  type ReceiptState,
} from "../../lib/delivery/receipt.js";
import { clipDetail, type ReceiptRecord } from "../../lib/delivery/record.js";

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
  },
  dispatched: {
    dispatched: "duplicate",
    consumed: "applied:consumed",
    end_turn: "applied:completed",
    cancelled: "applied:cancelled",
    cancel: "illegal",
    uncertain: "applied:uncertain",
  },
  consumed: {
    dispatched: "stale",
    consumed: "duplicate",
    end_turn: "applied:completed",
    cancelled: "applied:cancelled",
    cancel: "applied:cancel-submitted",
    uncertain: "illegal",
  },
  "cancel-submitted": {
    dispatched: "stale",
    consumed: "stale",
    end_turn: "applied:completed",
    cancelled: "applied:cancelled",
    cancel: "duplicate",
    uncertain: "illegal",
  },
  completed: {
    dispatched: "stale",
    consumed: "stale",
    end_turn: "duplicate",
    cancelled: "conflict",
    cancel: "illegal",
    uncertain: "illegal",
  },
  cancelled: {
    dispatched: "stale",
    consumed: "stale",
    end_turn: "conflict",
    cancelled: "duplicate",
    cancel: "illegal",
    uncertain: "illegal",
  },
  uncertain: {
    dispatched: "stale",
    consumed: "reconciled:consumed",
    end_turn: "reconciled:completed",
    cancelled: "reconciled:cancelled",
    cancel: "illegal",
    uncertain: "duplicate",
  },
};

test("the transition table: every state x every event", () => {
  let n = 0;
  for (const [state, row] of Object.entries(table) as [ReceiptState, Record<string, string>][]) {
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
  ];
  for (const [state, rec] of bad) {
    const got = applyRecord(state === "none" ? undefined : inState[state], rec);
    assert.is(got.ok, false, `${rec.t} after ${state}`);
  }
});

test("property: any event sequence keeps decide and applyRecord consistent", () => {
  const eventArb = fc.constantFrom(...Object.values(events));
  const runs = process.env.GROK_SEAT_SOAK === "1" ? 50_000 : 2_000;
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
    }),
    { numRuns: runs },
  );
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
