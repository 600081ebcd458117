/**
 * Chunking of a byte stream, as a socket or a partial read delivers it: at arbitrary cut points,
 * at every offset, and at the offsets that fall inside a multi-byte UTF-8 sequence.
 */
import fc from "fast-check";

/** Cut `bytes` at the given points (taken modulo length + 1, deduplicated, sorted). */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    // Fresh copies: a socket never hands out views of one shared buffer.
    out.push(Buffer.from(bytes.subarray(prev, p)));
    prev = p;
  }
  out.push(Buffer.from(bytes.subarray(prev)));
  return out;
}

/** Arbitrary cut points (up to `max`), for `splitAt`. */
export function cutsArb(max = 16): fc.Arbitrary<number[]> {
  return fc.array(fc.nat(), { maxLength: max });
}

/** Offsets that cut a multi-byte UTF-8 sequence (the next byte is a continuation byte 10xxxxxx). */
export function insideUtf8Offsets(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 1; i < bytes.length; i++) {
    const b = bytes[i];
    if (b !== undefined && (b & 0xc0) === 0x80) out.push(i);
  }
  return out;
}

/** The two-chunk splits at every offset 0..length (length + 1 splits). */
export function* everySplit(bytes: Uint8Array): Generator<[Buffer, Buffer]> {
  for (let i = 0; i <= bytes.length; i++) {
    yield [Buffer.from(bytes.subarray(0, i)), Buffer.from(bytes.subarray(i))];
  }
}

/** One byte per chunk: the slowest possible delivery. */
export function bytewise(bytes: Uint8Array): Buffer[] {
  return Array.from(bytes, (b) => Buffer.from([b]));
}
