/**
 * T7, leader frames (docs/design/reliability-plan.md §6 T7 (a)-(c), (e)): the bytes -> frames -> messages path
 * of `lib/leader/frame-codec.ts` and `lib/leader/messages.ts`, driven the way
 * `lib/leader/leader-connection.ts` drives it (every chunk pushed, every frame parsed as a ServerMessage,
 * the first typed error ends the stream). Timing (idle timeout, slowloris) is on real sockets in
 * `decoders-leader-socket.test.ts`.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import {
  encodeFrame,
  FRAME_HEADER_BYTES,
  FrameDecoder,
  MAX_FRAME_BYTES,
} from "../../lib/leader/frame-codec.js";
import { parseServerMessage, type ServerMessage } from "../../lib/leader/messages.js";
import { scaled } from "../helpers/claims.js";
import { DecoderRun } from "../helpers/decoder-claim.js";
import { check } from "./lib/fuzz.js";
import {
  DEEP,
  deepArray,
  deepObject,
  HUGE_TEXT,
  LONE_SURROGATE_BYTES,
  LONE_SURROGATE_ESCAPE,
  prototypeClean,
  TWO_POW_64_TEXT,
  U64_MAX_TEXT,
  UNSAFE_INT_TEXT,
} from "./lib/json-edge.js";
import {
  FRAME_DECODE_CODES,
  invalidServerMessageArb,
  serverMessageArb,
} from "./lib/leader-messages.js";
import { duplicateKey, mutate, mutationArb } from "./lib/mutate.js";
import { hexPreview, n } from "./lib/outcomes.js";
import { bytewise, cutsArb, everySplit, insideUtf8Offsets, splitAt } from "./lib/split.js";
import { jsonishArb, utf8ishBytesArb } from "./lib/text.js";

/** Every code the leader read path documents (frame-codec.ts, messages.ts, frame-watchdog.ts). */
const CODES = [...FRAME_DECODE_CODES, "TRUNCATED_FRAME"];
const FRAME_LEVEL = new Set(["FRAME_TOO_LARGE", "INVALID_UTF8", "INVALID_JSON"]);

const decoderRun = new DecoderRun(
  test,
  "leader frames",
  CODES,
  { roundTripSplits: 0, insideUtf8Splits: 0, oversize: 0, edgeCases: 0 },
  { deepCases: true },
);
const { tally, memory, counts, test: guarded } = decoderRun;

interface Run {
  /** Raw decoded values of the frames parsed as ServerMessages, in order. */
  readonly values: unknown[];
  readonly error: unknown;
  readonly decoder: FrameDecoder;
  /** Largest `pendingBytes` seen after any push. */
  readonly maxPending: number;
}

/** What leader-connection.ts does with socket chunks: push, parse each frame, stop at the first error. */
function run(chunks: readonly Uint8Array[], maxFrameBytes = MAX_FRAME_BYTES): Run {
  const decoder = new FrameDecoder({ maxFrameBytes });
  const values: unknown[] = [];
  let maxPending = 0;
  try {
    for (const chunk of chunks) {
      decoder.push(chunk, (value) => {
        parseServerMessage(value);
        values.push(value);
      });
      maxPending = Math.max(maxPending, decoder.pendingBytes);
    }
    const end = decoder.finish();
    if (end) throw end;
  } catch (error) {
    return { values, error, decoder, maxPending };
  }
  return { values, error: null, decoder, maxPending };
}

/** Tally one run; assert the per-run invariants that hold for any input. */
function judge(r: Run, cap: number, input: () => string): void {
  memory.every(tally.inputs);
  assert.ok(r.maxPending <= cap + FRAME_HEADER_BYTES, `pending ${r.maxPending} > cap ${cap} + 4`);
  if (r.error === null) {
    tally.accept();
    return;
  }
  const typed = tally.thrown(r.error, input);
  if (typed === null) return;
  if (r.decoder.failure !== null) {
    // A frame-level failure poisons the decoder: the same error for anything pushed later.
    assert.ok(r.decoder.failure === typed, "the decoder's failure is the error thrown");
    assert.ok(FRAME_LEVEL.has(typed.code) || typed.code === "TRUNCATED_FRAME", typed.code);
    let again: unknown = null;
    try {
      r.decoder.push(encodeFrame({ type: "pong" }), () => {});
    } catch (err) {
      again = err;
    }
    assert.ok(again === typed, "poisoned decoder rethrows its failure");
  }
}

const reference = (messages: readonly unknown[]): unknown => JSON.parse(JSON.stringify(messages));

guarded("random bytes, any cap, any split: frames or a documented typed error", () => {
  check(
    fc.tuple(fc.uint8Array({ maxLength: 2048 }), cutsArb(), fc.integer({ min: 1, max: 1024 })),
    ([bytes, cuts, cap]) => judge(run(splitAt(bytes, cuts), cap), cap, () => hexPreview(bytes)),
    scaled(2_000, 200_000),
  );
});

guarded("random bodies behind valid headers (UTF-8-ish bytes and JSON-ish text)", () => {
  const body = fc.oneof(
    utf8ishBytesArb,
    jsonishArb.map((t) => new Uint8Array(Buffer.from(t, "utf8"))),
  );
  check(
    fc.tuple(fc.array(body, { minLength: 1, maxLength: 4 }), cutsArb()),
    ([bodies, cuts]) => {
      const bytes = Buffer.concat(
        bodies.map((b) => {
          const header = Buffer.alloc(FRAME_HEADER_BYTES);
          header.writeUInt32BE(b.length, 0);
          return Buffer.concat([header, b]);
        }),
      );
      judge(run(splitAt(bytes, cuts)), MAX_FRAME_BYTES, () => hexPreview(bytes));
    },
    scaled(3_000, 250_000),
  );
});

guarded("mutated valid streams: typed outcome, every frame before the damage delivered", () => {
  check(
    fc.tuple(
      fc.array(serverMessageArb, { minLength: 1, maxLength: 6 }),
      fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
      cutsArb(),
    ),
    ([messages, mutations, cuts]) => {
      const frames = messages.map((m) => encodeFrame(m));
      const original = Buffer.concat(frames);
      const { bytes, firstDamage } = mutate(original, mutations);
      const r = run(splitAt(bytes, cuts));
      judge(r, MAX_FRAME_BYTES, () => hexPreview(bytes));
      let end = 0;
      let intact = 0;
      for (const f of frames) {
        end += f.length;
        if (end <= firstDamage) intact++;
      }
      const expected = reference(messages.slice(0, intact));
      assert.equal(r.values.slice(0, intact), expected, "frames before the damage");
      if (firstDamage === Infinity) assert.is(r.error, null, "an unchanged stream decodes");
    },
    scaled(3_000, 250_000),
  );
});

guarded("duplicated keys: JSON.parse's last-wins reading, through the whole pipeline", () => {
  check(
    fc.tuple(serverMessageArb, fc.jsonValue({ maxDepth: 1 }), fc.boolean(), fc.nat()),
    ([message, extra, first, pick]) => {
      const text = JSON.stringify(message);
      const keys = Object.keys(message);
      const key = keys[pick % keys.length] ?? "type";
      const dup = duplicateKey(text, key, JSON.stringify(extra), first ? "first" : "last");
      const r = run([encodeFrame(JSON.parse(dup))]);
      // encodeFrame(JSON.parse(dup)) would hide the duplicate: frame the text itself.
      const body = Buffer.from(dup, "utf8");
      const header = Buffer.alloc(FRAME_HEADER_BYTES);
      header.writeUInt32BE(body.length, 0);
      const raw = run([Buffer.concat([header, body])]);
      judge(raw, MAX_FRAME_BYTES, () => dup);
      assert.equal(raw.values, r.values, "the same outcome as the last-wins object");
      if (first) assert.equal(raw.values, reference([message]), "an earlier duplicate is ignored");
    },
    scaled(1_000, 50_000),
  );
});

guarded(
  "round trip: valid streams split anywhere, at every offset and inside UTF-8 sequences",
  () => {
    check(
      fc.tuple(fc.array(serverMessageArb, { minLength: 1, maxLength: 5 }), cutsArb()),
      ([messages, cuts]) => {
        const bytes = Buffer.concat(messages.map((m) => encodeFrame(m)));
        const expected = reference(messages);
        const once = run(splitAt(bytes, cuts));
        judge(once, MAX_FRAME_BYTES, () => hexPreview(bytes));
        assert.equal(once.values, expected);
        counts.roundTripSplits++;
        // Every two-chunk split of small streams; every cut inside a multi-byte sequence of any.
        const offsets =
          bytes.length <= 400
            ? [...everySplit(bytes)].map(([a]) => a.length)
            : insideUtf8Offsets(bytes);
        for (const at of offsets) {
          const r = run([bytes.subarray(0, at), bytes.subarray(at)]);
          judge(r, MAX_FRAME_BYTES, () => `${hexPreview(bytes)} split at ${at}`);
          assert.equal(r.values, expected, `split at ${at}`);
          counts.roundTripSplits++;
        }
        counts.insideUtf8Splits += insideUtf8Offsets(bytes).length;
      },
      scaled(200, 5_000),
    );
    check(
      fc.tuple(fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 5 }), cutsArb()),
      ([values, cuts]) => {
        const bytes = Buffer.concat(values.map((v) => encodeFrame(v)));
        const decoder = new FrameDecoder();
        const got: unknown[] = [];
        tally.attempt(
          () => {
            for (const c of splitAt(bytes, cuts)) decoder.push(c, (v) => got.push(v));
            assert.is(decoder.finish(), null);
          },
          () => hexPreview(bytes),
        );
        assert.equal(got, reference(values), "any JSON value survives framing");
        counts.roundTripSplits++;
      },
      scaled(1_000, 50_000),
    );
  },
);

guarded("a rejected message does not lose the framing: later valid frames still decode", () => {
  check(
    fc.array(
      fc.oneof(
        serverMessageArb.map((m) => ({ ok: m })),
        invalidServerMessageArb.map((b) => ({ bad: b })),
      ),
      {
        minLength: 1,
        maxLength: 8,
      },
    ),
    (items) => {
      const bytes = Buffer.concat(items.map((i) => encodeFrame("ok" in i ? i.ok : i.bad)));
      const decoder = new FrameDecoder();
      const got: unknown[] = [];
      decoder.push(bytes, (value) => {
        // A caller that records the typed message error and carries on (the ACP tap's policy).
        tally.attempt(
          () => {
            parseServerMessage(value);
            got.push(value);
          },
          () => JSON.stringify(value),
        );
      });
      assert.is(decoder.finish(), null);
      const valid = items.flatMap((i) => ("ok" in i ? [i.ok] : []));
      assert.equal(got, reference(valid));
    },
    scaled(1_000, 100_000),
  );
});

guarded("oversized: refused from the 4 header bytes, 0 body bytes read, for any cap", () => {
  check(
    fc.tuple(
      fc.integer({ min: 1, max: MAX_FRAME_BYTES }),
      fc.nat(),
      fc.array(serverMessageArb, { maxLength: 3 }),
    ),
    ([cap, excessSeed, before]) => {
      const announced = cap + 1 + (excessSeed % (0xffff_ffff - cap));
      const head = Buffer.alloc(FRAME_HEADER_BYTES);
      head.writeUInt32BE(announced, 0);
      const prefix = Buffer.concat(
        before.map((m) => encodeFrame(m)).filter((f) => f.length - FRAME_HEADER_BYTES <= cap),
      );
      const decoder = new FrameDecoder({ maxFrameBytes: cap });
      decoder.push(prefix, () => {});
      // Then the oversized header and body bytes, one at a time: count what was consumed.
      let consumed = 0;
      let error: unknown = null;
      for (const chunk of bytewise(Buffer.concat([head, Buffer.alloc(16, 0x7b)]))) {
        try {
          decoder.push(chunk, () => {});
          consumed++;
        } catch (err) {
          consumed++;
          error = err;
          break;
        }
      }
      assert.ok(error instanceof GrokSeatError && error.code === "FRAME_TOO_LARGE", String(error));
      assert.is(consumed, FRAME_HEADER_BYTES, "rejected on the 4th byte");
      assert.ok(decoder.pendingBytes <= FRAME_HEADER_BYTES);
      tally.thrown(error);
      counts.oversize++;
    },
    scaled(1_000, 100_000),
  );
  // The boundary: a body of exactly the cap decodes, one byte more is refused.
  for (const cap of [1, 2, 3, 17, 4096, 65_537]) {
    const body = cap === 1 ? "7" : `"${"x".repeat(cap - 2)}"`;
    const ok = Buffer.concat([Buffer.alloc(4), Buffer.from(body)]);
    ok.writeUInt32BE(cap, 0);
    const got: unknown[] = [];
    new FrameDecoder({ maxFrameBytes: cap }).push(ok, (v) => got.push(v));
    assert.equal(got, [JSON.parse(body)], `exactly ${cap}`);
    const over = Buffer.alloc(4);
    over.writeUInt32BE(cap + 1, 0);
    assert.throws(() => new FrameDecoder({ maxFrameBytes: cap }).push(over, () => {}));
  }
  // Announcing the full 64 MiB buffers only the bytes that arrived, never the announced size.
  memory.sample();
  const decoder = new FrameDecoder();
  const head = Buffer.alloc(4);
  head.writeUInt32BE(MAX_FRAME_BYTES, 0);
  decoder.push(head, () => {});
  for (let i = 0; i < 16; i++) decoder.push(Buffer.alloc(64 * 1024, 0x20), () => {});
  assert.is(decoder.pendingBytes, 4 + 16 * 64 * 1024);
  memory.sample();
  counts.oversize++;
});

type Expect = { readonly accept: (m: ServerMessage) => boolean } | { readonly code: string };

/** JSON edge cases (docs/design/reliability-plan.md §4) and each one's explicit expected outcome. */
const EDGE: readonly { name: string; body: string | Uint8Array; expect: Expect }[] = [
  {
    name: "duplicate type: last wins",
    body: '{"type":"pong","type":"shutdown"}',
    expect: { accept: (m) => m.type === "shutdown" },
  },
  {
    name: "duplicate payload: last wins",
    body: '{"type":"acp","payload":"a","payload":"b"}',
    expect: { accept: (m) => m.type === "acp" && m.payload === "b" },
  },
  {
    name: "lone surrogate escape: kept as the lone UTF-16 unit",
    body: `{"type":"acp","payload":"${LONE_SURROGATE_ESCAPE}"}`,
    expect: { accept: (m) => m.type === "acp" && m.payload === "\ud800" },
  },
  {
    name: "lone surrogate as raw bytes (CESU-8): not UTF-8",
    body: Buffer.concat([
      Buffer.from('{"type":"acp","payload":"'),
      LONE_SURROGATE_BYTES,
      Buffer.from('"}'),
    ]),
    expect: { code: "INVALID_UTF8" },
  },
  {
    name: "__proto__ member: an own key, dropped with the unknown keys",
    body: '{"type":"pong","__proto__":{"polluted":true}}',
    expect: { accept: (m) => m.type === "pong" && Object.keys(m).join() === "type" },
  },
  {
    name: "constructor.prototype member: dropped",
    body: '{"type":"acp","payload":"x","constructor":{"prototype":{"polluted":true}}}',
    expect: { accept: (m) => m.type === "acp" && !Object.keys(m).includes("constructor") },
  },
  {
    name: "type only under __proto__: no own type, so not a message",
    body: '{"__proto__":{"type":"pong"}}',
    expect: { code: "INVALID_MESSAGE" },
  },
  {
    name: "10^6-deep array: parsed, not an object",
    body: deepArray(),
    expect: { code: "INVALID_MESSAGE" },
  },
  {
    name: "10^6-deep object: parsed, no type",
    body: deepObject(),
    expect: { code: "INVALID_MESSAGE" },
  },
  {
    name: "10^6-deep value in an unknown key: ignored",
    body: `{"type":"pong","x":${deepArray()}}`,
    expect: { accept: (m) => m.type === "pong" },
  },
  {
    name: "10^6-deep control Err details: kept as a value, never walked",
    body: `{"type":"control_result","request_id":"1","result":{"Err":{"code":"c","message":"m","details":${deepArray()}}}}`,
    expect: { accept: (m) => m.type === "control_result" },
  },
  {
    name: "client_id 1e400 (Infinity)",
    body: `{"type":"registered","client_id":${HUGE_TEXT}}`,
    expect: { code: "INVALID_MESSAGE" },
  },
  {
    name: "client_id 2^64-1",
    body: `{"type":"registered","client_id":${U64_MAX_TEXT}}`,
    expect: { code: "INVALID_MESSAGE" },
  },
  {
    name: "client_id 2^53+1",
    body: `{"type":"registered","client_id":${UNSAFE_INT_TEXT}}`,
    expect: { code: "INVALID_MESSAGE" },
  },
  {
    name: "client_id 2^53-1: the largest exact u64 we hold",
    body: '{"type":"registered","client_id":9007199254740991}',
    expect: { accept: (m) => m.type === "registered" && m.client_id === Number.MAX_SAFE_INTEGER },
  },
  {
    name: "delay_ms 2^64",
    body: `{"type":"shutting_down","reason":"manual","delay_ms":${TWO_POW_64_TEXT}}`,
    expect: { code: "INVALID_MESSAGE" },
  },
  {
    name: "error code 1e400",
    body: `{"type":"error","code":${HUGE_TEXT},"message":"m"}`,
    expect: { code: "INVALID_MESSAGE" },
  },
  {
    name: "1e400 in an unknown key: ignored",
    body: `{"type":"pong","n":${HUGE_TEXT}}`,
    expect: { accept: (m) => m.type === "pong" },
  },
  { name: "byte order mark", body: '\ufeff{"type":"pong"}', expect: { code: "INVALID_JSON" } },
  { name: "trailing garbage", body: '{"type":"pong"} x', expect: { code: "INVALID_JSON" } },
  { name: "NaN literal", body: '{"type":"pong","n":NaN}', expect: { code: "INVALID_JSON" } },
  { name: "empty body", body: "", expect: { code: "INVALID_JSON" } },
];

function framed(body: string | Uint8Array): Buffer {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUInt32BE(bytes.length, 0);
  return Buffer.concat([header, bytes]);
}

guarded(
  "JSON edge cases: each has its explicit outcome, whole or split, and nothing is polluted",
  () => {
    const probe = decoderRun.deepCasesProbe();
    for (const e of EDGE) {
      const bytes = framed(e.body);
      // Whole, split at every offset for small frames, at a few offsets for the 10^6-deep ones.
      const splits =
        bytes.length <= 512
          ? [...everySplit(bytes)].map(([a]) => a.length)
          : [0, 3, 5, bytes.length >> 1];
      for (const at of splits) {
        const decoder = new FrameDecoder();
        const parsed: ServerMessage[] = [];
        let error: unknown = null;
        try {
          for (const c of [bytes.subarray(0, at), bytes.subarray(at)]) {
            decoder.push(c, (v) => parsed.push(parseServerMessage(v)));
          }
        } catch (err) {
          error = err;
        }
        probe.sample();
        if ("code" in e.expect) {
          assert.ok(error instanceof GrokSeatError, `${e.name}: ${String(error)}`);
          assert.is(error.code, e.expect.code, e.name);
          tally.thrown(error);
        } else {
          assert.is(error, null, `${e.name}: ${String(error)}`);
          const m = parsed[0];
          assert.ok(parsed.length === 1 && m !== undefined && e.expect.accept(m), e.name);
          tally.accept();
        }
        assert.ok(prototypeClean(), `${e.name}: Object.prototype polluted`);
        counts.edgeCases++;
      }
    }
  },
);

decoderRun.claim("T7-leader-frames", () => ({
  title: "Leader frame decoder under hostile bytes",
  sentence: (m) =>
    `${n(tally.inputs)} generated leader-socket inputs (random bytes, random bodies behind valid headers, ` +
    `mutated valid streams, duplicated keys, ${n(counts.roundTripSplits)} round-trip splits incl. ` +
    `${n(counts.insideUtf8Splits)} inside UTF-8 sequences, ${EDGE.length} JSON edge cases incl. ${n(DEEP)}-deep nesting): ` +
    `0 crashes, ${n(tally.violations)} untyped throws, every rejection one of ${tally.rejectionSummary()}; ` +
    `oversized frames refused from their 4 header bytes (0 body bytes read) in ${n(counts.oversize)} runs; ` +
    `Object.prototype never polluted; memory ${m.describe}; ` +
    `the ${n(DEEP)}-deep cases peak at heapUsed ${m.deepHeapText}.`,
  counts: () => ({
    ...tally.counts(),
    roundTripSplits: counts.roundTripSplits,
    insideUtf8Splits: counts.insideUtf8Splits,
    oversizeRuns: counts.oversize,
    edgeCaseRuns: counts.edgeCases,
  }),
  method:
    "fast-check properties over lib/leader/frame-codec.ts + messages.ts, driven as leader-connection.ts drives them " +
    "(test/reliability/decoders-leader.test.ts); process.memoryUsage() sampled every 2,048 inputs after a forced GC.",
}));

test.run();
