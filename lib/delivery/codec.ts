/**
 * The journal's line codec (pure): `<crc32, 8 lowercase hex> <SP> <JSON record> <LF>` per record.
 * Decoding stops at the first line that fails any check; from there on is the tail, which the
 * journal quarantines. Why CRC-32 and why the tail is exactly the unacknowledged suffix:
 * docs/design/decisions.md §5.4-§5.5.
 */
import { Buffer, isUtf8 } from "node:buffer";
import { crc32 } from "node:zlib";
import * as v from "valibot";
import { DeliveryError } from "./delivery-error.js";
import {
  type JournalRecord,
  JournalRecordSchema,
  RECORD_VERSION,
  SNAPSHOT_VERSION,
} from "./journal-record.js";

/** The largest line (prefix, JSON and newline) the journal writes or accepts. */
export const MAX_LINE_BYTES = 4096;

const PREFIX_BYTES = 9; // 8 hex digits + one space
const PARSE_CONFIG = { abortEarly: true } as const;
const LF = 0x0a;
const SP = 0x20;

/** Why decoding stopped before the end of the bytes. */
export type TailReason =
  | "torn" // the last line has no newline: a write cut short
  | "oversize" // no newline within MAX_LINE_BYTES
  | "frame" // the checksum prefix is malformed (zeroed or stale sectors, garbage)
  | "checksum" // the CRC does not match the JSON bytes
  | "utf8" // the JSON bytes are not valid UTF-8
  | "json" // not parseable JSON
  | "schema" // JSON, but not a valid version-1 record
  | "unsupported-version"; // a valid-checksum record of another version: written by another release

export interface DecodedLine {
  readonly record: JournalRecord;
  readonly offset: number;
  readonly length: number;
}

export interface JournalTail {
  readonly reason: TailReason;
  /** Byte offset where the tail starts (= the valid length of the journal). */
  readonly offset: number;
  /** Bytes from `offset` to the end. */
  readonly length: number;
  /** Lines after the first bad one whose checksum frame is intact (counted, never parsed). */
  readonly framedLinesAfter: number;
}

export interface DecodedJournal {
  readonly lines: readonly DecodedLine[];
  /** Bytes of valid lines from the start; equals the input length when there is no tail. */
  readonly validLength: number;
  readonly tail: JournalTail | null;
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, "0");
}

/** Encode one record as a line. Throws RECORD_TOO_LARGE if it would exceed MAX_LINE_BYTES. */
export function encodeRecord(record: JournalRecord): Buffer {
  const json = Buffer.from(JSON.stringify(record), "utf8");
  const length = PREFIX_BYTES + json.length + 1;
  if (length > MAX_LINE_BYTES) {
    throw new DeliveryError("RECORD_TOO_LARGE", `a ${record.t} record needs ${length} bytes`, {
      details: { type: record.t, length, max: MAX_LINE_BYTES },
    });
  }
  const line = Buffer.allocUnsafe(length);
  line.write(hex8(crc32(json)), 0, "latin1");
  line[8] = SP;
  json.copy(line, PREFIX_BYTES);
  line[length - 1] = LF;
  return line;
}

function isHexDigit(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66));
}

/** Check the `<crc> <json>` frame of bytes[start, end) (without LF): null when intact. */
function frameProblem(bytes: Uint8Array, start: number, end: number): "frame" | "checksum" | null {
  if (end - start < PREFIX_BYTES + 2) return "frame";
  let stored = 0;
  for (let i = start; i < start + 8; i++) {
    const b = bytes[i];
    if (!isHexDigit(b) || b === undefined) return "frame";
    stored = stored * 16 + (b <= 0x39 ? b - 0x30 : b - 0x57);
  }
  if (bytes[start + 8] !== SP) return "frame";
  return crc32(bytes.subarray(start + PREFIX_BYTES, end)) === stored ? null : "checksum";
}

/** Decode one line (without its LF) or say why it is not a record. */
export function decodeLine(
  bytes: Uint8Array,
  start: number,
  end: number,
): { ok: true; record: JournalRecord } | { ok: false; reason: TailReason } {
  const problem = frameProblem(bytes, start, end);
  if (problem !== null) return { ok: false, reason: problem };
  const json = bytes.subarray(start + PREFIX_BYTES, end);
  if (!isUtf8(json)) return { ok: false, reason: "utf8" };
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.length).toString("utf8"));
  } catch {
    return { ok: false, reason: "json" };
  }
  // abortEarly: a line is a record or it is not; the first issue is enough (and ~30% faster).
  const parsed = v.safeParse(JournalRecordSchema, value, PARSE_CONFIG);
  if (parsed.success) return { ok: true, record: parsed.output };
  const version: unknown =
    typeof value === "object" && value !== null ? Reflect.get(value, "v") : undefined;
  const type: unknown =
    typeof value === "object" && value !== null ? Reflect.get(value, "t") : undefined;
  // Each record type has one version (the `settled` snapshot 2, every other 1): anything else
  // was written by another release.
  const expected = type === "settled" ? SNAPSHOT_VERSION : RECORD_VERSION;
  if (typeof version === "number" && version !== expected) {
    return { ok: false, reason: "unsupported-version" };
  }
  return { ok: false, reason: "schema" };
}

function countFramedLines(bytes: Uint8Array, from: number): number {
  let n = 0;
  let start = from;
  while (start < bytes.length) {
    const nl = bytes.indexOf(LF, start);
    if (nl === -1) break;
    if (frameProblem(bytes, start, nl) === null) n++;
    start = nl + 1;
  }
  return n;
}

/** Decode a whole journal: the valid lines up to the first bad one, and the tail after it. */
export function decodeJournal(bytes: Uint8Array): DecodedJournal {
  const lines: DecodedLine[] = [];
  let offset = 0;
  let reason: TailReason | null = null;
  while (offset < bytes.length) {
    const window = bytes.subarray(offset, Math.min(bytes.length, offset + MAX_LINE_BYTES));
    const rel = window.indexOf(LF);
    if (rel === -1) {
      reason = bytes.length - offset >= MAX_LINE_BYTES ? "oversize" : "torn";
      break;
    }
    const decoded = decodeLine(bytes, offset, offset + rel);
    if (!decoded.ok) {
      reason = decoded.reason;
      break;
    }
    lines.push({ record: decoded.record, offset, length: rel + 1 });
    offset += rel + 1;
  }
  if (reason === null) return { lines, validLength: bytes.length, tail: null };
  const next = bytes.indexOf(LF, offset);
  return {
    lines,
    validLength: offset,
    tail: {
      reason,
      offset,
      length: bytes.length - offset,
      framedLinesAfter: next === -1 ? 0 : countFramedLines(bytes, next + 1),
    },
  };
}
