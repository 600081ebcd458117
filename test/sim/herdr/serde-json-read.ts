// A JSON reader that fails the way serde_json 1.0.149 (Herdr's pinned version, Cargo.lock) fails:
// the same error codes, the same byte positions ("at line L column C"), the same recursion limit.
// Written from serde_json's src/de.rs (parse_whitespace, deserialize_any, parse_integer,
// parse_decimal, parse_exponent, f64_from_parts without float_roundtrip, MapAccess/SeqAccess,
// end_map/end_seq, end) and src/read.rs (SliceRead::parse_str_bytes, parse_escape,
// parse_unicode_escape, position/peek_position). Values come out as a serde `Content`-like tree,
// which is what Herdr's `#[serde(flatten)]` Request collects its unknown keys into.

export type JsonValue =
  | { readonly k: "null" }
  | { readonly k: "bool"; readonly v: boolean }
  | { readonly k: "u64"; readonly v: bigint }
  | { readonly k: "i64"; readonly v: bigint }
  | { readonly k: "f64"; readonly v: number }
  | { readonly k: "str"; readonly v: string }
  | { readonly k: "seq"; readonly v: readonly JsonValue[] }
  | { readonly k: "map"; readonly v: ReadonlyArray<readonly [string, JsonValue]> };

/** serde_json's `Error` with its Display: `<code> at line <l> column <c>` (line 0 = no position). */
export class SerdeJsonError extends Error {
  readonly line: number;
  readonly column: number;
  readonly code: string;
  constructor(code: string, line: number, column: number) {
    super(line === 0 ? code : `${code} at line ${line} column ${column}`);
    this.code = code;
    this.line = line;
    this.column = column;
  }
}

/** A position-less error raised by a visitor (serde `de::Error::custom`); positioned later. */
export class SerdeCustomError extends Error {}

const U64_MAX = (1n << 64n) - 1n;
// serde_json's POW10 table covers 1e0..1e308.
const POW10: number[] = Array.from({ length: 309 }, (_, i) => Number(`1e${i}`));

export class SerdeJsonReader {
  private readonly bytes: Uint8Array;
  index = 0;
  private remainingDepth = 128;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  // --- positions (read.rs: position_of_index counts bytes since the last '\n') ---
  private positionOf(i: number): { line: number; column: number } {
    let line = 1;
    let start = 0;
    for (let j = 0; j < i; j++) {
      if (this.bytes[j] === 0x0a) {
        line++;
        start = j + 1;
      }
    }
    return { line, column: i - start };
  }

  /** Error caused by a byte from next(): position of the current index. */
  error(code: string): SerdeJsonError {
    const p = this.positionOf(this.index);
    return new SerdeJsonError(code, p.line, p.column);
  }

  /** Error caused by a byte from peek(): one past the current index, capped at the end. */
  peekError(code: string): SerdeJsonError {
    const p = this.positionOf(Math.min(this.bytes.length, this.index + 1));
    return new SerdeJsonError(code, p.line, p.column);
  }

  /** serde_json's fix_position: give a position-less error the current position. */
  fixPosition(err: unknown): SerdeJsonError {
    if (err instanceof SerdeJsonError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return this.error(message);
  }

  peek(): number | undefined {
    return this.bytes[this.index];
  }

  private next(): number | undefined {
    const b = this.bytes[this.index];
    if (b !== undefined) this.index++;
    return b;
  }

  eat(): void {
    this.index++;
  }

  parseWhitespace(): number | undefined {
    for (;;) {
      const b = this.peek();
      if (b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d) this.index++;
      else return b;
    }
  }

  enterNesting(): void {
    this.remainingDepth--;
    if (this.remainingDepth === 0) throw this.peekError("recursion limit exceeded");
  }

  leaveNesting(): void {
    this.remainingDepth++;
  }

  private parseIdent(rest: string): void {
    for (const ch of rest) {
      const b = this.next();
      if (b === undefined) throw this.error("EOF while parsing a value");
      if (b !== ch.charCodeAt(0)) throw this.error("expected ident");
    }
  }

  /** deserialize_any into serde's Content. */
  parseAny(): JsonValue {
    const peek = this.parseWhitespace();
    if (peek === undefined) throw this.peekError("EOF while parsing a value");
    switch (peek) {
      case 0x6e: // n
        this.eat();
        this.parseIdent("ull");
        return { k: "null" };
      case 0x74: // t
        this.eat();
        this.parseIdent("rue");
        return { k: "bool", v: true };
      case 0x66: // f
        this.eat();
        this.parseIdent("alse");
        return { k: "bool", v: false };
      case 0x2d: // -
        this.eat();
        return this.parseNumber(false);
      case 0x22: // "
        this.eat();
        return { k: "str", v: this.parseStr() };
      case 0x5b: {
        // [
        this.enterNesting();
        this.eat();
        const items: JsonValue[] = [];
        let first = true;
        for (;;) {
          const p = this.parseWhitespace();
          if (p === undefined) throw this.peekError("EOF while parsing a list");
          if (p === 0x5d) break;
          if (first) first = false;
          else if (p === 0x2c) {
            this.eat();
            const q = this.parseWhitespace();
            if (q === 0x5d) throw this.peekError("trailing comma");
            if (q === undefined) throw this.peekError("EOF while parsing a value");
          } else throw this.peekError("expected `,` or `]`");
          items.push(this.parseAny());
        }
        this.leaveNesting();
        this.endSeq();
        return { k: "seq", v: items };
      }
      case 0x7b: {
        // {
        this.enterNesting();
        this.eat();
        const entries: Array<readonly [string, JsonValue]> = [];
        const state = { first: true };
        while (this.hasNextKey(state)) {
          const key = this.parseKey();
          this.parseObjectColon();
          entries.push([key, this.parseAny()]);
        }
        this.leaveNesting();
        this.endMap();
        return { k: "map", v: entries };
      }
      default:
        if (peek >= 0x30 && peek <= 0x39) return this.parseNumber(true);
        throw this.peekError("expected value");
    }
  }

  /** MapAccess::next_key_seed's has_next_key; leaves the reader on the key's opening quote. */
  hasNextKey(state: { first: boolean }): boolean {
    const peek = this.parseWhitespace();
    if (peek === undefined) throw this.peekError("EOF while parsing an object");
    if (peek === 0x7d) return false;
    if (state.first) {
      state.first = false;
      if (peek === 0x22) return true;
      throw this.peekError("key must be a string");
    }
    if (peek === 0x2c) {
      this.eat();
      const q = this.parseWhitespace();
      if (q === 0x22) return true;
      if (q === 0x7d) throw this.peekError("trailing comma");
      if (q === undefined) throw this.peekError("EOF while parsing a value");
      throw this.peekError("key must be a string");
    }
    throw this.peekError("expected `,` or `}`");
  }

  parseKey(): string {
    this.eat(); // the opening quote checked by hasNextKey
    return this.parseStr();
  }

  parseObjectColon(): void {
    const b = this.parseWhitespace();
    if (b === 0x3a) {
      this.eat();
      return;
    }
    if (b === undefined) throw this.peekError("EOF while parsing an object");
    throw this.peekError("expected `:`");
  }

  endMap(): void {
    const b = this.parseWhitespace();
    if (b === 0x7d) {
      this.eat();
      return;
    }
    if (b === 0x2c) throw this.peekError("trailing comma");
    if (b === undefined) throw this.peekError("EOF while parsing an object");
    throw this.peekError("trailing characters");
  }

  private endSeq(): void {
    const b = this.parseWhitespace();
    if (b === 0x5d) {
      this.eat();
      return;
    }
    if (b === 0x2c) {
      this.eat();
      if (this.parseWhitespace() === 0x5d) throw this.peekError("trailing comma");
      throw this.peekError("trailing characters");
    }
    if (b === undefined) throw this.peekError("EOF while parsing a list");
    throw this.peekError("trailing characters");
  }

  /** Deserializer::end: only whitespace may follow the value. */
  end(): void {
    if (this.parseWhitespace() !== undefined) throw this.peekError("trailing characters");
  }

  /** deserialize_str: a string, or peek_invalid_type positioned by fix_position. */
  parseStringValue(expecting: string): string {
    const peek = this.parseWhitespace();
    if (peek === undefined) throw this.peekError("EOF while parsing a value");
    if (peek === 0x22) {
      this.eat();
      return this.parseStr();
    }
    throw this.fixPosition(this.peekInvalidType(expecting));
  }

  /** peek_invalid_type: consume the offending scalar and describe it the serde way. */
  peekInvalidType(expecting: string): Error {
    const b = this.peek() ?? 0;
    let unexpected: string;
    if (b === 0x6e) {
      this.eat();
      this.parseIdent("ull");
      unexpected = "null";
    } else if (b === 0x74) {
      this.eat();
      this.parseIdent("rue");
      unexpected = "boolean `true`";
    } else if (b === 0x66) {
      this.eat();
      this.parseIdent("alse");
      unexpected = "boolean `false`";
    } else if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
      if (b === 0x2d) this.eat();
      unexpected = describeUnexpected(this.parseNumber(b !== 0x2d));
    } else if (b === 0x22) {
      this.eat();
      unexpected = describeUnexpected({ k: "str", v: this.parseStr() });
    } else if (b === 0x5b) unexpected = "sequence";
    else if (b === 0x7b) unexpected = "map";
    else return this.peekError("expected value");
    return new SerdeCustomError(`invalid type: ${unexpected}, expected ${expecting}`);
  }

  // --- strings (read.rs parse_str_bytes with validation, StrRead: input is valid UTF-8) ---
  parseStr(): string {
    let out = "";
    let start = this.index;
    const decoder = new TextDecoder();
    for (;;) {
      while (this.index < this.bytes.length) {
        const c = this.bytes[this.index] as number;
        if (c === 0x22 || c === 0x5c || c < 0x20) break;
        this.index++;
      }
      if (this.index === this.bytes.length) throw this.error("EOF while parsing a string");
      const c = this.bytes[this.index];
      if (c === 0x22) {
        out += decoder.decode(this.bytes.subarray(start, this.index));
        this.index++;
        return out;
      }
      if (c === 0x5c) {
        out += decoder.decode(this.bytes.subarray(start, this.index));
        this.index++;
        out += this.parseEscape();
        start = this.index;
        continue;
      }
      this.index++;
      throw this.error("control character (\\u0000-\\u001F) found while parsing a string");
    }
  }

  private parseEscape(): string {
    const ch = this.next();
    if (ch === undefined) throw this.error("EOF while parsing a string");
    switch (ch) {
      case 0x22:
        return '"';
      case 0x5c:
        return "\\";
      case 0x2f:
        return "/";
      case 0x62:
        return "\b";
      case 0x66:
        return "\f";
      case 0x6e:
        return "\n";
      case 0x72:
        return "\r";
      case 0x74:
        return "\t";
      case 0x75:
        return this.parseUnicodeEscape();
      default:
        throw this.error("invalid escape");
    }
  }

  private decodeHexEscape(): number {
    if (this.bytes.length - this.index < 4) {
      this.index = this.bytes.length;
      throw this.error("EOF while parsing a string");
    }
    const text = String.fromCharCode(...this.bytes.subarray(this.index, this.index + 4));
    this.index += 4;
    if (!/^[0-9a-fA-F]{4}$/.test(text)) throw this.error("invalid escape");
    return Number.parseInt(text, 16);
  }

  private parseUnicodeEscape(): string {
    const n = this.decodeHexEscape();
    if (n >= 0xdc00 && n <= 0xdfff) throw this.error("lone leading surrogate in hex escape");
    if (n < 0xd800 || n > 0xdbff) return String.fromCharCode(n);
    if (this.peek() === undefined) throw this.error("EOF while parsing a string");
    if (this.peek() !== 0x5c) {
      this.eat();
      throw this.error("unexpected end of hex escape");
    }
    this.eat();
    if (this.peek() === undefined) throw this.error("EOF while parsing a string");
    if (this.peek() !== 0x75) {
      this.eat();
      throw this.error("unexpected end of hex escape");
    }
    this.eat();
    const n2 = this.decodeHexEscape();
    if (n2 < 0xdc00 || n2 > 0xdfff) throw this.error("lone leading surrogate in hex escape");
    return String.fromCharCode(n, n2);
  }

  // --- numbers (de.rs parse_integer / parse_number / parse_decimal / parse_exponent) ---
  private peekOrNull(): number {
    return this.peek() ?? 0;
  }

  private parseNumber(positive: boolean): JsonValue {
    const first = this.next();
    if (first === undefined) throw this.error("EOF while parsing a value");
    if (first === 0x30) {
      const p = this.peekOrNull();
      if (p >= 0x30 && p <= 0x39) throw this.peekError("invalid number");
      return this.parseNumberTail(positive, 0n);
    }
    if (first < 0x31 || first > 0x39) throw this.error("invalid number");
    let significand = BigInt(first - 0x30);
    for (;;) {
      const c = this.peekOrNull();
      if (c < 0x30 || c > 0x39) return this.parseNumberTail(positive, significand);
      const next = significand * 10n + BigInt(c - 0x30);
      if (next > U64_MAX) return { k: "f64", v: this.parseLongInteger(positive, significand) };
      this.eat();
      significand = next;
    }
  }

  private parseNumberTail(positive: boolean, significand: bigint): JsonValue {
    const c = this.peekOrNull();
    if (c === 0x2e) return { k: "f64", v: this.parseDecimal(positive, significand, 0) };
    if (c === 0x65 || c === 0x45)
      return { k: "f64", v: this.parseExponent(positive, significand, 0) };
    if (positive) return { k: "u64", v: significand };
    // (significand as i64).wrapping_neg(): a float on underflow or on -0.
    const asI64 = BigInt.asIntN(64, significand);
    const neg = BigInt.asIntN(64, -asI64);
    if (neg >= 0n) return { k: "f64", v: -Number(significand) };
    return { k: "i64", v: neg };
  }

  private parseLongInteger(positive: boolean, significand: bigint): number {
    let exponent = 0;
    for (;;) {
      const c = this.peekOrNull();
      if (c >= 0x30 && c <= 0x39) {
        this.eat();
        exponent++;
      } else if (c === 0x2e) return this.parseDecimal(positive, significand, exponent);
      else if (c === 0x65 || c === 0x45) return this.parseExponent(positive, significand, exponent);
      else return this.f64FromParts(positive, significand, exponent);
    }
  }

  private parseDecimal(positive: boolean, significandIn: bigint, expBefore: number): number {
    this.eat();
    let significand = significandIn;
    let expAfter = 0;
    for (;;) {
      const c = this.peekOrNull();
      if (c < 0x30 || c > 0x39) break;
      const next = significand * 10n + BigInt(c - 0x30);
      if (next > U64_MAX) {
        // parse_decimal_overflow: ignore further digits.
        while (this.peekOrNull() >= 0x30 && this.peekOrNull() <= 0x39) this.eat();
        const e = this.peekOrNull();
        if (e === 0x65 || e === 0x45)
          return this.parseExponent(positive, significand, expBefore + expAfter);
        return this.f64FromParts(positive, significand, expBefore + expAfter);
      }
      this.eat();
      significand = next;
      expAfter--;
    }
    if (expAfter === 0) {
      if (this.peek() !== undefined) throw this.peekError("invalid number");
      throw this.peekError("EOF while parsing a value");
    }
    const exponent = expBefore + expAfter;
    const e = this.peekOrNull();
    if (e === 0x65 || e === 0x45) return this.parseExponent(positive, significand, exponent);
    return this.f64FromParts(positive, significand, exponent);
  }

  private parseExponent(positive: boolean, significand: bigint, startingExp: number): number {
    this.eat();
    let positiveExp = true;
    const sign = this.peekOrNull();
    if (sign === 0x2b) this.eat();
    else if (sign === 0x2d) {
      this.eat();
      positiveExp = false;
    }
    const next = this.next();
    if (next === undefined) throw this.error("EOF while parsing a value");
    if (next < 0x30 || next > 0x39) throw this.error("invalid number");
    let exp = next - 0x30;
    for (;;) {
      const c = this.peekOrNull();
      if (c < 0x30 || c > 0x39) break;
      this.eat();
      const digit = c - 0x30;
      if (exp * 10 + digit > 2147483647) {
        // parse_exponent_overflow
        while (this.peekOrNull() >= 0x30 && this.peekOrNull() <= 0x39) this.eat();
        if (significand !== 0n && positiveExp) throw this.error("number out of range");
        return positive ? 0 : -0;
      }
      exp = exp * 10 + digit;
    }
    const finalExp = positiveExp ? startingExp + exp : startingExp - exp;
    return this.f64FromParts(positive, significand, finalExp);
  }

  private f64FromParts(positive: boolean, significand: bigint, exponentIn: number): number {
    let f = Number(significand);
    let exponent = exponentIn;
    for (;;) {
      const pow = POW10[Math.abs(exponent)];
      if (pow !== undefined) {
        if (exponent >= 0) {
          f *= pow;
          if (!Number.isFinite(f)) throw this.error("number out of range");
        } else f /= pow;
        break;
      }
      if (f === 0) break;
      if (exponent >= 0) throw this.error("number out of range");
      f /= 1e308;
      exponent += 308;
    }
    return positive ? f : -f;
  }
}

/** serde's Unexpected Display, with serde_json's overrides (null, floating point). */
export function describeUnexpected(v: JsonValue): string {
  switch (v.k) {
    case "null":
      return "null";
    case "bool":
      return `boolean \`${v.v}\``;
    case "u64":
    case "i64":
      return `integer \`${v.v}\``;
    case "f64":
      return `floating point \`${formatF64(v.v)}\``;
    case "str":
      return `string ${rustDebugStr(v.v)}`;
    case "seq":
      return "sequence";
    case "map":
      return "map";
  }
}

/** Rust's `{:?}` for str: quotes, and escapes for quote, backslash and control characters. */
export function rustDebugStr(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\0") out += "\\0";
    else if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0))
      out += `\\u{${cp.toString(16)}}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * Shortest round-trip decimal for a float, in the ryu/zmij layout serde_json prints:
 * integers keep ".0", scientific notation outside 1e-5 <= |x| < 1e16 with "e" and no "+".
 * `roundTrips` says whether a candidate string reads back as the same f64 (or f32).
 */
export function formatShortestFloat(value: number, roundTrips: (s: string) => boolean): string {
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : value < 0 ? "-inf" : "NaN";
  let mantissa = "";
  let exp10 = 0;
  for (let p = 1; p <= 17; p++) {
    const s = value.toExponential(p - 1);
    if (roundTrips(s)) {
      const [m = "", e = "0"] = s.split("e");
      mantissa = m.replace("-", "").replace(".", "");
      exp10 = Number(e);
      break;
    }
  }
  const sign = value < 0 ? "-" : "";
  const digits = mantissa.replace(/0+$/, "") || "0";
  const n = digits.length;
  // Decimal point position relative to the digit string start.
  const point = exp10 + 1;
  if (exp10 >= -5 && exp10 < 16) {
    if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
    if (point >= n) return `${sign}${digits}${"0".repeat(point - n)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const m = n === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${sign}${m}e${exp10}`;
}

export function formatF64(value: number): string {
  return formatShortestFloat(value, (s) => Number(s) === value);
}

export function formatF32(value: number): string {
  const f = Math.fround(value);
  return formatShortestFloat(f, (s) => Math.fround(Number(s)) === f);
}

/** Buffered JSON back to plain JS values (u64/i64 beyond 2^53 lose precision). */
export function toPlain(v: JsonValue): unknown {
  switch (v.k) {
    case "null":
      return null;
    case "bool":
    case "str":
    case "f64":
      return v.v;
    case "u64":
    case "i64":
      return Number(v.v);
    case "seq":
      return v.v.map(toPlain);
    case "map":
      return Object.fromEntries(v.v.map(([k, x]) => [k, toPlain(x)]));
  }
}
