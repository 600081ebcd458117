/**
 * T7, Herdr lines (docs/design/reliability-plan.md §6 T7; docs/design/herdr-socket-api.md §1.2-§1.5): newline framing with a
 * cap (`lib/herdr/line-buffer.ts`), then a reply (`parseReply`, `lib/herdr/client.ts`) or pushed
 * events (`parseEventLine`, `lib/herdr/wire-events.ts`). The pure pipeline below feeds chunks the
 * way `LineConnection` does and maps the line buffer's results to the codes `line-connection.ts` gives
 * them; `decoders-herdr-socket.test.ts` checks that mapping on real sockets.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError, WireError } from "../../lib/errors.js";
import { parseReply } from "../../lib/herdr/client.js";
import { LineBuffer } from "../../lib/herdr/line-buffer.js";
import { type HerdrMethod, RESULT_SCHEMAS } from "../../lib/herdr/methods.js";
import { SubscriptionStartedSchema } from "../../lib/herdr/wire-envelope.js";
import { parseEventLine } from "../../lib/herdr/wire-events.js";
import { scaled } from "../helpers/claims.js";
import { DecoderRun } from "../helpers/decoder-claim.js";
import { check } from "./lib/fuzz.js";
import { eventLineArb, METHODS, replyArb } from "./lib/herdr-lines.js";
import {
  DEEP,
  deepArray,
  HUGE_TEXT,
  LONE_SURROGATE_BYTES,
  prototypeClean,
  TWO_POW_64_TEXT,
} from "./lib/json-edge.js";
import { MiB } from "./lib/memory.js";
import { mutate, mutationArb } from "./lib/mutate.js";
import { hexPreview, n } from "./lib/outcomes.js";
import { bytewise, cutsArb, everySplit, insideUtf8Offsets, splitAt } from "./lib/split.js";
import { jsonishArb, textArb, utf8ishBytesArb } from "./lib/text.js";

const CODES = [
  "HERDR_REPLY_TOO_LARGE",
  "HERDR_REPLY_MALFORMED",
  "HERDR_REPLY_INVALID",
  "HERDR_REPLY_MISMATCH",
  "HERDR_CLOSED_EARLY",
  "WIRE:herdr",
];
const DEFAULT_CAP = 8 * MiB; // DEFAULT_MAX_REPLY_BYTES
const decoderRun = new DecoderRun(
  test,
  "herdr lines",
  CODES,
  { roundTripSplits: 0, insideUtf8Splits: 0, oversize: 0, edgeCases: 0 },
  { deepCases: true },
);
const { tally, memory, counts, test: guarded } = decoderRun;

interface Lines {
  readonly lines: string[];
  readonly error: GrokSeatError | null;
  readonly maxPending: number;
}

/**
 * Chunks -> complete lines, as LineConnection collects them: a `too_long` or `bad_utf8` result
 * fails the connection with HERDR_REPLY_TOO_LARGE / HERDR_REPLY_MALFORMED (line-connection.ts).
 * The line buffer itself must never throw: a throw escapes to the caller's `attempt`.
 */
function collect(chunks: readonly Buffer[], cap: number): Lines {
  const buffer = new LineBuffer(cap);
  const lines: string[] = [];
  let maxPending = 0;
  for (const chunk of chunks) {
    const r = buffer.push(chunk);
    maxPending = Math.max(maxPending, buffer.pendingBytes);
    // A failure also carries the lines decoded before it in the same chunk (line-buffer.ts).
    if (r.kind !== "lines") lines.push(...r.lines);
    if (r.kind === "too_long") {
      assert.ok(r.bytes > cap, "too_long only above the cap");
      return {
        lines,
        error: new GrokSeatError("HERDR_REPLY_TOO_LARGE", "line over cap"),
        maxPending,
      };
    }
    if (r.kind === "bad_utf8") {
      return { lines, error: new GrokSeatError("HERDR_REPLY_MALFORMED", "not UTF-8"), maxPending };
    }
    lines.push(...r.lines);
  }
  // The server closed: a partial line is HERDR_CLOSED_EARLY (line-connection.ts `#serverClosed`).
  const error =
    buffer.pendingBytes > 0 ? new GrokSeatError("HERDR_CLOSED_EARLY", "mid-line close") : null;
  return { lines, error, maxPending };
}

/** One request's reply: the first line, parsed for `id`/`method` (HerdrClient.requestWithPeer). */
function request(chunks: readonly Buffer[], cap: number, id: string, method: HerdrMethod): unknown {
  const got = collect(chunks, cap);
  assert.ok(got.maxPending <= cap, `pending ${got.maxPending} > cap ${cap}`);
  const line = got.lines[0];
  if (line !== undefined) return parseReply(line, id, method, RESULT_SCHEMAS[method]);
  throw got.error ?? new GrokSeatError("HERDR_CLOSED_EARLY", "no reply");
}

/** A subscription stream: `subscription_started`, then events until the first bad line. */
function subscription(chunks: readonly Buffer[], cap: number, id: string): unknown[] {
  const got = collect(chunks, cap);
  assert.ok(got.maxPending <= cap, `pending ${got.maxPending} > cap ${cap}`);
  const [first, ...rest] = got.lines;
  if (first === undefined) throw got.error ?? new GrokSeatError("HERDR_CLOSED_EARLY", "no ack");
  parseReply(first, id, "events.subscribe", SubscriptionStartedSchema);
  const events: unknown[] = [];
  for (const line of rest) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new GrokSeatError("HERDR_REPLY_MALFORMED", "pushed line is not JSON");
    }
    const event = parseEventLine(value);
    if (event === null) throw new GrokSeatError("HERDR_REPLY_MALFORMED", "not an event");
    events.push(event);
  }
  if (got.error) throw got.error;
  return events;
}

const methodArb = fc.constantFrom(...METHODS);
const ACK = '{"id":"gs-1-0","result":{"type":"subscription_started"}}';

guarded("random bytes, any cap, any split, any method: a reply or a documented typed error", () => {
  check(
    fc.tuple(
      fc.oneof(fc.uint8Array({ maxLength: 1024 }), utf8ishBytesArb),
      cutsArb(),
      fc.integer({ min: 1, max: 2048 }),
      methodArb,
      fc.boolean(),
    ),
    ([bytes, cuts, cap, method, asStream]) => {
      const chunks = splitAt(bytes, cuts);
      memory.every(tally.inputs);
      tally.attempt(
        () =>
          asStream
            ? subscription([Buffer.from(`${ACK}\n`), ...chunks], cap + ACK.length, "gs-1-0")
            : request(chunks, cap, "gs-1-0", method),
        () => hexPreview(bytes),
      );
    },
    scaled(3_000, 300_000),
  );
});

guarded("JSON-ish lines: deep into the parser and the schemas, typed outcome", () => {
  check(
    fc.tuple(fc.array(jsonishArb, { minLength: 1, maxLength: 4 }), methodArb, fc.boolean()),
    ([texts, method, asStream]) => {
      const bytes = Buffer.from(`${texts.join("\n")}\n`, "utf8");
      memory.every(tally.inputs);
      tally.attempt(
        () =>
          asStream
            ? subscription([Buffer.from(`${ACK}\n`), bytes], DEFAULT_CAP, "gs-1-0")
            : request([bytes], DEFAULT_CAP, "gs-1-0", method),
        () => texts.join("⏎"),
      );
    },
    scaled(2_000, 150_000),
  );
});

guarded(
  "mutated valid replies and event streams: typed outcome, delivered lines are the originals",
  () => {
    check(
      fc.tuple(
        replyArb,
        fc.array(eventLineArb, { maxLength: 5 }),
        fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
        cutsArb(),
      ),
      ([reply, events, mutations, cuts]) => {
        // A one-shot reply.
        const one = mutate(Buffer.from(`${reply.line}\n`, "utf8"), mutations);
        memory.every(tally.inputs);
        tally.attempt(
          () => request(splitAt(one.bytes, cuts), DEFAULT_CAP, reply.id, reply.method),
          () => hexPreview(one.bytes),
        );
        // An event stream: whatever lines come out are a prefix of the originals, unchanged.
        const original = [ACK, ...events];
        const stream = mutate(Buffer.from(`${original.join("\n")}\n`, "utf8"), mutations);
        const got = collect(splitAt(stream.bytes, cuts), DEFAULT_CAP);
        let end = 0;
        let intact = 0;
        for (const line of original) {
          end += Buffer.byteLength(line) + 1;
          if (end <= stream.firstDamage) intact++;
        }
        assert.equal(
          got.lines.slice(0, Math.min(intact, got.lines.length)),
          original.slice(0, Math.min(intact, got.lines.length)),
        );
        tally.attempt(
          () => subscription(splitAt(stream.bytes, cuts), DEFAULT_CAP, "gs-1-0"),
          () => hexPreview(stream.bytes),
        );
      },
      scaled(2_000, 200_000),
    );
  },
);

guarded(
  "round trip: valid replies and events split anywhere, at every offset, inside UTF-8",
  () => {
    check(
      fc.tuple(replyArb, fc.array(eventLineArb, { maxLength: 4 }), cutsArb()),
      ([reply, events, cuts]) => {
        const bytes = Buffer.from(`${reply.line}\n`, "utf8");
        const offsets =
          bytes.length <= 300
            ? [...everySplit(bytes)].map(([a]) => a.length)
            : insideUtf8Offsets(bytes);
        for (const at of [-1, ...offsets]) {
          const chunks =
            at < 0 ? splitAt(bytes, cuts) : [bytes.subarray(0, at), bytes.subarray(at)];
          memory.every(tally.inputs);
          let out: unknown;
          const err = tally.attempt(
            () => {
              out = request(chunks, DEFAULT_CAP, reply.id, reply.method);
            },
            () => `${reply.line} split at ${at}`,
          );
          if (reply.kind === "result") {
            assert.is(err, null, `valid reply refused: ${reply.line}`);
            assert.ok(out !== undefined);
          } else {
            // A Herdr error reply: a WireError carrying Herdr's own code (tallied as WIRE:herdr).
            assert.ok(err instanceof WireError, `error reply not a WireError: ${reply.line}`);
          }
          counts.roundTripSplits++;
        }
        counts.insideUtf8Splits += insideUtf8Offsets(bytes).length;
        const stream = Buffer.from(`${[ACK, ...events].join("\n")}\n`, "utf8");
        const whole = subscription([stream], DEFAULT_CAP, "gs-1-0");
        assert.is(whole.length, events.length);
        for (const at of insideUtf8Offsets(stream)) {
          const got = subscription(
            [stream.subarray(0, at), stream.subarray(at)],
            DEFAULT_CAP,
            "gs-1-0",
          );
          assert.equal(got, whole, `stream split at ${at}`);
          tally.accept();
          counts.roundTripSplits++;
          counts.insideUtf8Splits++;
        }
      },
      scaled(300, 6_000),
    );
    // Any text at all (lone surrogates too) survives as a line once JSON-escaped.
    check(
      fc.tuple(fc.array(textArb(60), { minLength: 1, maxLength: 5 }), cutsArb()),
      ([texts, cuts]) => {
        const lines = texts.map((t) => JSON.stringify(t));
        const got = collect(
          splitAt(Buffer.from(`${lines.join("\n")}\n`, "utf8"), cuts),
          DEFAULT_CAP,
        );
        assert.is(got.error, null);
        assert.equal(
          got.lines.map((l) => JSON.parse(l)),
          texts,
        );
        tally.accept();
        counts.roundTripSplits++;
      },
      scaled(1_000, 50_000),
    );
  },
);

guarded(
  "oversized: a line without newline is refused at exactly cap + 1 bytes, for any cap",
  () => {
    check(
      fc.tuple(
        fc.integer({ min: 1, max: 64 * 1024 }),
        fc.array(
          replyArb.map((r) => r.line),
          { maxLength: 2 },
        ),
      ),
      ([cap, before]) => {
        const buffer = new LineBuffer(cap);
        // Whole earlier lines that fit go through first.
        for (const line of before) {
          const bytes = Buffer.from(`${line}\n`, "utf8");
          if (bytes.length - 1 <= cap) assert.is(buffer.push(bytes).kind, "lines");
        }
        let consumed = 0;
        let kind = "lines";
        const run = Buffer.alloc(cap + 8, 0x78);
        for (const chunk of cap <= 4096
          ? bytewise(run)
          : [run.subarray(0, cap), run.subarray(cap)]) {
          const r = buffer.push(chunk);
          consumed += chunk.length;
          kind = r.kind;
          assert.ok(buffer.pendingBytes <= cap, "never more than the cap held");
          if (r.kind !== "lines") break;
        }
        assert.is(kind, "too_long");
        assert.is(
          consumed,
          cap <= 4096 ? cap + 1 : cap + 8,
          "refused on the first byte over the cap",
        );
        tally.reject("HERDR_REPLY_TOO_LARGE");
        counts.oversize++;
        // Exactly the cap, then a newline, is a line.
        const exact = new LineBuffer(cap).push(
          Buffer.concat([Buffer.alloc(cap, 0x78), Buffer.from("\n")]),
        );
        assert.is(exact.kind, "lines");
      },
      scaled(500, 20_000),
    );
  },
);

type Expect = { readonly ok: (value: unknown) => boolean } | { readonly code: string };

const PANE =
  '"pane_id":"p","terminal_id":"t","workspace_id":"w","tab_id":"b","focused":true,"agent_status":"idle","revision":1';

/** JSON edge cases on a `pane.get` reply (or the whole line), each with its expected outcome. */
const EDGE: readonly { name: string; line: string | Uint8Array; expect: Expect }[] = [
  {
    name: "duplicate id, ours last: last wins, accepted",
    line: `{"id":"other","id":"gs-1-0","result":{"type":"pane_info","pane":{${PANE}}}}`,
    expect: { ok: () => true },
  },
  {
    name: "duplicate id, ours first: last wins, another request's reply",
    line: `{"id":"gs-1-0","id":"other","result":{"type":"pane_info","pane":{${PANE}}}}`,
    expect: { code: "HERDR_REPLY_MISMATCH" },
  },
  {
    name: "duplicate result type: last wins, wrong variant",
    line: `{"id":"gs-1-0","result":{"type":"pane_info","type":"pong","pane":{${PANE}}}}`,
    expect: { code: "HERDR_REPLY_INVALID" },
  },
  {
    name: "__proto__ in the pane: dropped, nothing inherited",
    line: `{"id":"gs-1-0","result":{"type":"pane_info","pane":{${PANE},"__proto__":{"cwd":"/evil","polluted":true}}}}`,
    expect: {
      ok: (r) => {
        const pane = typeof r === "object" && r !== null && "pane" in r ? r.pane : null;
        return (
          typeof pane === "object" && pane !== null && !("cwd" in pane) && !("polluted" in pane)
        );
      },
    },
  },
  {
    name: "lone surrogate escape in a title: kept as the lone unit",
    line: `{"id":"gs-1-0","result":{"type":"pane_info","pane":{${PANE},"title":"\\ud800"}}}`,
    expect: { ok: (r) => JSON.stringify(r).includes("\\ud800") },
  },
  {
    name: "lone surrogate as raw bytes: not UTF-8",
    line: Buffer.concat([
      Buffer.from('{"id":"gs-1-0","result":{"type":"pane_info","pane":{"title":"'),
      LONE_SURROGATE_BYTES,
      Buffer.from('"}}}'),
    ]),
    expect: { code: "HERDR_REPLY_MALFORMED" },
  },
  {
    name: "10^6-deep array as the whole line",
    line: deepArray(),
    expect: { code: "HERDR_REPLY_MALFORMED" },
  },
  {
    name: "10^6-deep agent value: kept raw for the reconciler (never walked here)",
    line: `{"id":"gs-1-0","result":{"type":"pane_info","pane":{${PANE},"agent":${deepArray()}}}}`,
    expect: { ok: () => true },
  },
  {
    name: "10^6-deep unknown key: kept raw",
    line: `{"id":"gs-1-0","result":{"type":"pane_info","pane":{${PANE},"x":${deepArray()}}}}`,
    expect: { ok: () => true },
  },
  {
    name: "revision 1e400 (Infinity)",
    line: `{"id":"gs-1-0","result":{"type":"pane_info","pane":{"pane_id":"p","terminal_id":"t","workspace_id":"w","tab_id":"b","focused":true,"agent_status":"idle","revision":${HUGE_TEXT}}}}`,
    expect: { code: "HERDR_REPLY_INVALID" },
  },
  {
    name: "revision 2^64: an integer double, accepted (only compared, never used as an index)",
    line: `{"id":"gs-1-0","result":{"type":"pane_info","pane":{"pane_id":"p","terminal_id":"t","workspace_id":"w","tab_id":"b","focused":true,"agent_status":"idle","revision":${TWO_POW_64_TEXT}}}}`,
    expect: { ok: () => true },
  },
  {
    name: "byte order mark: kept, so the line is refused as serde_json would refuse it",
    line: `\ufeff{"id":"gs-1-0","result":{"type":"pane_info","pane":{${PANE}}}}`,
    expect: { code: "HERDR_REPLY_MALFORMED" },
  },
  {
    name: "Herdr error envelope",
    line: '{"id":"gs-1-0","error":{"code":"pane_not_found","message":"m"}}',
    expect: { code: "WIRE:herdr" },
  },
  {
    name: 'error for an unparsable request (id "")',
    line: '{"id":"","error":{"code":"invalid_request","message":"m"}}',
    expect: { code: "WIRE:herdr" },
  },
  {
    name: "NaN literal",
    line: '{"id":"gs-1-0","result":NaN}',
    expect: { code: "HERDR_REPLY_MALFORMED" },
  },
];

guarded(
  "JSON edge cases: each has its explicit outcome, whole or split, and nothing is polluted",
  () => {
    const probe = decoderRun.deepCasesProbe();
    for (const e of EDGE) {
      const bytes = Buffer.concat([Buffer.from(e.line), Buffer.from("\n")]);
      const splits =
        bytes.length <= 512
          ? [...everySplit(bytes)].map(([a]) => a.length)
          : [0, 3, bytes.length >> 1];
      for (const at of splits) {
        let out: unknown;
        let error: unknown = null;
        try {
          out = request(
            [bytes.subarray(0, at), bytes.subarray(at)],
            DEFAULT_CAP,
            "gs-1-0",
            "pane.get",
          );
        } catch (err) {
          error = err;
        }
        probe.sample();
        if ("code" in e.expect) {
          const code =
            error instanceof WireError
              ? "WIRE:herdr"
              : error instanceof GrokSeatError
                ? error.code
                : String(error);
          assert.is(code, e.expect.code, e.name);
          tally.thrown(error);
        } else {
          assert.is(error, null, `${e.name}: ${String(error)}`);
          assert.ok(e.expect.ok(out), e.name);
          tally.accept();
        }
        assert.ok(prototypeClean(), `${e.name}: Object.prototype polluted`);
        counts.edgeCases++;
      }
    }
    // A 10^6-deep line over a 1 MiB cap never reaches the parser.
    const capped = collect([Buffer.from(`${deepArray()}\n`)], MiB);
    assert.is(capped.error?.code, "HERDR_REPLY_TOO_LARGE");
    tally.thrown(capped.error);
    counts.edgeCases++;
  },
);

guarded(
  "a layout.apply reply nested 10^4 splits deep is a typed refusal, not a stack overflow",
  () => {
    // 820 KB, a tenth of the default 8 MiB reply cap. LayoutNodeSchema recurses through v.lazy.
    const depth = 10_000;
    const split =
      '{"type":"split","direction":"right","ratio":0.5,"first":{"type":"pane"},"second":';
    const root = `${split.repeat(depth)}{"type":"pane"}${"}".repeat(depth)}`;
    const line = `{"id":"gs-1-0","result":{"type":"layout_apply","layout":{"workspace_id":"w","tab_id":"t","zoomed":false,"focused_pane_id":"p","root":${root}}}}`;
    const bytes = Buffer.from(`${line}\n`);
    const typed = tally.attempt(
      () => request([bytes], DEFAULT_CAP, "gs-1-0", "layout.apply"),
      () => `layout.apply reply, ${depth} nested splits (${bytes.length} bytes)`,
    );
    assert.ok(typed !== null, `not a typed refusal: ${tally.problems()}`);
  },
);

guarded(
  "lines before a rejected line in the same chunk are delivered, however the bytes were chunked",
  () => {
    const event =
      '{"event":"pane_exited","data":{"type":"pane_exited","pane_id":"p","workspace_id":"w"}}';
    for (const bad of [Buffer.from([0xc3, 0x28]), Buffer.alloc(4096, 0x78)]) {
      const stream = Buffer.concat([Buffer.from(`${ACK}\n${event}\n`), bad, Buffer.from("\n")]);
      const boundary = Buffer.byteLength(`${ACK}\n${event}\n`);
      const split = collect([stream.subarray(0, boundary), stream.subarray(boundary)], 1024);
      const whole = collect([stream], 1024);
      // Split at the boundary, the ack and the pane_exited event are delivered before the error.
      assert.equal(split.lines, [ACK, event]);
      assert.is(whole.error?.code, split.error?.code);
      assert.equal(
        whole.lines,
        split.lines,
        "the same lines whether or not the bad line shared their chunk",
      );
    }
  },
);

decoderRun.claim("T7-herdr-lines", () => ({
  title: "Herdr line decoder under hostile bytes",
  sentence: (m) =>
    `${n(tally.inputs)} generated Herdr socket inputs (random bytes, JSON-ish lines, mutated replies and event ` +
    `streams, ${n(counts.roundTripSplits)} round-trip splits incl. ${n(counts.insideUtf8Splits)} inside UTF-8 ` +
    `sequences, ${EDGE.length} JSON edge cases incl. ${n(DEEP)}-deep nesting): 0 crashes, ${n(tally.violations)} ` +
    `untyped throws, every rejection one of ${tally.rejectionSummary()}; a line without newline refused at exactly ` +
    `cap + 1 bytes in ${n(counts.oversize)} runs (caps 1 B-64 KiB), never more than the cap held; ` +
    `Object.prototype never polluted; memory ${m.describe}; the ${n(DEEP)}-deep cases ` +
    `peak at heapUsed ${m.deepHeapText}.`,
  method:
    "fast-check properties over lib/herdr/line-buffer.ts + client.ts parseReply + wire-events.ts parseEventLine, " +
    "fed as LineConnection feeds them (test/reliability/decoders-herdr.test.ts).",
}));

test.run();
