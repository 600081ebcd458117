import { Buffer } from "node:buffer";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeJournal, encodeRecord, MAX_LINE_BYTES } from "../../lib/delivery/codec.js";
import type { JournalRecord } from "../../lib/delivery/journal-record.js";
import { Ledger } from "../../lib/delivery/ledger.js";

const fence = (id: string, epoch = 1): JournalRecord => ({
  v: 1,
  t: "fence",
  id,
  sid: "s",
  leader: "l",
  pane: "p",
  sha256: "c".repeat(64),
  len: 1,
  epoch,
  at: 1,
});

function feed(ledger: Ledger, records: readonly JournalRecord[]): (string | null)[] {
  return records.map((r) => ledger.apply(r, encodeRecord(r))?.reason ?? null);
}

test("rejects what no single controller writes: old epochs, second fences, records after compaction", () => {
  const l = new Ledger();
  const out = feed(l, [
    { v: 1, t: "epoch", epoch: 2, pid: 1, at: 1 },
    { v: 1, t: "epoch", epoch: 2, pid: 2, at: 2 },
    fence("a"),
    fence("a"),
    { v: 1, t: "compacted", id: "a", state: "completed", at: 3 },
    { v: 1, t: "compacted", id: "b", state: "completed", at: 3 },
    fence("b"),
    { v: 1, t: "dispatched", id: "b", at: 4 },
  ]);
  assert.equal(
    out.map((r) => r !== null),
    [false, true, false, true, true, false, true, true],
  );
  assert.is(l.maxEpoch, 2);
  assert.is(l.knows("b"), true);
  assert.is(l.get("b"), undefined);
});

test("compacted image: max epoch, settled ids, then open receipts' lines in journal order", () => {
  const l = new Ledger();
  const recs: JournalRecord[] = [
    { v: 1, t: "epoch", epoch: 1, pid: 1, at: 1 },
    fence("done"),
    fence("open"),
    { v: 1, t: "epoch", epoch: 2, pid: 1, at: 2 },
    { v: 1, t: "completed", id: "done", at: 3, ch: "rpc-response", stop: "end_turn" },
    { v: 1, t: "uncertain", id: "open", at: 4, reason: "connection-lost" },
  ];
  feed(l, recs);
  const plan = l.compacted(99);
  assert.equal([plan.kept, plan.dropped], [1, 1]);
  const image = decodeJournal(plan.bytes);
  assert.is(image.tail, null);
  assert.equal(
    image.lines.map((x) => x.record),
    [recs[3], { v: 2, t: "settled", state: "completed", at: 99, ids: ["done"] }, recs[2], recs[5]],
  );
  // Replaying the image gives the same open receipts and knows the compacted id.
  const again = new Ledger();
  for (const x of image.lines)
    assert.is(again.apply(x.record, plan.bytes.subarray(x.offset, x.offset + x.length)), null);
  assert.equal(again.get("open"), l.get("open"));
  assert.is(again.knows("done"), true);
  l.dropTerminal(plan.settled);
  assert.is(l.get("done"), undefined);
  assert.ok(Buffer.compare(l.compacted(99).bytes, plan.bytes) === 0, "compacting twice is stable");
});

test("settled ids: legacy tombstones folded in, packed by state into lines within the limit", () => {
  const l = new Ledger();
  const ids = Array.from({ length: 500 }, (_, i) => `${"p".repeat(100)}-${i}`);
  const recs: JournalRecord[] = [
    { v: 1, t: "epoch", epoch: 1, pid: 1, at: 1 },
    { v: 1, t: "compacted", id: "old-rejected", state: "rejected", at: 1 },
  ];
  for (const id of ids) {
    recs.push(fence(id), { v: 1, t: "cancelled", id, at: 2, ch: "rpc-response" });
  }
  feed(l, recs);
  const plan = l.compacted(7);
  const image = decodeJournal(plan.bytes);
  assert.is(image.tail, null);
  const settled = image.lines.flatMap((x) => (x.record.t === "settled" ? [x] : []));
  assert.ok(settled.length > 10, `${settled.length} lines for 500 ids of 104+ bytes`);
  for (const x of settled) assert.ok(x.length <= MAX_LINE_BYTES);
  const byState = (state: string): string[] =>
    settled.flatMap((x) =>
      x.record.t === "settled" && x.record.state === state ? x.record.ids : [],
    );
  assert.equal(byState("rejected"), ["old-rejected"]);
  assert.equal(byState("cancelled"), ids);
  // Replayed: every id known, none a live receipt, and a fence of any of them refused.
  const again = new Ledger();
  for (const x of image.lines)
    assert.is(again.apply(x.record, plan.bytes.subarray(x.offset, x.offset + x.length)), null);
  for (const id of [...ids, "old-rejected"]) {
    assert.ok(again.knows(id) && again.isCompacted(id), id);
    assert.is(again.get(id), undefined);
    assert.ok(again.check(fence(id)) !== null, `fence of settled ${id} accepted`);
  }
});

test("a settled record is never rejected and never hides a live receipt", () => {
  const l = new Ledger();
  const out = feed(l, [
    fence("live"),
    { v: 2, t: "settled", state: "completed", at: 1, ids: ["live", "gone"] },
    { v: 2, t: "settled", state: "completed", at: 2, ids: ["gone"] },
  ]);
  assert.equal(out, [null, null, null]);
  assert.is(l.get("live")?.state, "fenced");
  assert.not.ok(l.isCompacted("live"));
  assert.ok(l.isCompacted("gone"));
});

test.run();
