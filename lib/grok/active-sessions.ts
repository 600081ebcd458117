/**
 * `$GROK_HOME/active_sessions.json` (docs/design/grok-leader-protocol.md §8; `xai-grok-active-sessions`): a
 * pretty-printed JSON array of `{session_id, pid, cwd, opened_at}`, written by the **TUI** process
 * with its own pid after `session/new` succeeds, and removed (best effort) on a clean exit.
 *
 * It is readiness evidence reported beside the kernel proof, never authority on its own (seed ADR
 * 0224): a file any process of the user can write proves nothing about who is listening on a socket.
 * A missing, corrupt or contradicting file is a failed check with its own name, never an exception.
 * Grok itself treats an empty file as `[]` and a corrupt one as `[]` (overwriting it on the next
 * write); we read an empty file the same way and report a corrupt one. "Corrupt" is what Grok's
 * reader refuses: `serde_json::from_slice` (`read_data_file`, `xai-grok-active-sessions/src/lib.rs`)
 * has no byte-order-mark handling, so a leading BOM is kept when decoding (`ignoreBOM`) and the
 * file is corrupt, not silently read.
 */
import * as v from "valibot";
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import { FileReadError, readRegularFile } from "../kernel/regular-file.js";
import { activeSessionsPath } from "./paths.js";

/** chrono `DateTime<Utc>` as serde writes it: RFC 3339 (`2026-08-19T19:55:30.123456789Z`). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export const ActiveSessionSchema = v.object({
  session_id: v.string(),
  pid: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffff_ffff)),
  cwd: v.string(),
  opened_at: v.pipe(v.string(), v.regex(RFC3339)),
});
export type ActiveSession = v.InferOutput<typeof ActiveSessionSchema>;

export const ActiveSessionsSchema = v.array(ActiveSessionSchema);

export type ActiveSessionsRead =
  | { readonly status: "ok"; readonly path: string; readonly entries: readonly ActiveSession[] }
  | { readonly status: "missing"; readonly path: string }
  | { readonly status: "corrupt"; readonly path: string; readonly problem: string }
  | { readonly status: "too_large"; readonly path: string; readonly size: number }
  | { readonly status: "unreadable"; readonly path: string; readonly errno: string };

/** Parse the file's bytes (pure). An empty file is `[]`, as in `read_data_file`. */
export function parseActiveSessions(path: string, bytes: Buffer): ActiveSessionsRead {
  if (bytes.length === 0) return { status: "ok", path, entries: [] };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch (err) {
    return { status: "corrupt", path, problem: err instanceof Error ? err.message : String(err) };
  }
  const parsed = v.safeParse(ActiveSessionsSchema, value);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    return {
      status: "corrupt",
      path,
      problem: `${v.getDotPath(issue) ?? "(root)"}: ${issue.message}`,
    };
  }
  return { status: "ok", path, entries: parsed.output };
}

/**
 * Read `$GROK_HOME/active_sessions.json`, bounded, without following a symlink. The reads are
 * synchronous: the file is small and local, and a hire polls it while Grok starts, where each
 * asynchronous open, read and close was a thread-pool round trip of our CPU (issue 19).
 */
export async function readActiveSessions(
  grokHome: string,
  options: { maxBytes?: number } = {},
): Promise<ActiveSessionsRead> {
  const path = activeSessionsPath(grokHome);
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  try {
    return parseActiveSessions(path, readRegularFile(path, maxBytes).bytes);
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    if (err.code === "FILE_NOT_REGULAR") return { status: "unreadable", path, errno: "ENOTREG" };
    if (err.code === "FILE_TOO_LARGE") {
      const size = err.context.size;
      return { status: "too_large", path, size: typeof size === "number" ? size : maxBytes + 1 };
    }
    const errno = err.context.errno;
    const code = typeof errno === "string" ? errno : "EIO";
    return code === "ENOENT"
      ? { status: "missing", path }
      : { status: "unreadable", path, errno: code };
  }
}

export interface ExpectedSession {
  /** Our session UUID (`--session-id`). Compared case-insensitively: grok stores `Uuid`'s lowercase form. */
  readonly sessionId: string;
  /** The TUI pid we launched and proved. */
  readonly tuiPid: number;
  /** The TUI's cwd as the kernel reports it. */
  readonly tuiCwd: string;
}

/**
 * Checks: `active_sessions.readable`, `active_sessions.entry` (exactly one entry for our session),
 * `active_sessions.pid` (= the TUI pid), `active_sessions.cwd` (= the TUI cwd). All four are always
 * returned, so a caller can look each one up by name.
 */
export function checkActiveSession(
  read: ActiveSessionsRead,
  expected: ExpectedSession,
): CheckResult[] {
  const readable =
    read.status === "ok"
      ? pass("active_sessions.readable", "ok", "ok")
      : fail("active_sessions.readable", "ok", read.status, readProblem(read));
  if (read.status !== "ok") {
    const why = `no entry to compare: ${readProblem(read)}`;
    return [
      readable,
      fail("active_sessions.entry", 1, null, why),
      fail("active_sessions.pid", expected.tuiPid, null, why),
      fail("active_sessions.cwd", expected.tuiCwd, null, why),
    ];
  }
  const id = expected.sessionId.toLowerCase();
  const mine = read.entries.filter((e) => e.session_id.toLowerCase() === id);
  const entry = mine.length === 1 ? mine[0] : undefined;
  const entryCheck =
    mine.length === 1
      ? pass("active_sessions.entry", 1, 1)
      : fail(
          "active_sessions.entry",
          1,
          mine.length,
          mine.length === 0
            ? `no entry for session ${expected.sessionId} in ${read.path}`
            : `${mine.length} entries for session ${expected.sessionId} (grok keeps one per session)`,
        );
  if (!entry) {
    const why = "no single entry for our session";
    return [
      readable,
      entryCheck,
      fail("active_sessions.pid", expected.tuiPid, null, why),
      fail("active_sessions.cwd", expected.tuiCwd, null, why),
    ];
  }
  return [
    readable,
    entryCheck,
    expectEqual(
      "active_sessions.pid",
      expected.tuiPid,
      entry.pid,
      `the entry names pid ${entry.pid}, not the TUI pid ${expected.tuiPid}`,
    ),
    expectEqual(
      "active_sessions.cwd",
      expected.tuiCwd,
      entry.cwd,
      `the entry names cwd ${entry.cwd}, not the TUI cwd ${expected.tuiCwd}`,
    ),
  ];
}

function readProblem(read: Exclude<ActiveSessionsRead, { status: "ok" }>): string {
  switch (read.status) {
    case "missing":
      return `${read.path} does not exist`;
    case "corrupt":
      return `${read.path} is corrupt: ${read.problem}`;
    case "too_large":
      return `${read.path} is too large (${read.size} bytes)`;
    case "unreadable":
      return `${read.path} cannot be read (${read.errno})`;
  }
}
