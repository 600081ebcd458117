import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import { encodeFrame, FrameDecoder, MAX_FRAME_BYTES } from "../../lib/leader/frame-codec.js";
import { parseServerMessage } from "../../lib/leader/messages.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import { GOLDEN, goldenFrame } from "./golden-frames.js";

const TYPED = new Set([
  "FRAME_TOO_LARGE",
  "INVALID_UTF8",
  "INVALID_JSON",
  "INVALID_MESSAGE",
  "UNKNOWN_MESSAGE_TYPE",
]);

function decodeAll(decoder: FrameDecoder, chunks: readonly Uint8Array[]): unknown[] {
  const out: unknown[] = [];
  for (const c of chunks) decoder.push(c, (v) => out.push(v));
  return out;
}

function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.slice(prev, p));
    prev = p;
  }
  out.push(bytes.slice(prev));
  return out;
}

const codeOf = (fn: () => unknown): string | null => codeOfError(fn, null);

test('the §2 example: {"type":"ping"} is a 15-byte body behind 00 00 00 0F', () => {
  const f = encodeFrame({ type: "ping" });
  assert.equal([...f.subarray(0, 8)], [0, 0, 0, 0x0f, 0x7b, 0x22, 0x74, 0x79]);
  assert.is(f.length, 19);
});

test("golden frames decode and re-encode byte-exactly", () => {
  for (const g of GOLDEN) {
    const bytes = goldenFrame(g.json);
    const values = decodeAll(new FrameDecoder(), [bytes]);
    assert.is(values.length, 1, g.name);
    const message = g.side === "server" ? parseServerMessage(values[0]) : values[0];
    assert.ok(encodeFrame(message).equals(bytes), `${g.name} re-encodes to the same bytes`);
  }
});

test("property: any messages, any split points, decode to the same values in order", () => {
  fc.assert(
    fc.property(
      fc.array(fc.jsonValue({ maxDepth: 4 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 20 }),
      (messages, cuts) => {
        const bytes = Buffer.concat(messages.map((m) => encodeFrame(m)));
        const got = decodeAll(new FrameDecoder(), splitAt(bytes, cuts));
        // JSON round trip is the reference: -0 becomes 0, as it does on the wire.
        assert.equal(got, JSON.parse(JSON.stringify(messages)));
      },
    ),
    { numRuns: 2000 },
  );
});

test("property: multi-byte UTF-8 split inside a sequence still decodes (every offset)", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }), (s) => {
      const bytes = encodeFrame({ type: "acp", payload: s });
      for (let i = 0; i <= bytes.length; i++) {
        const got = decodeAll(new FrameDecoder(), [bytes.subarray(0, i), bytes.subarray(i)]);
        assert.equal(got, [{ type: "acp", payload: s }]);
      }
    }),
    { numRuns: 300 },
  );
});

test("property: large unicode bodies (transcoder paths) encode to exact UTF-8 and decode back", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", minLength: 1, maxLength: 64 }),
      fc.integer({ min: 1, max: 3000 }),
      (unit, times) => {
        const message = { type: "acp", payload: unit.repeat(times) };
        const bytes = encodeFrame(message);
        const reference = Buffer.from(JSON.stringify(message), "utf8");
        assert.is(bytes.readUInt32BE(0), reference.length);
        assert.ok(bytes.subarray(4).equals(reference), "same bytes as a plain UTF-8 encode");
        assert.equal(decodeAll(new FrameDecoder(), [bytes]), [
          JSON.parse(reference.toString("utf8")),
        ]);
      },
    ),
    { numRuns: 300 },
  );
});

test("invalid UTF-8 in a large body is still refused (no replacement)", () => {
  for (const size of [100, 600, 40_000]) {
    const body = Buffer.from(`"${"é".repeat(size)}"`, "utf8");
    body[body.length - 3] = 0xff;
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 0]), body]);
    frame.writeUInt32BE(body.length, 0);
    assert.is(
      codeOf(() => new FrameDecoder().push(frame, () => {})),
      "INVALID_UTF8",
      String(size),
    );
  }
});

test("property: random bytes give frames or a typed error, never anything else", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 512 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      fc.integer({ min: 1, max: 1024 }),
      (bytes, cuts, cap) => {
        const decoder = new FrameDecoder({ maxFrameBytes: cap });
        try {
          for (const c of splitAt(bytes, cuts)) {
            decoder.push(c, (v) => {
              try {
                parseServerMessage(v);
              } catch (err) {
                if (!(err instanceof GrokSeatError) || !TYPED.has(err.code)) throw err;
              }
            });
          }
        } catch (err) {
          assert.ok(err instanceof GrokSeatError, `untyped throw: ${String(err)}`);
          assert.ok(TYPED.has(err.code), `unexpected code ${err.code}`);
          // Poisoned: the same error again, however much more arrives.
          assert.is(
            codeOf(() => decoder.push(Buffer.from([1, 2, 3]), () => {})),
            err.code,
          );
        }
      },
    ),
    { numRuns: 5000 },
  );
});

test("property: valid frames with one corrupted body byte: typed error or a frame, and earlier frames delivered", () => {
  fc.assert(
    fc.property(
      fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 2, maxLength: 5 }),
      fc.nat(),
      fc.integer({ min: 0, max: 255 }),
      (messages, where, byte) => {
        const frames = messages.map((m) => encodeFrame(m));
        const last = frames[frames.length - 1] as Buffer;
        const idx = 4 + (where % Math.max(1, last.length - 4));
        if (idx < last.length) last[idx] = byte;
        const got: unknown[] = [];
        const code = codeOf(() =>
          new FrameDecoder().push(Buffer.concat(frames), (v) => got.push(v)),
        );
        assert.ok(code === null || TYPED.has(code), String(code));
        assert.equal(
          got.slice(0, messages.length - 1),
          JSON.parse(JSON.stringify(messages.slice(0, -1))),
        );
      },
    ),
    { numRuns: 2000 },
  );
});

test("an oversized announced length is refused from the header alone, before allocating", () => {
  for (const cap of [16, 1024, MAX_FRAME_BYTES]) {
    const decoder = new FrameDecoder({ maxFrameBytes: cap });
    const header = Buffer.alloc(4);
    header.writeUInt32BE(cap + 1, 0);
    let err: unknown;
    try {
      decoder.push(header, () => {});
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof GrokSeatError);
    assert.is(err.code, "FRAME_TOO_LARGE");
    assert.equal(err.context, { announced: cap + 1, maxFrameBytes: cap });
  }
  // Split header: the refusal comes with the fourth byte.
  const d = new FrameDecoder({ maxFrameBytes: 10 });
  d.push(Buffer.from([0, 0]), () => {});
  d.push(Buffer.from([0]), () => {});
  assert.is(
    codeOf(() => d.push(Buffer.from([11, 0x7b]), () => {})),
    "FRAME_TOO_LARGE",
  );
  // u32 max is refused, not wrapped.
  assert.is(
    codeOf(() => new FrameDecoder().push(Buffer.from([0xff, 0xff, 0xff, 0xff]), () => {})),
    "FRAME_TOO_LARGE",
  );
});

test("announcing the full 64 MiB buffers only what arrived (no up-front allocation)", () => {
  global.gc?.();
  const before = process.memoryUsage().arrayBuffers;
  const decoders: FrameDecoder[] = [];
  for (let i = 0; i < 8; i++) {
    const d = new FrameDecoder();
    const header = Buffer.alloc(4);
    header.writeUInt32BE(MAX_FRAME_BYTES, 0);
    d.push(Buffer.concat([header, Buffer.from("{")]), () => {});
    assert.ok(d.midFrame);
    assert.is(d.pendingBytes, 5);
    decoders.push(d);
  }
  const grown = process.memoryUsage().arrayBuffers - before;
  // 8 x 64 MiB would be 512 MiB if the body were allocated from the header.
  assert.ok(grown < 4 * 1024 * 1024, `arrayBuffers grew by ${grown}`);
  assert.is(decoders.length, 8);
});

test("bounded memory: 200 x 256 KiB frames fed in 1000-byte chunks stay under cap + slack", () => {
  const payload = "x".repeat(256 * 1024);
  const bytes = encodeFrame({ type: "acp", payload });
  const decoder = new FrameDecoder({ maxFrameBytes: 512 * 1024 });
  global.gc?.();
  const base = process.memoryUsage().arrayBuffers;
  let peak = 0;
  let frames = 0;
  for (let n = 0; n < 200; n++) {
    for (let off = 0; off < bytes.length; off += 1000) {
      // Fresh chunks, as a socket delivers them.
      decoder.push(Buffer.from(bytes.subarray(off, off + 1000)), () => frames++);
      if (off % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
    }
  }
  assert.is(frames, 200);
  // Without gc between frames garbage accumulates a little; an unbounded buffer would reach 50 MiB.
  assert.ok(peak < 24 * 1024 * 1024, `peak arrayBuffers growth ${peak}`);
});

test("typed errors: invalid UTF-8, invalid JSON, empty body, truncated stream", () => {
  const bad = Buffer.from([0, 0, 0, 3, 0x22, 0xc3, 0x22]); // lone lead byte inside a string
  assert.is(
    codeOf(() => new FrameDecoder().push(bad, () => {})),
    "INVALID_UTF8",
  );
  const overlong = Buffer.from([0, 0, 0, 4, 0x22, 0xc0, 0xaf, 0x22]); // overlong "/"
  assert.is(
    codeOf(() => new FrameDecoder().push(overlong, () => {})),
    "INVALID_UTF8",
  );
  const surrogate = Buffer.from([0, 0, 0, 5, 0x22, 0xed, 0xa0, 0x80, 0x22]); // CESU surrogate
  assert.is(
    codeOf(() => new FrameDecoder().push(surrogate, () => {})),
    "INVALID_UTF8",
  );
  assert.is(
    codeOf(() => new FrameDecoder().push(goldenFrame("{nope"), () => {})),
    "INVALID_JSON",
  );
  assert.is(
    codeOf(() => new FrameDecoder().push(goldenFrame("\ufeff{}"), () => {})),
    "INVALID_JSON",
  );
  assert.is(
    codeOf(() => new FrameDecoder().push(Buffer.from([0, 0, 0, 0]), () => {})),
    "INVALID_JSON",
  );
  const d = new FrameDecoder();
  d.push(goldenFrame('{"type":"pong"}').subarray(0, 9), () => {});
  assert.is(d.finish()?.code, "TRUNCATED_FRAME");
  assert.is(new FrameDecoder().finish(), null);
});

test("frames before a bad one in the same chunk are delivered first", () => {
  const got: unknown[] = [];
  const chunk = Buffer.concat([goldenFrame('{"type":"pong"}'), goldenFrame("[oops")]);
  assert.is(
    codeOf(() => new FrameDecoder().push(chunk, (v) => got.push(v))),
    "INVALID_JSON",
  );
  assert.equal(got, [{ type: "pong" }]);
});

test("encodeFrame refuses what it cannot send", () => {
  assert.is(
    codeOf(() => encodeFrame({ p: "é".repeat(10) }, 20)),
    "FRAME_TOO_LARGE",
  );
  assert.is(
    codeOf(() => encodeFrame(undefined)),
    "INVALID_MESSAGE",
  );
  assert.is(
    codeOf(() => encodeFrame({ n: 1n })),
    "INVALID_MESSAGE",
  );
  assert.is(
    codeOf(() => new FrameDecoder({ maxFrameBytes: MAX_FRAME_BYTES + 1 })),
    "INVALID_FRAME_CAP",
  );
  // A lone surrogate is escaped by JSON.stringify: the body stays valid UTF-8.
  const f = encodeFrame({ s: "\ud800" });
  assert.is(f.subarray(4).toString("utf8"), '{"s":"\\ud800"}');
});

test.run();
