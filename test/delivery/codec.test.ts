import { Buffer } from "node:buffer";
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  decodeJournal,
  decodeLine,
  encodeRecord,
  MAX_LINE_BYTES,
} from "../../lib/delivery/codec.js";
import type { JournalRecord } from "../../lib/delivery/journal-record.js";
import { isErrorCode } from "../../lib/errors.js";
import { soakScaled } from "./claim-run.js";

const ID = "5f0c0000-0000-4000-8000-000000000001";
const SID = "0198c0de-0000-4000-8000-000000000001";

/** One record of every type (record.ts), as the journal writes them. */
const samples: JournalRecord[] = [
  { v: 1, t: "epoch", epoch: 3, pid: 4242, at: 1 },
  {
    v: 1,
    t: "fence",
    id: ID,
    sid: SID,
    leader: "linux-pidfs:b00t:12345",
    pane: "herdr:w1:p2",
    sha256: "a".repeat(64),
    len: 12,
    epoch: 3,
    at: 2,
  },
  { v: 1, t: "dispatched", id: ID, at: 3 },
  { v: 1, t: "consumed", id: ID, at: 4, kind: "queue-entry", detail: "position 0" },
  { v: 1, t: "cancel-submitted", id: ID, at: 5, how: "queue-remove" },
  { v: 1, t: "completed", id: ID, at: 6, ch: "rpc-response", stop: "end_turn" },
  { v: 1, t: "cancelled", id: ID, at: 7, ch: "prompt-complete", detail: "RemovedFromQueue" },
  { v: 1, t: "uncertain", id: ID, at: 8, reason: "connection-lost" },
  { v: 1, t: "reconciled", id: ID, at: 9, ev: { ch: "turn-completed", stop: "end_turn" } },
  { v: 1, t: "reconciled", id: ID, at: 10, ev: { kind: "running-prompt" } },
  { v: 1, t: "compacted", id: ID, state: "completed", at: 11 },
  {
    v: 1,
    t: "rejected",
    id: ID,
    sid: SID,
    at: 12,
    code: -32602,
    msg: "Invalid params",
    detail: "unknown session id",
  },
  { v: 1, t: "rejected", id: ID, sid: SID, at: 13, code: -32002, msg: "leader_starting" },
  { v: 1, t: "compacted", id: ID, state: "rejected", at: 14 },
];

function journalOf(records: readonly JournalRecord[]): Buffer {
  return Buffer.concat(records.map((r) => encodeRecord(r)));
}

/** A line with a correct checksum over arbitrary JSON bytes (to reach the later filters). */
function framed(json: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`${crc32(json).toString(16).padStart(8, "0")} `),
    json,
    Buffer.from("\n"),
  ]);
}

test("every record type round-trips, one checksummed line each", () => {
  for (const r of samples) {
    const line = encodeRecord(r);
    assert.match(line.toString("utf8"), /^[0-9a-f]{8} \{.*\}\n$/);
    const d = decodeJournal(line);
    assert.is(d.tail, null);
    assert.equal(
      d.lines.map((l) => l.record),
      [r],
    );
  }
  const all = journalOf(samples);
  const d = decodeJournal(all);
  assert.equal(
    d.lines.map((l) => l.record),
    samples,
  );
  assert.is(d.validLength, all.length);
  console.log(`codec: ${samples.length} record types round-trip`);
});

test("a journal cut at every byte decodes exactly its complete lines, the rest a torn tail", () => {
  const all = journalOf(samples);
  const ends = decodeJournal(all).lines.map((l) => l.offset + l.length);
  for (let cut = 0; cut <= all.length; cut++) {
    const d = decodeJournal(all.subarray(0, cut));
    const complete = ends.filter((e) => e <= cut).length;
    assert.is(d.lines.length, complete, `cut ${cut}`);
    assert.equal(
      d.lines.map((l) => l.record),
      samples.slice(0, complete),
    );
    if (ends.includes(cut) || cut === 0) assert.is(d.tail, null);
    else assert.is(d.tail?.reason, "torn", `cut ${cut}`);
  }
  console.log(`codec: ${all.length + 1} cut points, never a wrong record`);
});

test("every single-byte corruption stops decoding at the damaged line, never a different record", () => {
  const all = journalOf(samples);
  const lines = decodeJournal(all).lines;
  let cases = 0;
  for (let i = 0; i < all.length; i++) {
    for (const mutate of [(b: number) => b ^ 0x01, (b: number) => b ^ 0x80, () => 0, () => 0x0a]) {
      const bad = Buffer.from(all);
      const before = bad[i] ?? 0;
      bad[i] = mutate(before);
      if (bad[i] === before) continue;
      cases++;
      const hit = lines.findIndex((l) => i >= l.offset && i < l.offset + l.length);
      const d = decodeJournal(bad);
      assert.ok(d.lines.length <= hit, `byte ${i}: decoded past the damaged line ${hit}`);
      assert.equal(
        d.lines.map((l) => l.record),
        samples.slice(0, d.lines.length),
      );
      assert.ok(d.tail !== null, `byte ${i}: no tail reported`);
    }
  }
  console.log(`codec: ${cases} single-byte corruptions, 0 decoded as another record`);
});

test("each kind of damage is named", () => {
  const good = encodeRecord(samples[2] as JournalRecord);
  const reason = (b: Buffer) => decodeJournal(b).tail?.reason;
  assert.is(reason(Buffer.concat([good, Buffer.alloc(300)])), "torn"); // zeroed, size persisted
  assert.is(reason(Buffer.concat([good, Buffer.alloc(300), Buffer.from("\n")])), "frame");
  assert.is(reason(Buffer.concat([good, Buffer.alloc(MAX_LINE_BYTES + 10, 0x41)])), "oversize");
  assert.is(reason(Buffer.from(good.toString("latin1").toUpperCase(), "latin1")), "frame");
  const flipped = Buffer.from(good);
  flipped[20] = (flipped[20] ?? 0) ^ 0x04;
  assert.is(reason(flipped), "checksum");
  assert.is(reason(framed(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))), "utf8");
  assert.is(reason(framed(Buffer.from('{"v":1,'))), "json");
  assert.is(
    reason(framed(Buffer.from('{"v":1,"t":"dispatched","id":"x","at":1,"extra":1}'))),
    "schema",
  );
  assert.is(
    reason(framed(Buffer.from('{"v":1,"t":"dispatched","id":"x","at":1,"__proto__":{}}'))),
    "schema",
  );
  assert.is(reason(framed(Buffer.from('{"v":1,"t":"dispatched","id":"../x","at":1}'))), "schema");
  assert.is(reason(framed(Buffer.from('{"v":1,"t":"nonsense","id":"x","at":1}'))), "schema");
  // A refusal's code is an integer and its message bounded, as the wire's error object is.
  const refused = (code: string, msg: string) =>
    framed(
      Buffer.from(`{"v":1,"t":"rejected","id":"x","sid":"s","at":1,"code":${code},"msg":${msg}}`),
    );
  assert.is(reason(refused("-32602", '"Invalid params"')), undefined);
  assert.is(reason(refused("-32602.5", '"Invalid params"')), "schema");
  assert.is(reason(refused('"-32602"', '"Invalid params"')), "schema");
  assert.is(reason(refused("-32602", JSON.stringify("m".repeat(257)))), "schema");
  assert.is(
    reason(framed(Buffer.from('{"v":2,"t":"dispatched","id":"x","at":1}'))),
    "unsupported-version",
  );
  assert.is(reason(framed(Buffer.from("[1,2]"))), "schema");
});

test("the tail counts intact lines after a damaged one without parsing them", () => {
  const lines = samples.slice(0, 4).map((r) => encodeRecord(r));
  const damaged = Buffer.from(lines[1] ?? Buffer.alloc(0));
  damaged[12] = 0x20;
  const d = decodeJournal(
    Buffer.concat([
      lines[0] ?? Buffer.alloc(0),
      damaged,
      lines[2] ?? Buffer.alloc(0),
      lines[3] ?? Buffer.alloc(0),
    ]),
  );
  assert.is(d.lines.length, 1);
  assert.is(d.tail?.offset, lines[0]?.length);
  assert.is(d.tail?.framedLinesAfter, 2);
});

test("records are bounded: worst-case escapes fit, oversized records are refused", () => {
  const worst: JournalRecord = {
    v: 1,
    t: "consumed",
    id: "a".repeat(128),
    at: Number.MAX_SAFE_INTEGER,
    kind: "queue-entry",
    detail: "\u0001".repeat(256),
  };
  const line = encodeRecord(worst);
  assert.ok(line.length <= MAX_LINE_BYTES);
  assert.equal(decodeLine(line, 0, line.length - 1), { ok: true, record: worst });
  // The widest refusal: longest ids, the longest printed code, message and data all escapes.
  const refusal: JournalRecord = {
    v: 1,
    t: "rejected",
    id: "a".repeat(128),
    sid: "b".repeat(128),
    at: Number.MAX_SAFE_INTEGER,
    code: -Number.MAX_VALUE,
    msg: "\u0001".repeat(256),
    detail: "\u0001".repeat(256),
  };
  const refusalLine = encodeRecord(refusal);
  assert.ok(refusalLine.length <= MAX_LINE_BYTES, `${refusalLine.length} bytes`);
  assert.equal(decodeLine(refusalLine, 0, refusalLine.length - 1), { ok: true, record: refusal });
  const wide: JournalRecord = {
    v: 1,
    t: "consumed",
    id: "a",
    at: 1,
    kind: "queue-entry",
    detail: "\u0001".repeat(800),
  };
  try {
    encodeRecord(wide);
    assert.unreachable("encoded an oversized record");
  } catch (err) {
    assert.ok(isErrorCode(err, "RECORD_TOO_LARGE"));
  }
});

test("property: any garbage appended to a valid journal never yields an extra record", () => {
  const runs = soakScaled(3_000, 100_000);
  fc.assert(
    fc.property(
      fc.subarray(samples, { minLength: 1 }),
      fc.uint8Array({ maxLength: 600 }),
      fc.nat(),
      (records, junk, cutSeed) => {
        const all = journalOf(records);
        const cut = cutSeed % (all.length + 1);
        const bytes = Buffer.concat([all.subarray(0, cut), junk]);
        const d = decodeJournal(bytes);
        assert.equal(
          d.lines.map((l) => l.record),
          records.slice(0, d.lines.length),
        );
        // A line may extend past the cut only if the junk happens to restore the original bytes
        // exactly (e.g. a lost final "\n" followed by junk "\n"): then it is the same record.
        for (const l of d.lines) {
          if (l.offset + l.length <= cut) continue;
          const got = bytes.subarray(l.offset, l.offset + l.length);
          assert.ok(got.equals(all.subarray(l.offset, l.offset + l.length)), "a line made of junk");
        }
      },
    ),
    process.env.GROK_SEAT_SEED === undefined
      ? { numRuns: runs }
      : { numRuns: runs, seed: Number(process.env.GROK_SEAT_SEED) },
  );
  console.log(`codec: ${runs} random torn-and-garbage journals, 0 extra records`);
});

test.run();
