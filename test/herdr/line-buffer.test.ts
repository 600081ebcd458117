import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import { parseReply } from "../../lib/herdr/client.js";
import { LineBuffer } from "../../lib/herdr/line-buffer.js";
import { PongSchema } from "../../lib/herdr/wire-envelope.js";

test("splits on newlines across chunks, keeping multi-byte characters whole", () => {
  const b = new LineBuffer(100);
  const bytes = Buffer.from('{"a":"é"}\n{"b":1}\n{"c"', "utf8");
  const out: string[] = [];
  for (const byte of bytes) {
    const r = b.push(Buffer.from([byte]));
    if (r.kind !== "lines") throw new Error(r.kind);
    out.push(...r.lines);
  }
  assert.equal(out, ['{"a":"é"}', '{"b":1}']);
  assert.is(b.pendingBytes, 4);
});

test("a growing line over the cap is reported before its newline arrives", () => {
  const b = new LineBuffer(10);
  assert.equal(b.push(Buffer.from("12345")), { kind: "lines", lines: [] });
  assert.equal(b.push(Buffer.from("678901")), { kind: "too_long", bytes: 11, lines: [] });
});

test("a complete line over the cap is too long; exactly the cap is fine", () => {
  assert.equal(new LineBuffer(3).push(Buffer.from("abc\n")), { kind: "lines", lines: ["abc"] });
  assert.equal(new LineBuffer(3).push(Buffer.from("abcd\n")), {
    kind: "too_long",
    bytes: 4,
    lines: [],
  });
});

test("invalid UTF-8 is reported", () => {
  assert.equal(new LineBuffer(10).push(Buffer.from([0xc3, 0x28, 0x0a])), {
    kind: "bad_utf8",
    lines: [],
  });
});

test("lines before a rejected line in the same chunk come with the failure", () => {
  // Found by T7: `push` returned only the failure, so these lines were lost when the kernel
  // delivered them in the same chunk as the bad line, and delivered when it did not.
  const good = Buffer.from('{"a":1}\n{"b":2}\n');
  for (const [bad, failure] of [
    [Buffer.from([0xc3, 0x28, 0x0a]), { kind: "bad_utf8" }],
    [Buffer.from("x".repeat(40)), { kind: "too_long", bytes: 40 }],
    [Buffer.from(`${"x".repeat(40)}\n`), { kind: "too_long", bytes: 40 }],
  ] as const) {
    const whole = new LineBuffer(32).push(Buffer.concat([good, bad]));
    assert.equal(whole, { ...failure, lines: ['{"a":1}', '{"b":2}'] });
    const split = new LineBuffer(32);
    assert.equal(split.push(good), { kind: "lines", lines: ['{"a":1}', '{"b":2}'] });
    assert.equal(split.push(bad), { ...failure, lines: [] });
  }
});

test("after a failure the buffer is poisoned: the same failure, no lines, nothing held", () => {
  const b = new LineBuffer(8);
  assert.equal(b.push(Buffer.from("ok\n123456789")), { kind: "too_long", bytes: 9, lines: ["ok"] });
  assert.is(b.pendingBytes, 0);
  assert.equal(b.push(Buffer.from("fine\n")), { kind: "too_long", bytes: 9, lines: [] });
  assert.is(b.pendingBytes, 0);
});

test("a leading byte order mark is kept, so the reply is malformed as for serde_json", () => {
  // Herdr never writes a BOM and serde_json does not skip one; TextDecoder would drop it.
  const reply = '{"id":"gs-1","result":{"type":"pong","version":"0.8.0"}}';
  const r = new LineBuffer(100).push(
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0x0a]), Buffer.from(`${reply}\n`)]),
  );
  assert.equal(r, { kind: "lines", lines: ["\ufeff{}", reply] });
  // Not only the first line of a stream: every line is decoded on its own.
  const again = new LineBuffer(100).push(Buffer.from(`{}\n\ufeff${reply}\n`));
  assert.equal(again, { kind: "lines", lines: ["{}", `\ufeff${reply}`] });
  assert.ok(parseReply(reply, "gs-1", "ping", PongSchema));
  let caught: unknown = null;
  try {
    parseReply(`\ufeff${reply}`, "gs-1", "ping", PongSchema);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof GrokSeatError);
  assert.is(caught.code, "HERDR_REPLY_MALFORMED");
});

test.run();
