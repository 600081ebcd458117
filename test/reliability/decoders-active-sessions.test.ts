// @platform linux: reads /proc as its independent oracle
/**
 * T7, `active_sessions.json` (docs/design/grok-leader-protocol.md §8; `lib/grok/active-sessions.ts`): the pure
 * parser on random, mutated, truncated and edge-case bytes (a status value, never a throw), and the
 * bounded reader on real files, with the kernel's own count of bytes read (`/proc/self/io` rchar)
 * as the oracle for "oversized input refused after reading at most the limit + 1 byte".
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseActiveSessions, readActiveSessions } from "../../lib/grok/active-sessions.js";
import { activeSessionsPath } from "../../lib/grok/paths.js";
import { scaled } from "../helpers/claims.js";
import { DecoderRun } from "../helpers/decoder-claim.js";
import { check } from "./lib/fuzz.js";
import {
  DEEP,
  deepArray,
  deepObject,
  HUGE_TEXT,
  LONE_SURROGATE_BYTES,
  prototypeClean,
  TWO_POW_64_TEXT,
} from "./lib/json-edge.js";
import { MiB } from "./lib/memory.js";
import { duplicateKey, mutate, mutationArb } from "./lib/mutate.js";
import { hexPreview, n } from "./lib/outcomes.js";
import { jsonishArb, textArb, utf8ishBytesArb } from "./lib/text.js";

const STATUSES = ["status:corrupt", "status:too_large", "status:unreadable", "status:missing"];
const decoderRun = new DecoderRun(
  test,
  "active_sessions.json",
  STATUSES,
  { truncations: 0, files: 0, edgeCases: 0, oversizeBytesRead: -1 },
  { deepCases: true },
);
const { tally, memory, counts, test: guarded } = decoderRun;
const PATH = "/grok-home/active_sessions.json";

type Read = ReturnType<typeof parseActiveSessions>;

/** Parse and tally: `ok` is an acceptance, any other status a typed (value) rejection. */
function parse(bytes: Buffer, input: () => string): Read | null {
  memory.every(tally.inputs);
  let r: Read;
  try {
    r = parseActiveSessions(PATH, bytes);
  } catch (err) {
    tally.thrown(err, input);
    return null;
  }
  if (r.status === "ok") {
    tally.accept();
    for (const e of r.entries) {
      assert.ok(Number.isInteger(e.pid) && e.pid >= 0 && e.pid <= 0xffff_ffff, "pid is a u32");
      assert.is(typeof e.session_id, "string");
    }
  } else {
    tally.reject(`status:${r.status}`, input);
  }
  return r;
}

const sessionArb = fc.record({
  session_id: fc.uuid(),
  pid: fc.integer({ min: 0, max: 0xffff_ffff }),
  cwd: textArb(30),
  opened_at: fc
    .date({ min: new Date("2020-01-01"), max: new Date("2040-01-01"), noInvalidDate: true })
    .map((d) => d.toISOString()),
});
/** The file as Grok writes it: a pretty-printed array (serde_json `to_string_pretty`, 2 spaces). */
const fileArb = fc
  .array(sessionArb, { maxLength: 4 })
  .map((a) => ({ entries: a, text: JSON.stringify(a, null, 2) }));

guarded("random bytes, UTF-8-ish bytes and JSON-ish text: ok or corrupt, never a throw", () => {
  check(
    fc.oneof(
      fc.uint8Array({ maxLength: 1024 }),
      utf8ishBytesArb,
      jsonishArb.map((t) => new Uint8Array(Buffer.from(t, "utf8"))),
    ),
    (bytes) => {
      parse(Buffer.from(bytes), () => hexPreview(bytes));
    },
    scaled(3_000, 300_000),
  );
});

guarded("valid files parse to their entries; mutated ones are ok or corrupt", () => {
  check(
    fc.tuple(fileArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 })),
    ([file, mutations]) => {
      const valid = parse(Buffer.from(file.text, "utf8"), () => file.text);
      assert.ok(valid?.status === "ok", `valid file refused: ${file.text}`);
      if (valid?.status === "ok")
        assert.equal(valid.entries, JSON.parse(JSON.stringify(file.entries)));
      const { bytes } = mutate(Buffer.from(file.text, "utf8"), mutations);
      parse(bytes, () => hexPreview(bytes));
    },
    scaled(3_000, 300_000),
  );
});

guarded("duplicated keys in an entry: last wins", () => {
  check(
    fc.tuple(
      sessionArb,
      fc.constantFrom("session_id", "pid", "cwd", "opened_at"),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    ([entry, key, extra]) => {
      const text = JSON.stringify(entry);
      const first = parse(
        Buffer.from(`[${duplicateKey(text, key, JSON.stringify(extra), "first")}]`),
        () => text,
      );
      assert.ok(first?.status === "ok", "an earlier duplicate is overridden by the real value");
      parse(Buffer.from(`[${duplicateKey(text, key, JSON.stringify(extra), "last")}]`), () => text);
    },
    scaled(1_000, 100_000),
  );
});

guarded(
  "truncated at every offset (inside UTF-8 too): only the empty and the whole file are ok",
  () => {
    check(
      fileArb.filter((f) => f.entries.length > 0),
      (file) => {
        const bytes = Buffer.from(file.text, "utf8");
        for (let cut = 0; cut <= bytes.length; cut++) {
          const r = parse(bytes.subarray(0, cut), () => `cut ${cut}`);
          // A trailing-whitespace-free pretty array parses only when whole (or empty: Grok's `[]`).
          const expectOk = cut === 0 || cut === bytes.length;
          assert.is(r?.status === "ok", expectOk, `cut at ${cut}`);
          counts.truncations++;
        }
      },
      scaled(30, 1_500),
    );
  },
);

const E =
  '"session_id":"0198c0de-0000-4000-8000-000000000001","cwd":"/w","opened_at":"2026-08-19T19:55:30.123456789Z"';
type Expect =
  | { readonly ok: (r: Extract<Read, { status: "ok" }>) => boolean }
  | { readonly status: Read["status"] };

/**
 * JSON edge cases (docs/design/reliability-plan.md §4) with explicit outcomes. Built when the test runs, so
 * their megabytes of fixtures are not counted as memory the decoder kept.
 */
const edgeCases = (): readonly { name: string; bytes: Buffer; expect: Expect }[] => [
  {
    name: "empty file: [] as Grok reads it",
    bytes: Buffer.alloc(0),
    expect: { ok: (r) => r.entries.length === 0 },
  },
  {
    name: "duplicate pid: last wins",
    bytes: Buffer.from(`[{${E},"pid":1,"pid":2}]`),
    expect: { ok: (r) => r.entries[0]?.pid === 2 },
  },
  {
    name: "__proto__ member: dropped, nothing inherited",
    bytes: Buffer.from(`[{${E},"pid":1,"__proto__":{"polluted":true,"cwd":"/evil"}}]`),
    expect: { ok: (r) => r.entries[0]?.cwd === "/w" && !("polluted" in (r.entries[0] ?? {})) },
  },
  {
    name: "lone surrogate escape in cwd: kept as the lone unit",
    bytes: Buffer.from(`[{${E.replace('"/w"', '"/\\ud800"')},"pid":1}]`),
    expect: { ok: (r) => r.entries[0]?.cwd === "/\ud800" },
  },
  {
    name: "lone surrogate as raw bytes in cwd",
    bytes: Buffer.concat([Buffer.from('[{"cwd":"'), LONE_SURROGATE_BYTES, Buffer.from('"}]')]),
    expect: { status: "corrupt" },
  },
  { name: "10^6-deep array", bytes: Buffer.from(deepArray()), expect: { status: "corrupt" } },
  { name: "10^6-deep object", bytes: Buffer.from(deepObject()), expect: { status: "corrupt" } },
  {
    name: "10^6-deep unknown key in an entry: dropped",
    bytes: Buffer.from(`[{${E},"pid":1,"x":${deepArray()}}]`),
    expect: { ok: (r) => r.entries.length === 1 },
  },
  {
    name: "pid 1e400 (Infinity)",
    bytes: Buffer.from(`[{${E},"pid":${HUGE_TEXT}}]`),
    expect: { status: "corrupt" },
  },
  {
    name: "pid 2^64",
    bytes: Buffer.from(`[{${E},"pid":${TWO_POW_64_TEXT}}]`),
    expect: { status: "corrupt" },
  },
  {
    name: "pid 2^32-1: the largest u32",
    bytes: Buffer.from(`[{${E},"pid":4294967295}]`),
    expect: { ok: (r) => r.entries[0]?.pid === 4294967295 },
  },
  {
    name: "byte order mark: kept, so the file is corrupt as serde_json::from_slice would say",
    bytes: Buffer.from(`\ufeff[{${E},"pid":1}]`),
    expect: { status: "corrupt" },
  },
  { name: "NaN literal", bytes: Buffer.from(`[{${E},"pid":NaN}]`), expect: { status: "corrupt" } },
];

guarded("JSON edge cases: each has its explicit outcome, and nothing is polluted", () => {
  const probe = decoderRun.deepCasesProbe();
  for (const e of edgeCases()) {
    const r = parse(e.bytes, () => e.name);
    probe.sample();
    assert.ok(r !== null, `${e.name}: threw`);
    if ("status" in e.expect) assert.is(r?.status, e.expect.status, e.name);
    else
      assert.ok(
        r?.status === "ok" && e.expect.ok(r),
        `${e.name}: ${JSON.stringify(r).slice(0, 200)}`,
      );
    assert.ok(prototypeClean(), `${e.name}: Object.prototype polluted`);
    counts.edgeCases++;
  }
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

/** rchar growth while `run` runs, minus what reading /proc/self/io itself costs. */
async function bytesReadBy(run: () => Promise<unknown>): Promise<number | null> {
  const a = rchar();
  const b = rchar();
  const before = rchar();
  await run();
  const after = rchar();
  if (a === null || b === null || before === null || after === null) return null;
  return after - before - (b - a);
}

guarded("the reader on real files: bounded reads, no symlink, no FIFO hang", async () => {
  const home = mkdtempSync(join(tmpdir(), "gs-t7-active-"));
  try {
    const path = activeSessionsPath(home);
    const max = 64 * 1024;
    const valid = JSON.stringify(
      [{ session_id: "s", pid: 1, cwd: "/", opened_at: "2026-01-01T00:00:00Z" }],
      null,
      2,
    );
    const padded = (size: number): string => valid + " ".repeat(size - Buffer.byteLength(valid));
    const tallyRead = (r: Awaited<ReturnType<typeof readActiveSessions>>): void => {
      if (r.status === "ok") tally.accept();
      else tally.reject(`status:${r.status}`);
      counts.files++;
    };
    // Exactly the limit is read and parsed; one byte over is refused from fstat, before reading.
    writeFileSync(path, padded(max));
    let r = await readActiveSessions(home, { maxBytes: max });
    assert.is(r.status, "ok");
    tallyRead(r);
    for (const size of [max + 1, 10 * MiB]) {
      writeFileSync(path, padded(size));
      const read = await bytesReadBy(async () => {
        r = await readActiveSessions(home, { maxBytes: max });
      });
      assert.is(r.status, "too_large", `size ${size}`);
      tallyRead(r);
      if (read === null)
        console.log("SKIP: /proc/self/io unreadable; bytes-read oracle not checked");
      else {
        assert.ok(read <= max + 1, `read ${read} bytes of a ${size}-byte file with a ${max} limit`);
        counts.oversizeBytesRead = Math.max(counts.oversizeBytesRead, read);
      }
    }
    // A symlink is not followed; a FIFO is not opened for a blocking read; a directory is no file.
    rmSync(path);
    writeFileSync(join(home, "elsewhere.json"), valid);
    symlinkSync(join(home, "elsewhere.json"), path);
    r = await readActiveSessions(home);
    assert.ok(r.status === "unreadable" && r.errno === "ELOOP", JSON.stringify(r));
    tallyRead(r);
    rmSync(path);
    execFileSync("mkfifo", [path]);
    r = await readActiveSessions(home);
    assert.ok(r.status === "unreadable" && r.errno === "ENOTREG", JSON.stringify(r));
    tallyRead(r);
    rmSync(path);
    mkdirSync(path);
    r = await readActiveSessions(home);
    assert.is(r.status, "unreadable");
    tallyRead(r);
    rmSync(path, { recursive: true });
    r = await readActiveSessions(home);
    assert.is(r.status, "missing");
    tallyRead(r);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

decoderRun.claim("T7-active-sessions", () => ({
  title: "active_sessions.json reader under hostile files",
  sentence: (m) =>
    `${n(tally.inputs)} generated active_sessions.json inputs (random bytes, JSON-ish text, mutated and duplicated-key ` +
    `files, ${n(counts.truncations)} truncations at every offset, ${counts.edgeCases} JSON edge cases incl. ${n(DEEP)}-deep ` +
    `nesting, ${n(counts.files)} real files incl. a symlink, a FIFO and a directory): 0 crashes, ${n(tally.violations)} ` +
    `throws, every refusal a status, one of ${tally.rejectionSummary()}; files of 64 KiB + 1 B and 10 MiB over a ` +
    `64 KiB limit refused with at most ${counts.oversizeBytesRead < 0 ? "(not measured)" : n(counts.oversizeBytesRead)} ` +
    `bytes read (kernel rchar, measurement noise included); ` +
    `Object.prototype never polluted; memory ${m.describe}; the ${n(DEEP)}-deep cases peak at heapUsed ` +
    `${m.deepHeapText}.`,
  method:
    "fast-check properties over lib/grok/active-sessions.ts parseActiveSessions, readActiveSessions on real files " +
    "with /proc/self/io rchar as the bytes-read oracle (test/reliability/decoders-active-sessions.test.ts).",
}));

test.run();
