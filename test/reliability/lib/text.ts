/**
 * Text and byte generators shared by the decoder tests: Unicode text that stresses UTF-8 (multi-byte
 * sequences, astral code points, lone surrogates), and "JSON-ish" bytes that reach deep into a JSON
 * parser instead of failing at the first byte.
 */
import fc from "fast-check";

/** One lone UTF-16 surrogate (valid in a JS string, no UTF-8 form). */
export const loneSurrogateArb: fc.Arbitrary<string> = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((c) => String.fromCharCode(c));

/** Characters of every UTF-8 length: ASCII, 2-byte, 3-byte, astral (4-byte) and JSON escapes. */
const charArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom("é", "ß", "€", "✓", "中", "😀", "𝄞", "\u2028", "\ufeff"),
  },
  { weight: 2, arbitrary: fc.constantFrom('"', "\\", "\n", "\r", "\t", "\u0000", "/", "\u007f") },
  { weight: 1, arbitrary: loneSurrogateArb },
);

/** Arbitrary text, lone surrogates included (JSON.stringify escapes those as `\udXXX`). */
export function textArb(maxLength = 40): fc.Arbitrary<string> {
  return fc.string({ unit: charArb, maxLength });
}

/** Well-formed Unicode text only (no lone surrogates). */
export function wellFormedTextArb(maxLength = 40): fc.Arbitrary<string> {
  return fc.string({ unit: "binary", maxLength });
}

const JSON_TOKENS = [
  "{",
  "}",
  "[",
  "]",
  '"',
  ":",
  ",",
  " ",
  "\\",
  "\\u",
  "d800",
  "dc00",
  "0",
  "1",
  "-",
  "e",
  "E+",
  ".",
  "1e400",
  "18446744073709551616",
  "null",
  "true",
  "false",
  "NaN",
  '"type"',
  '"acp"',
  '"pong"',
  '"payload"',
  '"registered"',
  '"client_id"',
  '"__proto__"',
  '"id"',
  '"jsonrpc"',
  '"2.0"',
  '"method"',
  "é",
  "😀",
  "\n",
];

/** Text assembled from JSON tokens: mostly invalid JSON, often nearly valid. */
export const jsonishArb: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...JSON_TOKENS), { maxLength: 40 })
  .map((t) => t.join(""));

/** Random bytes biased toward UTF-8 structure (lead bytes, continuations, invalid bytes). */
export const utf8ishBytesArb: fc.Arbitrary<Uint8Array> = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.integer({ min: 0x80, max: 0xbf }),
      fc.integer({ min: 0xc0, max: 0xff }),
      fc.integer({ min: 0, max: 255 }),
    ),
    { maxLength: 64 },
  )
  .map((a) => Uint8Array.from(a));
