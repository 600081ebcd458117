/**
 * Seat records on disk: written 0600 by rename (no temp file left), read back through the schema,
 * refused by name when unreadable (missing, symlink, not JSON) or not a seat record.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { JsonValue } from "../../lib/json.js";
import { readSeatRecord, type SeatRecord, writeSeatRecord } from "../../lib/seat/seat-record.js";
import { checkRecordFile } from "../../lib/seat/verify-seat-record.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import { seatRecord } from "../helpers/seat-record.js";

const _id = { kind: "linux-pidfs" as const, value: "boot:7" };

function sample(): SeatRecord {
  return seatRecord({
    top: {
      proofs: {
        pane_proof: [
          { check: "pane.present", ok: true, expected: "w1:p1", received: "w1:p1", reason: null },
        ],
      },
    },
  });
}

let dir: string;
test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), "seat-record-"));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

const codeOf = (fn: () => unknown): string => codeOfError(fn, "NO_ERROR");

test("write then read: 0600, nothing else left in the directory, same content", () => {
  const path = join(dir, "seat.json");
  writeSeatRecord(path, sample());
  assert.equal(readdirSync(dir), ["seat.json"]);
  assert.is(lstatSync(path).mode & 0o777, 0o600);
  const { record, file } = readSeatRecord(path);
  assert.equal(record, sample());
  assert.is(checkRecordFile(file).ok, true);
  writeSeatRecord(path, { ...sample(), conversationId: "c" });
  assert.is(readSeatRecord(path).record.conversationId, "c", "replaced atomically");
  assert.equal(readdirSync(dir), ["seat.json"]);
});

test("unreadable and invalid records are refused by code", () => {
  assert.is(
    codeOf(() => readSeatRecord(join(dir, "missing.json"))),
    "RECORD_UNREADABLE",
  );
  const notJson = join(dir, "bad.json");
  writeFileSync(notJson, "{nope");
  assert.is(
    codeOf(() => readSeatRecord(notJson)),
    "RECORD_UNREADABLE",
  );
  const other = join(dir, "other.json");
  writeFileSync(other, JSON.stringify({ ...sample(), kind: "something-else" }));
  assert.is(
    codeOf(() => readSeatRecord(other)),
    "RECORD_INVALID",
  );
  const future = join(dir, "future.json");
  writeFileSync(future, JSON.stringify({ ...sample(), version: 2 }));
  assert.is(
    codeOf(() => readSeatRecord(future)),
    "RECORD_INVALID",
  );
  const real = join(dir, "seat.json");
  writeSeatRecord(real, sample());
  const link = join(dir, "link.json");
  symlinkSync(real, link);
  assert.is(
    codeOf(() => readSeatRecord(link)),
    "RECORD_UNREADABLE",
    "a symlink is not followed",
  );
});

test("writeSeatRecord refuses, before creating a file, a record readSeatRecord would refuse", () => {
  const path = join(dir, "seat.json");
  const base = sample();
  let deep: JsonValue = "leaf";
  for (let i = 0; i < 100; i++) deep = { d: deep };
  const bad: [string, unknown][] = [
    ["a negative pid", { ...base, leader: { ...base.leader, pid: -1 } }],
    ["a fractional epoch", { ...base, controller: { ...base.controller, epoch: 1.5 } }],
    ["a NaN in a fact (written as null)", { ...base, agent: { verdict: Number.NaN } }],
    ["a 100-deep fact", { ...base, agent: deep }],
    ["a bigint", { ...base, agent: { n: 1n } }],
    ["another kind", { ...base, kind: "something-else" }],
  ];
  for (const [what, record] of bad) {
    // The type says SeatRecord; a caller's value may still not be one.
    assert.is(
      codeOf(() => writeSeatRecord(path, record as SeatRecord)),
      "RECORD_INVALID",
      what,
    );
    assert.equal(readdirSync(dir), [], `${what}: no file, no temp file`);
  }
  writeSeatRecord(path, base);
  assert.equal(readSeatRecord(path).record, base);
});

test("a group-readable record fails record.file_private", () => {
  const c = checkRecordFile({ uid: process.geteuid?.() ?? 0, mode: 0o640 });
  assert.is(c.ok, false);
  assert.is(c.check, "record.file_private");
});

test.run();
