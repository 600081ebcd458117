// @platform linux: reads /proc as its independent oracle
/**
 * T7, seat records (`lib/seat/seat-record.ts`): `readSeatRecord` on real files holding random bytes,
 * mutated and truncated records, duplicated keys and the JSON edge cases of docs/design/reliability-plan.md §4,
 * plus the bounded read (kernel rchar as the oracle), symlinks, FIFOs and directories. Every
 * refusal must be RECORD_UNREADABLE or RECORD_INVALID; a record written by `writeSeatRecord`
 * must read back as written.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readSeatRecord, type SeatRecord, writeSeatRecord } from "../../lib/seat/seat-record.js";
import { scaled } from "../helpers/claims.js";
import { DecoderRun } from "../helpers/decoder-claim.js";
import { check } from "./lib/fuzz.js";
import {
  DEEP,
  deepArray,
  HUGE_TEXT,
  LONE_SURROGATE_BYTES,
  prototypeClean,
  TWO_POW_64_TEXT,
} from "./lib/json-edge.js";
import { MiB } from "./lib/memory.js";
import { duplicateKey, mutate, mutationArb } from "./lib/mutate.js";
import { hexPreview, n } from "./lib/outcomes.js";
import { seatRecordArb } from "./lib/seat-records.js";
import { jsonishArb } from "./lib/text.js";

/** `MAX_RECORD_BYTES` in record.ts (not exported). */
const MAX_RECORD_BYTES = 4 * MiB;
const decoderRun = new DecoderRun(
  test,
  "seat records",
  ["RECORD_UNREADABLE", "RECORD_INVALID"],
  { roundTrips: 0, truncations: 0, edgeCases: 0, oversizeBytesRead: -1 },
  { deepCases: true },
);
const { tally, memory, counts, test: guarded } = decoderRun;

// tmpfs when there is one: tens of thousands of small files.
const dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "gs-t7-seat-"));
const file = join(dir, "seat.json");
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Write the bytes, read them as a seat record, tally the outcome. */
function read(bytes: Uint8Array, input: () => string): SeatRecord | null {
  memory.every(tally.inputs, 512);
  writeFileSync(file, bytes, { mode: 0o600 });
  let record: SeatRecord | null = null;
  tally.attempt(() => {
    record = readSeatRecord(file).record;
  }, input);
  return record;
}

const reference = (r: SeatRecord): unknown => JSON.parse(JSON.stringify(r));

guarded("random bytes and JSON-ish text: a record or a documented typed refusal", () => {
  check(
    fc.oneof(
      fc.uint8Array({ maxLength: 2048 }),
      jsonishArb.map((t) => new Uint8Array(Buffer.from(t))),
    ),
    (bytes) => {
      read(bytes, () => hexPreview(bytes));
    },
    scaled(1_500, 150_000),
  );
});

guarded("records written by writeSeatRecord read back as written; mutated ones are typed", () => {
  check(
    fc.tuple(seatRecordArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 })),
    ([record, mutations]) => {
      writeSeatRecord(file, record);
      const bytes = readFileSync(file);
      let back: SeatRecord | null = null;
      tally.attempt(() => {
        back = readSeatRecord(file).record;
      });
      assert.equal(back, reference(record), "round trip");
      counts.roundTrips++;
      const damaged = mutate(bytes, mutations).bytes;
      read(damaged, () => hexPreview(damaged));
    },
    scaled(1_000, 100_000),
  );
});

guarded("duplicated keys: JSON.parse's last-wins reading", () => {
  check(
    fc.tuple(
      seatRecordArb,
      fc.constantFrom("kind", "version", "sessionId", "controller", "release"),
      fc.jsonValue({ maxDepth: 1 }),
      fc.boolean(),
    ),
    ([record, key, extra, first]) => {
      const text = duplicateKey(
        JSON.stringify(record),
        key,
        JSON.stringify(extra),
        first ? "first" : "last",
      );
      const got = read(Buffer.from(text), () => `${key} ${first}`);
      if (first) assert.equal(got, reference(record), "an earlier duplicate is overridden");
    },
    scaled(500, 50_000),
  );
});

guarded("truncated at every offset: refused until the JSON is whole", () => {
  check(
    seatRecordArb,
    (record) => {
      writeSeatRecord(file, record);
      const bytes = readFileSync(file);
      for (let cut = 0; cut <= bytes.length; cut++) {
        const got = read(bytes.subarray(0, cut), () => `cut ${cut}`);
        // The pretty JSON is whole from its closing brace on; only the trailing newline may go.
        assert.is(got !== null, cut >= bytes.length - 1, `cut at ${cut} of ${bytes.length}`);
        counts.truncations++;
      }
    },
    scaled(2, 60),
  );
});

/** A small valid record's text with `patch` spliced in before the final brace. */
function withMember(record: SeatRecord, member: string): string {
  const text = JSON.stringify(record);
  return `${text.slice(0, -1)},${member}}`;
}

type Expect =
  | { readonly ok: (r: SeatRecord) => boolean }
  | { readonly code: string }
  /** Either outcome is acceptable, as long as it is a record or a documented typed refusal. */
  | { readonly bounded: true };

guarded("JSON edge cases: each has its explicit outcome, and nothing is polluted", () => {
  const probe = decoderRun.deepCasesProbe();
  const [base] = fc.sample(seatRecordArb, { numRuns: 1, seed: 7 });
  if (base === undefined) throw new Error("no sample");
  const plain = JSON.stringify(base);
  const EDGE: { name: string; bytes: Buffer; expect: Expect }[] = [
    {
      name: "duplicate sessionId: last wins",
      bytes: Buffer.from(withMember(base, '"sessionId":"second"')),
      expect: { ok: (r) => r.sessionId === "second" },
    },
    {
      name: "__proto__ member: dropped, nothing inherited",
      bytes: Buffer.from(withMember(base, '"__proto__":{"polluted":true,"conversationId":"evil"}')),
      expect: { ok: (r) => r.conversationId === base.conversationId && !("polluted" in r) },
    },
    {
      name: "lone surrogate escape in cwd: kept as the lone unit",
      bytes: Buffer.from(withMember(base, '"cwd":"/\\ud800"')),
      expect: { ok: (r) => r.cwd === "/\ud800" },
    },
    {
      name: "invalid UTF-8 (a lone surrogate's raw bytes) in cwd: refused, never replaced by U+FFFD",
      bytes: Buffer.concat([
        Buffer.from(`${plain.slice(0, -1)},"cwd":"/`),
        LONE_SURROGATE_BYTES,
        Buffer.from('"}'),
      ]),
      expect: { code: "RECORD_UNREADABLE" },
    },
    {
      name: "10^6-deep array as the file",
      bytes: Buffer.from(deepArray()),
      expect: { code: "RECORD_INVALID" },
    },
    {
      name: "10^6-deep unknown key: dropped, never walked",
      bytes: Buffer.from(withMember(base, `"x":${deepArray()}`)),
      expect: { ok: () => true },
    },
    {
      name: "10^4-deep agent verdict (a JSON field): a typed refusal or a bounded parse",
      bytes: Buffer.from(withMember(base, `"agent":${deepArray(10_000)}`)),
      expect: { bounded: true },
    },
    {
      name: "10^6-deep leader info: a typed refusal or a bounded parse",
      bytes: Buffer.from(plain.replace(/"info":/, `"info":${deepArray()},"info0":`)),
      expect: { bounded: true },
    },
    {
      name: "controller pid 1e400 (Infinity)",
      bytes: Buffer.from(
        plain.replace(/"controller":\{"pid":\d+/, `"controller":{"pid":${HUGE_TEXT}`),
      ),
      expect: { code: "RECORD_INVALID" },
    },
    {
      name: "controller pid 2^64: an integer double, accepted by the schema (re-verified against the kernel)",
      bytes: Buffer.from(
        plain.replace(/"controller":\{"pid":\d+/, `"controller":{"pid":${TWO_POW_64_TEXT}`),
      ),
      expect: { ok: (r) => r.controller.pid === 2 ** 64 },
    },
    {
      name: "byte order mark",
      bytes: Buffer.from(`\ufeff${plain}`),
      expect: { code: "RECORD_UNREADABLE" },
    },
    { name: "empty file", bytes: Buffer.alloc(0), expect: { code: "RECORD_UNREADABLE" } },
    {
      name: "NaN literal",
      bytes: Buffer.from(withMember(base, '"x":NaN')),
      expect: { code: "RECORD_UNREADABLE" },
    },
  ];
  const wrong: string[] = [];
  for (const e of EDGE) {
    const before = tally.violations;
    writeFileSync(file, e.bytes);
    let got: SeatRecord | null = null;
    const typed = tally.attempt(
      () => {
        got = readSeatRecord(file).record;
      },
      () => e.name,
    );
    const r: SeatRecord | null = got;
    probe.sample();
    counts.edgeCases++;
    if (tally.violations !== before)
      wrong.push(`${e.name}: ${tally.examples.at(-1)?.slice(0, 160)}`);
    else if ("bounded" in e.expect) {
      // A record or a typed refusal: both are fine; the violation check above is the assertion.
    } else if ("code" in e.expect) {
      if (typed?.code !== e.expect.code)
        wrong.push(`${e.name}: ${typed?.code ?? "accepted"} instead of ${e.expect.code}`);
    } else if (r === null || !e.expect.ok(r)) {
      wrong.push(`${e.name}: ${typed?.code ?? "unexpected record"}`);
    }
    if (!prototypeClean()) wrong.push(`${e.name}: Object.prototype polluted`);
  }
  assert.equal(wrong, [], wrong.join("\n"));
});

/** Bytes this process has read through read(2)-like calls (`/proc/self/io` rchar), or null. */
function rchar(): number | null {
  try {
    const m = /^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"));
    return m?.[1] === undefined ? null : Number(m[1]);
  } catch {
    return null;
  }
}

guarded("bounded read and file types: over 4 MiB, symlink, FIFO, directory, missing", () => {
  const big = join(dir, "big.json");
  writeFileSync(big, Buffer.alloc(MAX_RECORD_BYTES + 4096, 0x20));
  const a = rchar();
  const b = rchar();
  const before = rchar();
  const typed = tally.attempt(() => readSeatRecord(big));
  const after = rchar();
  assert.is(typed?.code, "RECORD_UNREADABLE");
  if (a === null || b === null || before === null || after === null) {
    console.log("SKIP: /proc/self/io unreadable; bytes-read oracle not checked");
  } else {
    const bytes = after - before - (b - a);
    assert.ok(
      bytes <= MAX_RECORD_BYTES + 1 + 64,
      `read ${bytes} bytes with a ${MAX_RECORD_BYTES} limit`,
    );
    counts.oversizeBytesRead = bytes;
  }
  const target = join(dir, "target.json");
  writeFileSync(target, "{}");
  const link = join(dir, "link.json");
  symlinkSync(target, link);
  const fifo = join(dir, "fifo.json");
  execFileSync("mkfifo", [fifo]);
  const sub = join(dir, "sub.json");
  mkdirSync(sub);
  for (const p of [link, fifo, sub, join(dir, "missing.json")]) {
    assert.is(tally.attempt(() => readSeatRecord(p))?.code, "RECORD_UNREADABLE", p);
  }
});

decoderRun.claim("T7-seat-records", () => ({
  title: "Seat record reader under hostile files",
  sentence: (m) =>
    `${n(tally.inputs)} seat-record files (random bytes, JSON-ish text, ${n(counts.roundTrips)} generated records ` +
    `round-tripped then mutated, duplicated keys, ${n(counts.truncations)} truncations at every offset, ` +
    `${counts.edgeCases} JSON edge cases incl. ${n(DEEP)}-deep nesting, a symlink, a FIFO, a directory): 0 crashes, ` +
    `${n(tally.violations)} untyped throws, every refusal one of ${tally.rejectionSummary()}; a file over the 4 MiB ` +
    `limit refused after ${counts.oversizeBytesRead < 0 ? "(not measured)" : n(counts.oversizeBytesRead)} bytes read ` +
    `(kernel rchar); Object.prototype never polluted; memory ${m.describe}; the ${n(DEEP)}-deep cases ` +
    `peak at heapUsed ${m.deepHeapText}.`,
  method:
    "fast-check properties over lib/seat/seat-record.ts readSeatRecord / writeSeatRecord on real files (tmpfs), " +
    "/proc/self/io rchar as the bytes-read oracle (test/reliability/decoders-seat.test.ts).",
}));

test.run();
