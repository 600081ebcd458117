/**
 * The admission epoch at its ceiling (issue 16 item 5). A journal whose highest epoch is
 * Number.MAX_SAFE_INTEGER admits no further controller: `beginEpoch` refuses with EPOCH_EXHAUSTED
 * and writes nothing (an epoch above it could not be told apart from its neighbour). And a journal
 * an older release already pushed past the ceiling (an epoch record of 2^53, then fsynced fences
 * carrying it) is recovered without quarantining those fences: an epoch problem is never a reason
 * to drop a valid fsynced fence. The journals are crafted line by line with the real codec.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { encodeRecord } from "../../lib/delivery/codec.js";
import { JOURNAL_FILE, Journal } from "../../lib/delivery/journal.js";
import type { JournalRecord } from "../../lib/delivery/journal-record.js";
import { cleanupSeats, errorCode, fenceRecord, openGuard, tempSeat } from "./fixtures.js";

test.after.each(cleanupSeats);

const MAX = Number.MAX_SAFE_INTEGER;
const SHA = "a".repeat(64);

function fence(id: string, epoch: number): JournalRecord {
  return fenceRecord({ id, sha256: SHA, len: 5, epoch, at: 1_700_000_000_000 });
}

function epochRecord(epoch: number): JournalRecord {
  return { v: 1, t: "epoch", epoch, pid: 4242, at: 1_700_000_000_000 };
}

/** A seat directory whose journal is exactly these records, one codec line each. */
function craft(records: readonly JournalRecord[]): string {
  const dir = tempSeat();
  writeFileSync(join(dir, JOURNAL_FILE), Buffer.concat(records.map((r) => encodeRecord(r))), {
    mode: 0o600,
  });
  return dir;
}

test("at MAX_SAFE_INTEGER: beginEpoch refuses EPOCH_EXHAUSTED and writes nothing", () => {
  const dir = craft([epochRecord(MAX - 1), epochRecord(MAX), fence("p-1", MAX)]);
  const j = Journal.open({ dir, guard: openGuard });
  assert.is(j.maxEpoch, MAX);
  const before = readFileSync(join(dir, JOURNAL_FILE));
  assert.is(
    errorCode(() => j.beginEpoch()),
    "EPOCH_EXHAUSTED",
  );
  assert.equal(readFileSync(join(dir, JOURNAL_FILE)), before, "no epoch record was written");
  assert.is(j.epoch, null, "not admitted");
  j.close();
  // The next controller finds the same journal: still the fence, still refused, nothing lost.
  const again = Journal.open({ dir, guard: openGuard });
  assert.equal(again.recovery.warnings, []);
  assert.is(again.receipt("p-1")?.state, "uncertain");
  assert.is(
    errorCode(() => again.beginEpoch()),
    "EPOCH_EXHAUSTED",
  );
  again.close();
});

test("one below the ceiling: the last epoch is admitted, the one after it refused", () => {
  const dir = craft([epochRecord(MAX - 1)]);
  const j = Journal.open({ dir, guard: openGuard });
  assert.is(j.beginEpoch(), MAX);
  j.close();
  const next = Journal.open({ dir, guard: openGuard });
  assert.equal(next.recovery.warnings, []);
  assert.is(next.maxEpoch, MAX);
  assert.is(
    errorCode(() => next.beginEpoch()),
    "EPOCH_EXHAUSTED",
  );
  next.close();
});

test("a journal already past the ceiling: fsynced fences are recovered, never quarantined", () => {
  // What an older release wrote: MAX, then MAX + 1 (= 2^53) with two fences of that controller.
  const dir = craft([
    epochRecord(MAX),
    fence("p-1", MAX),
    epochRecord(MAX + 1),
    fence("p-2", MAX + 1),
    fence("p-3", MAX + 1),
  ]);
  const j = Journal.open({ dir, guard: openGuard });
  assert.equal(
    j.recovery.warnings.filter((w) => w.code === "JOURNAL_TAIL_QUARANTINED"),
    [],
    "nothing quarantined",
  );
  assert.equal(
    readdirSync(dir).filter((n) => n.includes("quarantine")),
    [],
    "no quarantine file",
  );
  for (const id of ["p-1", "p-2", "p-3"]) {
    assert.is(j.receipt(id)?.state, "uncertain", `${id} kept (and made uncertain, never resent)`);
  }
  assert.is(
    errorCode(() => j.beginEpoch()),
    "EPOCH_EXHAUSTED",
  );
  j.close();
});

test.run();
