import { Buffer } from "node:buffer";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeJournal, encodeRecord } from "../../lib/delivery/codec.js";
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

test("compacted image: max epoch, tombstones, then open receipts' lines in journal order", () => {
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
    [recs[3], { v: 1, t: "compacted", id: "done", state: "completed", at: 3 }, recs[2], recs[5]],
  );
  // Replaying the image gives the same open receipts and knows the compacted id.
  const again = new Ledger();
  for (const x of image.lines)
    assert.is(again.apply(x.record, plan.bytes.subarray(x.offset, x.offset + x.length)), null);
  assert.equal(again.get("open"), l.get("open"));
  assert.is(again.knows("done"), true);
  l.dropTerminal(plan.tombstones);
  assert.is(l.get("done"), undefined);
  assert.ok(Buffer.compare(l.compacted(100).bytes, plan.bytes) === 0, "compacting twice is stable");
});

test.run();
