/**
 * The text of the serde_json errors the real agent puts in `data` when it cannot deserialize a
 * request's params (`serde_json::from_str(params.get())` then `e.to_string()`, as in
 * extensions/session_updates.rs `handle` and agent/handlers/session.rs `handle_session_info`):
 * `missing field \`cwd\` at line 1 column 41`, `invalid type: string "x", expected i64 at ...`.
 * Fields are checked in the order serde does: present keys in input order (the first bad value
 * wins), then missing required fields in declaration order. Positions are computed on the compact
 * serialization of the params, which is what a client that writes compact JSON sent.
 */
import { isRecord, type JsonRecord } from "../json.js";

export class SerdeError extends Error {}

/** serde's `Unexpected` display of a JSON value (serde_json prints null as `null`). */
function unexpected(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return `boolean \`${value}\``;
  if (typeof value === "number") {
    if (Number.isInteger(value)) return `integer \`${value}\``;
    return `floating point \`${value}\``;
  }
  if (typeof value === "string") return `string ${JSON.stringify(value)}`;
  if (Array.isArray(value)) return "sequence";
  return "map";
}

/** `{"a":1,"b":` … up to the end of the value at `path` (where serde_json reports the error). */
function prefixThrough(obj: JsonRecord, path: readonly string[]): string {
  const [head, ...rest] = path;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (k === head) {
      const value = rest.length > 0 && isRecord(v) ? prefixThrough(v, rest) : JSON.stringify(v);
      parts.push(`${JSON.stringify(k)}:${value}`);
      return `{${parts.join(",")}`;
    }
    parts.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
  }
  return JSON.stringify(obj);
}

export type Expect = "a string" | "a boolean" | "a sequence" | "i64" | "usize" | `struct ${string}`;

/** One struct's params, read field by field the way a serde derive would. */
export class SerdeStruct {
  private readonly root: JsonRecord;
  private readonly path: readonly string[];
  private readonly obj: JsonRecord;

  constructor(root: JsonRecord, path: readonly string[] = []) {
    this.root = root;
    this.path = path;
    let obj: unknown = root;
    for (const key of path) obj = isRecord(obj) ? obj[key] : undefined;
    this.obj = isRecord(obj) ? obj : {};
  }

  private at(key: string, message: string): SerdeError {
    const column = prefixThrough(this.root, [...this.path, key]).length;
    return new SerdeError(`${message} at line 1 column ${column}`);
  }

  /** `missing field` is reported once the whole object was read: at its closing brace. */
  missing(key: string): SerdeError {
    const column =
      this.path.length === 0
        ? JSON.stringify(this.root).length
        : prefixThrough(this.root, this.path).length;
    return new SerdeError(`missing field \`${key}\` at line 1 column ${column}`);
  }

  invalidType(key: string, expected: Expect): SerdeError {
    return this.at(key, `invalid type: ${unexpected(this.obj[key])}, expected ${expected}`);
  }

  invalidValue(key: string, expected: Expect): SerdeError {
    return this.at(key, `invalid value: ${unexpected(this.obj[key])}, expected ${expected}`);
  }

  /** An untagged enum none of whose variants matched (serde's fixed text). */
  noVariant(key: string, name: string): SerdeError {
    return this.at(key, `data did not match any variant of untagged enum ${name}`);
  }

  has(key: string): boolean {
    return Object.hasOwn(this.obj, key);
  }

  get(key: string): unknown {
    return this.obj[key];
  }

  /** The keys present, in input order (serde visits them in that order). */
  keys(): string[] {
    return Object.keys(this.obj);
  }

  nested(key: string): SerdeStruct {
    return new SerdeStruct(this.root, [...this.path, key]);
  }
}

/** A `String` field value (`Option<String>` maps null to None before this is called). */
export function readString(s: SerdeStruct, key: string): string {
  const v = s.get(key);
  if (typeof v !== "string") throw s.invalidType(key, "a string");
  return v;
}

export function readBool(s: SerdeStruct, key: string): boolean {
  const v = s.get(key);
  if (typeof v !== "boolean") throw s.invalidType(key, "a boolean");
  return v;
}

export function readI64(s: SerdeStruct, key: string): number {
  const v = s.get(key);
  if (typeof v !== "number" || !Number.isInteger(v)) throw s.invalidType(key, "i64");
  return v;
}

export function readUsize(s: SerdeStruct, key: string): number {
  const v = s.get(key);
  if (typeof v !== "number" || !Number.isInteger(v)) throw s.invalidType(key, "usize");
  if (v < 0) throw s.invalidValue(key, "usize");
  return v;
}
