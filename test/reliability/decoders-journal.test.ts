/**
 * T7, journal lines (docs/design/reliability-plan.md §6 T7, §3.2): `decodeJournal` / `decodeLine`
 * (`lib/delivery/codec.ts`, `<crc32> <json>\n` lines, MAX_LINE_BYTES) on random, mutated and torn
 * bytes, and recovery (`Journal.open`, `lib/delivery/journal.ts`) on real files: the valid prefix
 * is kept byte for byte, the tail is quarantined exactly, and the journal stays usable.
 * A decoding stop is a value (a tail reason), never a throw; recovery throws only typed errors.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeJournal, MAX_LINE_BYTES, type TailReason } from "../../lib/delivery/codec.js";
import { JOURNAL_FILE, Journal } from "../../lib/delivery/journal.js";
import { scaled } from "../helpers/claims.js";
import { DecoderRun } from "../helpers/decoder-claim.js";
import { check, recordedSeed } from "./lib/fuzz.js";
import { journalArb } from "./lib/journal-records.js";
import {
  DEEP,
  deepArray,
  HUGE_TEXT,
  LONE_SURROGATE_BYTES,
  prototypeClean,
  TWO_POW_64_TEXT,
  UNSAFE_INT_TEXT,
} from "./lib/json-edge.js";
import { mutate, mutationArb } from "./lib/mutate.js";
import { hexPreview, n } from "./lib/outcomes.js";
import { utf8ishBytesArb } from "./lib/text.js";

const REASONS: readonly TailReason[] = [
  "torn",
  "oversize",
  "frame",
  "checksum",
  "utf8",
  "json",
  "schema",
  "unsupported-version",
];
const WARNINGS = new Set([
  "JOURNAL_TAIL_QUARANTINED",
  "JOURNAL_RECORD_REJECTED",
  "JOURNAL_STALE_TEMP_REMOVED",
]);
/** Decoding stops are tallied as `tail:<reason>`; recovery may throw JOURNAL_FILE_UNSAFE. */
const decoderRun = new DecoderRun(
  test,
  "journal lines",
  [...REASONS.map((r) => `tail:${r}`), "JOURNAL_FILE_UNSAFE"],
  { tornOffsets: 0, recoveries: 0, quarantined: 0, reopenedClean: 0, edgeCases: 0 },
);
const { tally, memory, counts, test: guarded } = decoderRun;

/** Decode, check the structural invariants any input must satisfy, tally the outcome. */
function decode(bytes: Buffer, input: () => string): ReturnType<typeof decodeJournal> | null {
  memory.every(tally.inputs);
  let d: ReturnType<typeof decodeJournal>;
  try {
    d = decodeJournal(bytes);
  } catch (err) {
    tally.thrown(err, input);
    return null;
  }
  let offset = 0;
  for (const l of d.lines) {
    assert.is(l.offset, offset, "lines are contiguous from 0");
    assert.is(bytes[l.offset + l.length - 1], 0x0a, "each line ends in LF");
    assert.ok(l.length <= MAX_LINE_BYTES, "no line above MAX_LINE_BYTES");
    offset += l.length;
  }
  assert.is(d.validLength, offset);
  if (d.tail === null) {
    assert.is(d.validLength, bytes.length);
    tally.accept();
  } else {
    assert.is(d.tail.offset, d.validLength);
    assert.is(d.tail.length, bytes.length - d.validLength);
    tally.reject(`tail:${d.tail.reason}`, input);
  }
  return d;
}

/** A `<crc> <json>` line with a correct checksum over exactly these JSON bytes. */
function line(json: string | Uint8Array): Buffer {
  const body = typeof json === "string" ? Buffer.from(json, "utf8") : Buffer.from(json);
  return Buffer.concat([
    Buffer.from(`${crc32(body).toString(16).padStart(8, "0")} `),
    body,
    Buffer.from("\n"),
  ]);
}

guarded(
  "random bytes and random lines behind valid checksums: a valid prefix and a named tail",
  () => {
    check(
      fc.oneof(
        fc.uint8Array({ maxLength: 6000 }).map((b) => Buffer.from(b)),
        fc
          .array(utf8ishBytesArb, { minLength: 1, maxLength: 4 })
          .map((bodies) => Buffer.concat(bodies.map((b) => line(b)))),
      ),
      (bytes) => {
        decode(bytes, () => hexPreview(bytes));
      },
      scaled(3_000, 300_000),
    );
  },
);

guarded("mutated valid journals: every line before the damage decodes to the same record", () => {
  check(
    fc.tuple(journalArb(), fc.array(mutationArb, { minLength: 1, maxLength: 3 })),
    ([lines, mutations]) => {
      const original = Buffer.concat(lines);
      const { bytes, firstDamage } = mutate(original, mutations);
      const d = decode(bytes, () => hexPreview(bytes));
      if (d === null) return;
      const reference = decodeJournal(original);
      let end = 0;
      let intact = 0;
      for (const l of lines) {
        end += l.length;
        if (end <= firstDamage) intact++;
      }
      assert.ok(d.lines.length >= intact, "no intact line lost");
      assert.equal(
        d.lines.slice(0, intact).map((l) => l.record),
        reference.lines.slice(0, intact).map((l) => l.record),
      );
    },
    scaled(3_000, 300_000),
  );
});

guarded(
  "torn writes: cut at every offset (inside UTF-8 too), the whole lines before the cut survive",
  () => {
    check(
      journalArb(3),
      (lines) => {
        const bytes = Buffer.concat(lines);
        const reference = decodeJournal(bytes);
        assert.is(reference.tail, null, "a written journal decodes whole");
        for (let cut = 0; cut <= bytes.length; cut++) {
          const d = decode(bytes.subarray(0, cut), () => `cut at ${cut} of ${hexPreview(bytes)}`);
          if (d === null) continue;
          let whole = 0;
          let end = 0;
          let atBoundary = cut === 0;
          for (const l of lines) {
            end += l.length;
            if (end <= cut) whole++;
            if (end === cut) atBoundary = true;
          }
          assert.is(d.lines.length, whole, `cut at ${cut}`);
          assert.is(d.tail?.reason ?? null, atBoundary ? null : "torn", `cut at ${cut}`);
          counts.tornOffsets++;
        }
      },
      scaled(60, 3_000),
    );
  },
);

guarded("oversize: a line is judged on at most MAX_LINE_BYTES bytes", () => {
  // A valid-checksum JSON string line of exactly MAX_LINE_BYTES (LF included) is read and judged
  // (not a record: `schema`); one byte longer is `oversize` without parsing anything.
  const fill = (total: number): Buffer => line(`"${"x".repeat(total - 9 - 1 - 2)}"`);
  const exact = fill(MAX_LINE_BYTES);
  assert.is(exact.length, MAX_LINE_BYTES);
  assert.is(decode(exact, () => "exact")?.tail?.reason, "schema");
  const over = fill(MAX_LINE_BYTES + 1);
  assert.is(decode(over, () => "over")?.tail?.reason, "oversize");
  // A 2 MB line (10^6-deep nesting) is refused from its first MAX_LINE_BYTES bytes.
  const deep = line(deepArray());
  assert.is(decode(deep, () => "deep")?.tail?.reason, "oversize");
  counts.edgeCases += 3;
});

const R = '"v":1,"t":"consumed","id":"p-1","at":5,"kind":"queue-entry"';
type Expect = { readonly record: (r: unknown) => boolean } | { readonly reason: TailReason };

/** JSON edge cases with correct checksums: what the JSON inside says decides the outcome. */
const EDGE: readonly { name: string; bytes: Buffer; expect: Expect }[] = [
  {
    name: "duplicate id: last wins (the CRC covers the bytes, not a meaning)",
    bytes: line('{"v":1,"t":"dispatched","id":"a","id":"b","at":1}'),
    expect: { record: (r) => JSON.stringify(r) === '{"v":1,"t":"dispatched","id":"b","at":1}' },
  },
  {
    name: "duplicate t: last wins, then the strict schema refuses the fence's fields",
    bytes: line(`{${R},"t":"dispatched"}`),
    expect: { reason: "schema" },
  },
  {
    name: "__proto__ member: an unknown key for a strict record",
    bytes: line(`{${R},"__proto__":{"polluted":true}}`),
    expect: { reason: "schema" },
  },
  {
    name: "lone surrogate escape in detail: kept (JSON.stringify writes it so)",
    bytes: line(`{${R},"detail":"\\ud800"}`),
    expect: {
      record: (r) => typeof r === "object" && r !== null && "detail" in r && r.detail === "\ud800",
    },
  },
  {
    name: "lone surrogate as raw bytes in detail",
    bytes: line(
      Buffer.concat([Buffer.from(`{${R},"detail":"`), LONE_SURROGATE_BYTES, Buffer.from('"}')]),
    ),
    expect: { reason: "utf8" },
  },
  {
    name: "1,500-deep detail within the line bound",
    bytes: line(`{${R},"detail":${deepArray(1_500)}}`),
    expect: { reason: "schema" },
  },
  {
    name: "at 1e400 (Infinity)",
    bytes: line(`{"v":1,"t":"dispatched","id":"a","at":${HUGE_TEXT}}`),
    expect: { reason: "schema" },
  },
  {
    name: "at 2^53+1 (rounds above MAX_SAFE_INTEGER)",
    bytes: line(`{"v":1,"t":"dispatched","id":"a","at":${UNSAFE_INT_TEXT}}`),
    expect: { reason: "schema" },
  },
  {
    name: "epoch 2^64",
    bytes: line(`{"v":1,"t":"epoch","epoch":${TWO_POW_64_TEXT},"pid":1,"at":1}`),
    expect: { reason: "schema" },
  },
  {
    name: "another record version",
    bytes: line('{"v":2,"t":"dispatched","id":"a","at":1}'),
    expect: { reason: "unsupported-version" },
  },
  {
    name: "byte order mark before the JSON",
    bytes: line('\ufeff{"v":1,"t":"dispatched","id":"a","at":1}'),
    expect: { reason: "json" },
  },
  {
    name: "uppercase checksum digits",
    bytes: Buffer.from(
      line('{"v":1,"t":"dispatched","id":"a","at":1}').toString("latin1").toUpperCase(),
      "latin1",
    ),
    expect: { reason: "frame" },
  },
  {
    name: "CRLF with the CR outside the checksum",
    bytes: Buffer.concat([
      line('{"v":1,"t":"dispatched","id":"a","at":1}').subarray(0, -1),
      Buffer.from("\r\n"),
    ]),
    expect: { reason: "checksum" },
  },
  {
    name: "NaN literal",
    bytes: line('{"v":1,"t":"dispatched","id":"a","at":NaN}'),
    expect: { reason: "json" },
  },
];

guarded("JSON edge cases: each has its explicit outcome, and nothing is polluted", () => {
  for (const e of EDGE) {
    const d = decode(e.bytes, () => e.name);
    assert.ok(d !== null, `${e.name}: threw`);
    if ("reason" in e.expect) {
      assert.is(d?.tail?.reason, e.expect.reason, e.name);
    } else {
      assert.is(d?.tail, null, e.name);
      assert.ok(e.expect.record(d?.lines[0]?.record), e.name);
    }
    assert.ok(prototypeClean(), `${e.name}: Object.prototype polluted`);
    counts.edgeCases++;
  }
});

const guard = { assertHeld(): void {} };

guarded(
  "recovery on real files: valid prefix kept, tail quarantined exactly, journal usable after",
  () => {
    const cases = fc.sample(
      fc.tuple(
        journalArb(),
        fc.option(fc.array(mutationArb, { minLength: 1, maxLength: 3 })),
        fc.option(fc.constantFrom(...EDGE.map((e) => e.bytes))),
      ),
      { numRuns: scaled(40, 1_000), seed: recordedSeed() },
    );
    for (const [lines, mutations, edge] of cases) {
      const dir = mkdtempSync(join(tmpdir(), "gs-t7-journal-"));
      try {
        chmodSync(dir, 0o700);
        const original = Buffer.concat(lines);
        const damaged = mutations === null ? original : mutate(original, mutations).bytes;
        const bytes = edge === null ? damaged : Buffer.concat([damaged, edge]);
        const path = join(dir, JOURNAL_FILE);
        writeFileSync(path, bytes, { mode: 0o600 });
        const expected = decodeJournal(bytes);
        const opened: { journal?: Journal } = {};
        const error = tally.attempt(
          () => {
            opened.journal = Journal.open({ dir, guard, now: () => 1_000 });
          },
          () => hexPreview(bytes),
        );
        const j = opened.journal ?? null;
        counts.recoveries++;
        if (j === null) {
          // The only refusal: a checksummed record of another version (written by another release).
          assert.is(error?.code, "JOURNAL_FILE_UNSAFE");
          assert.is(expected.tail?.reason, "unsupported-version");
          assert.ok(readFileSync(path).equals(bytes), "a refused journal is left untouched");
          continue;
        }
        const report = j.recovery;
        for (const w of report.warnings) assert.ok(WARNINGS.has(w.code), w.code);
        assert.is(report.validBytes, expected.validLength);
        assert.is(report.records, expected.lines.length);
        const after = readFileSync(path);
        assert.ok(
          after.subarray(0, expected.validLength).equals(bytes.subarray(0, expected.validLength)),
          "prefix kept byte for byte",
        );
        if (expected.tail !== null) {
          const q = readdirSync(dir).filter((f) => f.endsWith(".quarantine"));
          assert.is(q.length, 1, "one quarantine file");
          assert.ok(
            readFileSync(join(dir, q[0] ?? "")).equals(bytes.subarray(expected.validLength)),
            "tail quarantined exactly",
          );
          counts.quarantined++;
        }
        // Usable after: admit a new controller, reopen, and find a clean journal with the epoch.
        const epoch = j.beginEpoch();
        assert.is(epoch, report.maxEpoch + 1);
        j.close();
        const again = Journal.open({ dir, guard, now: () => 2_000 });
        assert.ok(
          !again.recovery.warnings.some((w) => w.code === "JOURNAL_TAIL_QUARANTINED"),
          "second open is clean",
        );
        assert.is(again.maxEpoch, epoch);
        again.close();
        counts.reopenedClean++;
        memory.sample();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  },
);

decoderRun.claim("T7-journal-lines", () => ({
  title: "Delivery journal decoder and recovery under damaged files",
  sentence: (m) =>
    `${n(tally.inputs)} generated journal inputs (random bytes, random lines behind valid checksums, mutated journals, ` +
    `${n(counts.tornOffsets)} torn writes at every offset, ${EDGE.length + 3} JSON edge cases incl. a ${n(DEEP)}-deep line, ` +
    `${n(counts.recoveries)} recoveries of real files): 0 crashes, ${n(tally.violations)} untyped throws, every stop one of ` +
    `${tally.rejectionSummary()}; every line before the damage kept byte for byte, ${n(counts.quarantined)} tails ` +
    `quarantined exactly, ${n(counts.reopenedClean)} journals admitted a new epoch and reopened clean; lines judged on at ` +
    `most ${n(MAX_LINE_BYTES)} bytes; memory ${m.describe}.`,
  method:
    "fast-check properties over lib/delivery/codec.ts decodeJournal, and Journal.open on real 0600 files in 0700 " +
    "temp directories (test/reliability/decoders-journal.test.ts).",
}));

test.run();
