/**
 * Mutations of valid inputs (docs/design/reliability-plan.md §6, T7: "mutated valid frames"): bit flips,
 * truncations, insertions, removals, duplicated ranges and overwrites at byte level, plus a
 * duplicated key at JSON text level. Each mutation reports the first byte it damaged, so a test
 * can assert that everything wholly before it still decodes.
 */
import fc from "fast-check";

export type Mutation =
  | { readonly op: "flip"; readonly at: number; readonly bit: number }
  | { readonly op: "truncate"; readonly at: number }
  | { readonly op: "insert"; readonly at: number; readonly bytes: Uint8Array }
  | { readonly op: "remove"; readonly at: number; readonly length: number }
  | { readonly op: "duplicate"; readonly at: number; readonly length: number }
  | { readonly op: "overwrite"; readonly at: number; readonly bytes: Uint8Array };

/** Bytes that matter to the decoders: JSON syntax, newline, UTF-8 lead/continuation, high bits. */
const INTERESTING = [
  0x00, 0x0a, 0x0d, 0x20, 0x22, 0x2c, 0x30, 0x3a, 0x5b, 0x5c, 0x5d, 0x7b, 0x7d, 0x7f, 0x80, 0xbf,
  0xc0, 0xc3, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
];

const byteArb = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(...INTERESTING));
const bytesArb = fc.array(byteArb, { minLength: 1, maxLength: 8 }).map((a) => Uint8Array.from(a));

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    op: fc.constant("flip" as const),
    at: fc.nat(),
    bit: fc.integer({ min: 0, max: 7 }),
  }),
  fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), bytes: bytesArb }),
  fc.record({
    op: fc.constant("remove" as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 16 }),
  }),
  fc.record({
    op: fc.constant("duplicate" as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 32 }),
  }),
  fc.record({ op: fc.constant("overwrite" as const), at: fc.nat(), bytes: bytesArb }),
);

export interface Mutated {
  readonly bytes: Buffer;
  /** The lowest offset whose byte differs from (or is missing in) the original; Infinity if none. */
  readonly firstDamage: number;
}

function applyOne(input: Buffer, m: Mutation): { bytes: Buffer; at: number } {
  const len = input.length;
  const at = len === 0 ? 0 : m.at % (m.op === "insert" ? len + 1 : len);
  switch (m.op) {
    case "flip": {
      if (len === 0) return { bytes: input, at: Infinity };
      const out = Buffer.from(input);
      out[at] = (out[at] ?? 0) ^ (1 << m.bit);
      return { bytes: out, at };
    }
    case "truncate":
      return { bytes: input.subarray(0, at), at };
    case "insert":
      return {
        bytes: Buffer.concat([input.subarray(0, at), m.bytes, input.subarray(at)]),
        at,
      };
    case "remove":
      return { bytes: Buffer.concat([input.subarray(0, at), input.subarray(at + m.length)]), at };
    case "duplicate": {
      const piece = input.subarray(at, at + m.length);
      return {
        bytes: Buffer.concat([
          input.subarray(0, at + piece.length),
          piece,
          input.subarray(at + piece.length),
        ]),
        at: at + piece.length,
      };
    }
    case "overwrite": {
      const out = Buffer.from(input);
      Buffer.from(m.bytes).copy(out, at);
      return { bytes: out, at };
    }
  }
}

/** Apply mutations in order. `firstDamage` is exact: the first offset where output and input differ. */
export function mutate(input: Uint8Array, mutations: readonly Mutation[]): Mutated {
  let bytes: Buffer = Buffer.from(input);
  for (const m of mutations) bytes = applyOne(bytes, m).bytes;
  return { bytes, firstDamage: firstDifference(input, bytes) };
}

/** First offset where `a` and `b` differ, counting a missing byte as a difference; Infinity if equal. */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? Infinity : common;
}

/**
 * A JSON object text with one top-level key repeated: `first` puts the extra `"key":value` before
 * the original members (JSON.parse keeps the last, so the original value wins), `last` after them
 * (the extra value wins). The text must be a compact JSON object, as JSON.stringify writes it.
 */
export function duplicateKey(
  objectText: string,
  key: string,
  valueText: string,
  where: "first" | "last",
): string {
  const member = `${JSON.stringify(key)}:${valueText}`;
  if (objectText === "{}") return `{${member}}`;
  return where === "first"
    ? `{${member},${objectText.slice(1)}`
    : `${objectText.slice(0, -1)},${member}}`;
}
