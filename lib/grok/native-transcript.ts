/**
 * `readNativeTranscript`: a session's stored transcript read from Grok's own `updates.jsonl`, for a
 * session whose TUI has exited (upload after release; docs/design/decisions.md §13.3). The same
 * entries, pages and cursor as `seat.transcript()` over `x.ai/session/updates`: both choose pages
 * with `PageSelector` and drop rewound lines as Grok does.
 *
 * The file is hostile input until proven: every directory from GROK_HOME down and the file itself
 * must be ours and writable by nobody else, and no symlink is followed below GROK_HOME (OpenSSH's
 * rule for files it trusts). It is read in bounded pieces: a line longer than `maxLineBytes` is
 * reported, never held; a last line cut short by a crash mid-append (no newline, not JSON) is the
 * torn tail, reported and skipped; a line in the middle that is not a session update is reported
 * in `unreadable`, and everything else is still read.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
} from "node:fs";
import { join } from "node:path";
import { type CheckResult, fail, pass } from "../check.js";
import { failureOr, UsageError } from "../errors.js";
import { GrokError, type GrokErrorCode } from "./grok-error.js";
import { encodeCwdDirname, sessionsRoot, UPDATES_FILE } from "./paths.js";
import { REWIND_MARKER, rewindStepOf, survivingLines } from "./rewind.js";
import {
  recordEntry,
  storedLine,
  TRANSCRIPT_ENTRY_MAX_CHARS,
  type TranscriptEntry,
} from "./transcript-entry.js";
import { cursorSeq, PageSelector, pageLimit, type TranscriptPage } from "./transcript-page.js";

export interface ReadNativeTranscriptOptions {
  /** The session's GROK_HOME (the seat record's `profile.grokHome`). */
  readonly grokHome: string;
  /** The session's cwd, as the TUI ran in it (the record's `cwd`). */
  readonly cwd: string;
  readonly sessionId: string;
  /** An eventId of this session: only entries after it (exclusive). */
  readonly since?: string;
  /** Entries per page (default 500, at most 10,000). */
  readonly limit?: number;
  /** Bound on one entry's params, in characters of JSON (default 256 Ki). */
  readonly maxEntryChars?: number;
  /** The longest stored line read (default 64 MiB, the leader's frame cap). */
  readonly maxLineBytes?: number;
}

export interface UnreadableLine {
  /** 1-based line number in the file. */
  readonly line: number;
  /** Byte offset of the line's start. */
  readonly offset: number;
  readonly reason: string;
}

export interface NativeTranscript extends TranscriptPage {
  readonly path: string;
  /** A last line without newline that is not JSON (a crash mid-append): not an entry. */
  readonly tornTail: { readonly offset: number; readonly bytes: number } | null;
  /** Lines that are not session updates (at most `MAX_UNREADABLE` listed). */
  readonly unreadable: readonly UnreadableLine[];
  readonly unreadableCount: number;
}

export const MAX_UNREADABLE = 64;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
const READ_CHUNK = 1024 * 1024;
/** Grok session ids are UUIDs; anything that could leave the directory is refused. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

function euid(): number {
  return typeof process.geteuid === "function" ? process.geteuid() : -1;
}

function bad(code: GrokErrorCode, message: string, details: Record<string, unknown>): GrokError {
  return new GrokError(code, message, { details });
}

/** Ours, not a symlink, nobody else may write it: the checks of one path we read through. */
function trusted(path: string, what: "directory" | "file", name: string): CheckResult[] {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return [fail(`${name}.exists`, path, null, `${path} does not exist`)];
  const mode = st.mode & 0o7777;
  const type = st.isSymbolicLink()
    ? "symlink"
    : st.isDirectory()
      ? "directory"
      : st.isFile()
        ? "file"
        : "other";
  return [
    type === what
      ? pass(`${name}.type`, what, type)
      : fail(`${name}.type`, what, type, `${path} is a ${type}, not a ${what}`),
    st.uid === euid()
      ? pass(`${name}.owner`, euid(), st.uid)
      : fail(`${name}.owner`, euid(), st.uid, `${path} is owned by uid ${st.uid}`),
    (mode & 0o022) === 0
      ? pass(`${name}.mode`, "no group/other write", mode.toString(8))
      : fail(
          `${name}.mode`,
          "no group/other write",
          mode.toString(8),
          `${path} is writable by group or others (mode ${mode.toString(8)})`,
        ),
  ];
}

/**
 * Where a session's `updates.jsonl` lives: `$GROK_HOME/sessions/<encoded cwd>/<id>/`, or, for a
 * cwd too long to encode, the `sessions/*` directory whose `.cwd` file names it
 * (xai-grok-config `paths.rs` `encode_cwd_dirname`, `decode_cwd_from_dirname`). Null when no
 * such directory exists. The path is not yet trusted: `readNativeTranscript` checks it.
 */
export function nativeTranscriptPath(
  grokHome: string,
  cwd: string,
  sessionId: string,
): string | null {
  if (!SESSION_ID.test(sessionId)) {
    throw new UsageError<GrokErrorCode>(
      "TRANSCRIPT_QUERY_INVALID",
      `not a session id: ${JSON.stringify(sessionId.slice(0, 200))}`,
    );
  }
  const root = sessionsRoot(grokHome);
  const encoded = encodeCwdDirname(cwd);
  if (encoded !== null) return join(root, encoded, sessionId, UPDATES_FILE);
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    names = [];
  }
  for (const name of names.sort()) {
    try {
      const lst = lstatSync(join(root, name, ".cwd"));
      if (!lst.isFile() || lst.size > 64 * 1024) continue;
      if (readFileSync(join(root, name, ".cwd"), "utf8").trim() !== cwd) continue;
      return join(root, name, sessionId, UPDATES_FILE);
    } catch {
      // not a hashed cwd directory of ours
    }
  }
  return null;
}

interface Line {
  /** The decoded text, or why the line could not be read. */
  readonly text: string | null;
  readonly reason: string | null;
  /** Whether a newline ended it (only the last line of a file may lack one). */
  readonly terminated: boolean;
  /** 1-based line number, byte offset and length. */
  readonly no: number;
  readonly offset: number;
  readonly bytes: number;
}

/**
 * Every non-blank line of the file in order, read from its start in bounded pieces (`pread`, so
 * the passes do not share a file position). A line over `maxLineBytes` is skipped, not held.
 */
function* lines(fd: number, maxLineBytes: number): Generator<Line> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const buf = Buffer.alloc(READ_CHUNK);
  let parts: Buffer[] = [];
  let bytes = 0;
  let position = 0;
  let no = 0;
  const line = (terminated: boolean): Line | null => {
    no++;
    const offset = position - bytes - (terminated ? 1 : 0);
    const whole = bytes > maxLineBytes ? null : Buffer.concat(parts);
    const length = bytes;
    parts = [];
    bytes = 0;
    const at = { terminated, no, offset, bytes: length };
    if (whole === null) {
      return { text: null, reason: `line longer than ${maxLineBytes} bytes`, ...at };
    }
    if (whole.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)) return null;
    try {
      return { text: decoder.decode(whole), reason: null, ...at };
    } catch {
      return { text: null, reason: "not UTF-8", ...at };
    }
  };
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, position);
    if (n === 0) break;
    let from = 0;
    while (from < n) {
      const nl = buf.indexOf(0x0a, from);
      const end = nl < 0 || nl >= n ? n : nl;
      bytes += end - from;
      if (bytes <= maxLineBytes && end > from) parts.push(Buffer.from(buf.subarray(from, end)));
      else if (bytes > maxLineBytes) parts = [];
      position += end - from;
      if (end < n) {
        position++;
        const l = line(true);
        if (l !== null) yield l;
      }
      from = end + 1;
    }
  }
  if (bytes > 0) {
    const l = line(false);
    if (l !== null) yield l;
  }
}

function openTrusted(
  grokHome: string,
  cwd: string,
  sessionId: string,
): {
  path: string;
  fd: number;
} {
  let home: string;
  try {
    home = realpathSync(grokHome);
  } catch (cause) {
    throw new GrokError("TRANSCRIPT_NOT_FOUND", `GROK_HOME ${grokHome} does not exist`, {
      details: { grokHome },
      cause,
    });
  }
  const path = nativeTranscriptPath(home, cwd, sessionId);
  if (path === null) {
    throw bad("TRANSCRIPT_NOT_FOUND", `no session directory for cwd ${cwd}`, { grokHome, cwd });
  }
  const root = sessionsRoot(home);
  const cwdDir = join(path, "..", "..");
  const sessionDir = join(path, "..");
  const checks = [
    ...trusted(home, "directory", "grok_home"),
    ...trusted(root, "directory", "sessions_dir"),
    ...trusted(cwdDir, "directory", "cwd_dir"),
    ...trusted(sessionDir, "directory", "session_dir"),
  ];
  const missing = checks.find((c) => !c.ok && c.check.endsWith(".exists"));
  if (missing !== undefined) {
    throw bad("TRANSCRIPT_NOT_FOUND", `no stored transcript for session ${sessionId}`, {
      path,
      check: missing,
    });
  }
  const failed = checks.find((c) => !c.ok);
  if (failed !== undefined) {
    throw bad("TRANSCRIPT_UNTRUSTED", failed.reason ?? "untrusted path", { path, check: failed });
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (cause) {
    const errno = failureOr(cause, "EIO").code;
    throw new GrokError(
      errno === "ENOENT" ? "TRANSCRIPT_NOT_FOUND" : "TRANSCRIPT_UNREADABLE",
      `cannot open ${path} (${errno})`,
      { details: { path, errno }, cause },
    );
  }
  const st = fstatSync(fd);
  const mode = st.mode & 0o7777;
  const problem = !st.isFile()
    ? "not a regular file"
    : st.uid !== euid()
      ? `owned by uid ${st.uid}`
      : (mode & 0o022) !== 0
        ? `writable by group or others (mode ${mode.toString(8)})`
        : null;
  if (problem !== null) {
    closeSync(fd);
    throw bad("TRANSCRIPT_UNTRUSTED", `${path} is ${problem}`, { path });
  }
  return { path, fd };
}

/** Whether the file holds `rewind_marker` anywhere (a byte search; Grok's own first test). */
function hasRewindMarker(fd: number): boolean {
  const needle = Buffer.from(REWIND_MARKER);
  const buf = Buffer.alloc(READ_CHUNK + needle.length);
  let keep = 0;
  let position = 0;
  for (;;) {
    const n = readSync(fd, buf, keep, READ_CHUNK, position);
    if (n === 0) return false;
    position += n;
    if (buf.subarray(0, keep + n).includes(needle)) return true;
    buf.copy(buf, 0, keep + n - (needle.length - 1), keep + n);
    keep = needle.length - 1;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Read one page of the stored transcript of `sessionId`. Throws GrokError TRANSCRIPT_NOT_FOUND,
 * TRANSCRIPT_UNTRUSTED or TRANSCRIPT_UNREADABLE, or UsageError TRANSCRIPT_QUERY_INVALID for a
 * `since` of another session or a bad `limit`.
 */
export function readNativeTranscript(options: ReadNativeTranscriptOptions): NativeTranscript {
  const { sessionId } = options;
  const cursor = cursorSeq(options.since, sessionId);
  const limit = pageLimit(options.limit);
  if (!cursor.ok || limit === null) {
    throw new UsageError<GrokErrorCode>(
      "TRANSCRIPT_QUERY_INVALID",
      cursor.ok ? "limit must be an integer in 1..10000" : cursor.reason,
      { details: { since: options.since ?? null, limit: options.limit ?? null } },
    );
  }
  const maxChars = options.maxEntryChars ?? TRANSCRIPT_ENTRY_MAX_CHARS;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const { path, fd } = openTrusted(options.grokHome, options.cwd, sessionId);
  try {
    // Rewound lines are dropped as Grok drops them, which needs the whole timeline first.
    let survivors: Set<number> | null = null;
    if (hasRewindMarker(fd)) {
      const steps = [];
      for (const l of lines(fd, maxLineBytes)) {
        steps.push(l.text === null ? { kind: "other" as const } : rewindStepOf(parse(l.text)));
      }
      survivors = new Set(survivingLines(steps));
    }
    const selector = new PageSelector(sessionId, cursor.seq, limit);
    const unreadable: UnreadableLine[] = [];
    let unreadableCount = 0;
    let tornTail: NativeTranscript["tornTail"] = null;
    let index = -1;
    let more = false;
    const note = (u: UnreadableLine): void => {
      unreadableCount++;
      if (unreadable.length < MAX_UNREADABLE) unreadable.push(u);
    };
    for (const l of lines(fd, maxLineBytes)) {
      index++;
      if (selector.full) {
        more = true;
        break;
      }
      if (survivors !== null && !survivors.has(index)) continue;
      const value = l.text === null ? undefined : parse(l.text);
      if (value === undefined) {
        if (!l.terminated) tornTail = { offset: l.offset, bytes: l.bytes };
        else note({ line: l.no, offset: l.offset, reason: l.reason ?? "not JSON" });
        continue;
      }
      const stored = storedLine(value);
      if ("problem" in stored) {
        note({ line: l.no, offset: l.offset, reason: stored.problem });
        continue;
      }
      const entry: TranscriptEntry | null = recordEntry(stored, sessionId, maxChars);
      if (entry !== null) selector.offer(entry);
    }
    return { path, ...selector.page(more), tornTail, unreadable, unreadableCount };
  } catch (cause) {
    if (cause instanceof GrokError || cause instanceof UsageError) throw cause;
    throw new GrokError("TRANSCRIPT_UNREADABLE", `cannot read ${path}`, {
      details: { path, errno: failureOr(cause, "EIO").code },
      cause,
    });
  } finally {
    closeSync(fd);
  }
}
