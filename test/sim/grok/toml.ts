/**
 * The subset of TOML that Grok's `config.toml` uses for `[mcp_servers.<name>]`, `[ui]` and
 * top-level keys (util/config/mcp.rs reads it with the `toml` crate): tables and dotted table
 * headers, bare/quoted keys, basic and literal strings, integers, floats, booleans, arrays (also
 * multi-line) and inline tables. Anything else is a parse error, reported with its line.
 */
import { isRecord, type JsonRecord } from "./json.js";

export class TomlError extends Error {}

export function parseToml(text: string): JsonRecord {
  const root: JsonRecord = {};
  let table = root;
  const p = new Parser(text);
  for (;;) {
    p.skipBlankAndComments();
    if (p.eof()) break;
    if (p.peek() === "[") {
      p.next();
      const isArrayTable = p.peek() === "[";
      if (isArrayTable) p.next();
      const path = p.keyPath();
      p.expect("]");
      if (isArrayTable) p.expect("]");
      table = descend(root, path, isArrayTable, p);
    } else {
      const path = p.keyPath();
      p.skipSpaces();
      p.expect("=");
      p.skipSpaces();
      const value = p.value();
      const last = path.pop();
      if (last === undefined) throw p.error("empty key");
      const target = descend(table, path, false, p);
      if (Object.hasOwn(target, last)) throw p.error(`duplicate key ${last}`);
      target[last] = value;
    }
    p.endOfLine();
  }
  return root;
}

function descend(from: JsonRecord, path: string[], arrayTable: boolean, p: Parser): JsonRecord {
  let cur = from;
  path.forEach((key, i) => {
    const lastSegment = i === path.length - 1;
    const existing = cur[key];
    if (lastSegment && arrayTable) {
      const list = Array.isArray(existing) ? existing : [];
      const next: JsonRecord = {};
      list.push(next);
      cur[key] = list;
      cur = next;
      return;
    }
    if (existing === undefined) {
      const next: JsonRecord = {};
      cur[key] = next;
      cur = next;
    } else if (isRecord(existing)) {
      cur = existing;
    } else if (Array.isArray(existing)) {
      const tail: unknown = existing[existing.length - 1];
      if (!isRecord(tail)) throw p.error(`${key} is not a table`);
      cur = tail;
    } else {
      throw p.error(`${key} is not a table`);
    }
  });
  return cur;
}

class Parser {
  private i = 0;
  private line = 1;
  private readonly s: string;
  constructor(text: string) {
    this.s = text;
  }

  eof(): boolean {
    return this.i >= this.s.length;
  }
  peek(): string {
    return this.s[this.i] ?? "";
  }
  next(): string {
    const c = this.s[this.i++] ?? "";
    if (c === "\n") this.line++;
    return c;
  }
  error(message: string): TomlError {
    return new TomlError(`config.toml line ${this.line}: ${message}`);
  }
  expect(c: string): void {
    if (this.next() !== c) throw this.error(`expected '${c}'`);
  }
  skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.next();
  }
  skipBlankAndComments(): void {
    for (;;) {
      const c = this.peek();
      if (c === " " || c === "\t" || c === "\r" || c === "\n") this.next();
      else if (c === "#") while (!this.eof() && this.peek() !== "\n") this.next();
      else return;
    }
  }
  endOfLine(): void {
    this.skipSpaces();
    if (this.peek() === "#") while (!this.eof() && this.peek() !== "\n") this.next();
    if (this.peek() === "\r") this.next();
    if (!this.eof() && this.next() !== "\n") throw this.error("expected end of line");
  }
  keyPath(): string[] {
    const keys: string[] = [];
    for (;;) {
      this.skipSpaces();
      keys.push(this.key());
      this.skipSpaces();
      if (this.peek() !== ".") return keys;
      this.next();
    }
  }
  private key(): string {
    const c = this.peek();
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    let k = "";
    while (/[A-Za-z0-9_-]/.test(this.peek())) k += this.next();
    if (k === "") throw this.error("expected a key");
    return k;
  }
  value(): unknown {
    const c = this.peek();
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === "[") return this.array();
    if (c === "{") return this.inlineTable();
    let raw = "";
    while (!this.eof() && !/[\s,\]}#]/.test(this.peek())) raw += this.next();
    if (raw === "true") return true;
    if (raw === "false") return false;
    const cleaned = raw.replaceAll("_", "");
    if (/^[+-]?\d+$/.test(cleaned)) return Number.parseInt(cleaned, 10);
    if (/^[+-]?(\d+\.\d+([eE][+-]?\d+)?|\d+[eE][+-]?\d+)$/.test(cleaned)) {
      return Number.parseFloat(cleaned);
    }
    throw this.error(`unsupported value ${JSON.stringify(raw)}`);
  }
  /** A one-line string up to the closing `quote`; `readEscape` reads what follows a backslash. */
  private quoted(quote: string, readEscape: (() => string) | undefined): string {
    this.expect(quote);
    let out = "";
    for (;;) {
      if (this.eof() || this.peek() === "\n") throw this.error("unterminated string");
      const c = this.next();
      if (c === quote) return out;
      out += c === "\\" && readEscape !== undefined ? readEscape() : c;
    }
  }
  private basicString(): string {
    return this.quoted('"', () => this.escape());
  }
  /** What a backslash escape in a basic string stands for. */
  private escape(): string {
    const e = this.next();
    const simple: Record<string, string> = {
      b: "\b",
      t: "\t",
      n: "\n",
      f: "\f",
      r: "\r",
      '"': '"',
      "\\": "\\",
    };
    const mapped = simple[e];
    if (mapped !== undefined) return mapped;
    if (e === "u" || e === "U") {
      let hex = "";
      for (let k = 0; k < (e === "u" ? 4 : 8); k++) hex += this.next();
      return String.fromCodePoint(Number.parseInt(hex, 16));
    }
    throw this.error(`bad escape \\${e}`);
  }
  private literalString(): string {
    return this.quoted("'", undefined);
  }
  private array(): unknown[] {
    this.expect("[");
    const out: unknown[] = [];
    for (;;) {
      this.skipBlankAndComments();
      if (this.peek() === "]") {
        this.next();
        return out;
      }
      out.push(this.value());
      this.skipBlankAndComments();
      if (this.peek() === ",") this.next();
      else if (this.peek() !== "]") throw this.error("expected ',' or ']'");
    }
  }
  private inlineTable(): JsonRecord {
    this.expect("{");
    const out: JsonRecord = {};
    this.skipSpaces();
    if (this.peek() === "}") {
      this.next();
      return out;
    }
    for (;;) {
      const path = this.keyPath();
      this.expect("=");
      this.skipSpaces();
      const value = this.value();
      const last = path.pop();
      if (last === undefined) throw this.error("empty key");
      descend(out, path, false, this)[last] = value;
      this.skipSpaces();
      const c = this.next();
      if (c === "}") return out;
      if (c !== ",") throw this.error("expected ',' or '}'");
      this.skipSpaces();
    }
  }
}
