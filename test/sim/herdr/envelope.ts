// Request envelope parsing, as `serde_json::from_str::<Request>(line.trim())` does it in
// src/api/server.rs handle_connection. `Request { id: String, #[serde(flatten)] method: Method }`
// with `Method` adjacently tagged (`tag = "method", content = "params"`): the id is read in
// place, every other key is buffered, then the method/params pair is decoded from the buffer
// (serde FlatMapDeserializer::deserialize_struct), and only then are trailing characters
// checked. Errors without a position get the position after the closing brace.
import { type MethodSet, methodNames, PARAM_DECODERS, SIM_METHOD_NAMES } from "./methods.js";
import { adjacentVariant, anyValue, duplicateField, missingField } from "./serde-content.js";
import { type JsonValue, SerdeJsonError, SerdeJsonReader } from "./serde-json-read.js";

export type ParsedRequest = {
  readonly id: string;
  readonly method: string;
  readonly params: unknown;
};
export type ParseOutcome =
  | { readonly ok: true; readonly request: ParsedRequest }
  | { readonly ok: false; readonly message: string };

// Rust's char::is_whitespace (Unicode White_Space), which str::trim uses; unlike JS trim it
// keeps U+FEFF.
const RUST_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

export function rustTrim(s: string): string {
  const chars = Array.from(s);
  let start = 0;
  let end = chars.length;
  while (start < end && RUST_WHITESPACE.has(chars[start]?.codePointAt(0) ?? -1)) start++;
  while (end > start && RUST_WHITESPACE.has(chars[end - 1]?.codePointAt(0) ?? -1)) end--;
  return chars.slice(start, end).join("");
}

/**
 * Parse one trimmed, non-empty request line against the `Method` enum of `methodSet` (default
 * 0.8's). `testControl` admits the sim.* methods.
 */
export function parseRequest(
  line: string,
  testControl: boolean,
  methodSet: MethodSet = "0.8",
): ParseOutcome {
  const reader = new SerdeJsonReader(new TextEncoder().encode(line));
  try {
    const request = readRequest(reader, testControl, methodNames(methodSet));
    reader.end();
    return { ok: true, request };
  } catch (err) {
    const positioned = err instanceof SerdeJsonError ? err : reader.fixPosition(err);
    return { ok: false, message: `invalid request: ${positioned.message}` };
  }
}

function readRequest(
  reader: SerdeJsonReader,
  testControl: boolean,
  names: readonly string[],
): ParsedRequest {
  const peek = reader.parseWhitespace();
  if (peek === undefined) throw reader.peekError("EOF while parsing a value");
  if (peek !== 0x7b) throw reader.fixPosition(reader.peekInvalidType("struct Request"));
  reader.enterNesting();
  reader.eat();
  let id: string | undefined;
  const others: Array<readonly [string, JsonValue]> = [];
  const state = { first: true };
  try {
    while (reader.hasNextKey(state)) {
      const key = reader.parseKey();
      if (key === "id") {
        if (id !== undefined) throw duplicateField("id");
        reader.parseObjectColon();
        id = reader.parseStringValue("a string");
      } else {
        reader.parseObjectColon();
        others.push([key, reader.parseAny()]);
      }
    }
    if (id === undefined) throw missingField("id");
    const { method, params } = decodeMethod(others, testControl, names);
    reader.leaveNesting();
    reader.endMap();
    return { id, method, params };
  } catch (err) {
    if (err instanceof SerdeJsonError) throw err;
    // serde_json runs end_map() before positioning a visitor error: it skips whitespace and
    // eats the closing brace if that is what comes next.
    if (reader.parseWhitespace() === 0x7d) reader.eat();
    throw reader.fixPosition(err);
  }
}

type Relevant = { key: "method" | "params"; value: JsonValue };

function decodeMethod(
  others: ReadonlyArray<readonly [string, JsonValue]>,
  testControl: boolean,
  names: readonly string[],
): { method: string; params: unknown } {
  const relevant: Relevant[] = [];
  for (const [key, value] of others) {
    if (key === "method" || key === "params") relevant.push({ key, value });
  }
  const variant = (v: JsonValue) => {
    // The sim.* names are matched by name only and never appear in Herdr's "expected" list.
    if (testControl && v.k === "str" && SIM_METHOD_NAMES.includes(v.v)) return v.v;
    return adjacentVariant(v, names);
  };
  const [first, second, third] = relevant;
  if (first === undefined) throw missingField("method");
  let method: string;
  let content: JsonValue;
  if (first.key === "method") {
    method = variant(first.value);
    if (second === undefined) throw missingField("params");
    if (second.key === "method") throw duplicateField("method");
    content = second.value;
  } else {
    if (second === undefined) throw missingField("method");
    if (second.key === "params") throw duplicateField("params");
    method = variant(second.value);
    content = first.value;
  }
  const params = (PARAM_DECODERS[method] ?? anyValue)(content);
  if (third !== undefined) throw duplicateField(third.key);
  return { method, params };
}
