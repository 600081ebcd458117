import { test } from "uvu";
import * as assert from "uvu/assert";
import { LineBuffer } from "../../lib/herdr/line-buffer.js";

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
  assert.equal(b.push(Buffer.from("678901")), { kind: "too_long", bytes: 11 });
});

test("a complete line over the cap is too long; exactly the cap is fine", () => {
  assert.equal(new LineBuffer(3).push(Buffer.from("abc\n")), { kind: "lines", lines: ["abc"] });
  assert.equal(new LineBuffer(3).push(Buffer.from("abcd\n")), { kind: "too_long", bytes: 4 });
});

test("invalid UTF-8 is reported", () => {
  assert.equal(new LineBuffer(10).push(Buffer.from([0xc3, 0x28, 0x0a])), { kind: "bad_utf8" });
});

test.run();
