/**
 * Which session the TUI opens, decided before the terminal or the leader is touched, as the real
 * program does (xai-grok-pager `app/session_startup.rs`):
 *
 * - `session_startup_intent_from_flags`: `--session-id` alone = a new session with that id;
 *   `-r/--resume ID` (or the hidden `--load ID`) = a strict load of that session; a bare
 *   `--resume` or `-c/--continue` = the most recent session of the cwd. `--session-id` together
 *   with a resume flag is valid only with `--fork-session` (SessionIdRequiresFork), and
 *   `--fork-session` needs a resume flag (ForkRequiresResumeOrContinue).
 * - `materialize_startup_for_cwd` / `resolve_existing_session`: a resume id is looked up under the
 *   cwd's sessions directory, then under any cwd (then the load uses that original cwd, after
 *   "Session <id> found locally (originally in <cwd>)" on stderr); a non-UUID argument that names
 *   no session gets the title-miss hint. Remote restore is off for `--resume`
 *   (`MaterializeCtx::default_allow_remote_restore` = false), so a miss is "Session does not
 *   exist". `most_recent_session_id`: newest summary of the cwd, or "No session found for
 *   current directory. …".
 *
 * Every refusal here becomes `Error: <message>` on stderr and exit 1 (bin/main.rs prints
 * `Error: {e:#}` for what `app::run` returns). The simulator writes no session titles, so title
 * matching never succeeds, and `--fork-session` (an `x.ai/session/fork` the agent does not
 * simulate) is refused after its flags were validated.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TuiArgs } from "../cli.js";
import { grokHome } from "../env.js";
import { isFile } from "../fs.js";
import { field, parseJson, str } from "../json.js";
import { encodeCwdDirname } from "../paths.js";

/** uuid::Uuid::try_parse: hyphenated, simple, braced and urn forms. */
export const UUID_RE =
  /^(urn:uuid:)?\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}?$/;

export type StartupIntent =
  | { kind: "new_auto" }
  | { kind: "new_with_id"; sessionId: string }
  /** sessionId undefined = the most recent session of the cwd. */
  | { kind: "resume"; sessionId: string | undefined }
  | { kind: "fork_from"; sourceSessionId: string | undefined; newSessionId: string | undefined };

/** A refusal of the startup flags or target: printed as `Error: <message>`, exit 1. */
export class StartupError extends Error {}

/** StartupFlagError's Display texts (they carry their own "Error: " prefix). */
const SESSION_ID_REQUIRES_FORK =
  "Error: --session-id can only be used with --continue or --resume if --fork-session is also specified.";
const FORK_REQUIRES_RESUME = "Error: --fork-session requires --resume or --continue.";

/** session_startup_intent_from_flags (no I/O; the simulator has no `--worktree`). */
export function startupIntent(args: TuiArgs): StartupIntent {
  // session_to_resume: `resume.or(load)`, then only a non-empty value names a session.
  const named = args.resume ?? args.load;
  const resumeId = named === undefined || named === "" ? undefined : named;
  const mostRecent = args.resume === "" || args.continueLast;
  const resuming = resumeId !== undefined || mostRecent;
  if (args.forkSession && !resuming) throw new StartupError(FORK_REQUIRES_RESUME);
  if (args.sessionId !== undefined) {
    if (resuming && !args.forkSession) throw new StartupError(SESSION_ID_REQUIRES_FORK);
    if (args.forkSession) {
      return { kind: "fork_from", sourceSessionId: resumeId, newSessionId: args.sessionId };
    }
    return { kind: "new_with_id", sessionId: args.sessionId };
  }
  if (args.forkSession) {
    return { kind: "fork_from", sourceSessionId: resumeId, newSessionId: undefined };
  }
  if (resumeId !== undefined) return { kind: "resume", sessionId: resumeId };
  if (mostRecent) return { kind: "resume", sessionId: undefined };
  return { kind: "new_auto" };
}

/** What the TUI does once connected: create a session, or load an existing one. */
export type Startup =
  | { kind: "new"; sessionId: string | undefined }
  /** `cwd`: the session's own cwd (the process cwd, or where the session was created). */
  | { kind: "load"; sessionId: string; cwd: string }
  | { kind: "fork"; parentSessionId: string; newSessionId: string | undefined };

function sessionsRoot(): string {
  return join(grokHome(), "sessions");
}

/** A session id is one path component (relocation journal `validate_component`). */
function plainComponent(id: string): boolean {
  return id !== "" && id !== "." && id !== ".." && !id.includes("/") && !id.includes("\0");
}

/** session_exists_for_cwd: `sessions/<encoded cwd>/<id>/summary.json` is a file. */
export function sessionExistsForCwd(sessionId: string, cwd: string): boolean {
  if (!plainComponent(sessionId)) return false;
  return isFile(join(sessionsRoot(), encodeCwdDirname(cwd), sessionId, "summary.json"));
}

/** decode_cwd_from_dirname: the URL-decoded name when absolute, else the dir's `.cwd` file. */
function decodeCwdDirname(dir: string, name: string): string | undefined {
  try {
    const decoded = decodeURIComponent(name);
    if (decoded.startsWith("/")) return decoded;
  } catch {
    // not URL-encoded: the slug-hash form
  }
  try {
    return readFileSync(join(dir, ".cwd"), "utf8").trim();
  } catch {
    return undefined;
  }
}

/** resolve_local_session_any_cwd: the original cwd of a persisted session, wherever it is. */
function sessionCwdAnywhere(sessionId: string): string | undefined {
  if (!plainComponent(sessionId)) return undefined;
  let names: string[];
  try {
    names = readdirSync(sessionsRoot()).sort();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const dir = join(sessionsRoot(), name);
    if (isFile(join(dir, sessionId, "summary.json"))) return decodeCwdDirname(dir, name);
  }
  return undefined;
}

/** An RFC 3339 instant in nanoseconds (chrono compares instants, not strings); -1 if unreadable. */
function instant(text: string | undefined): bigint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(text ?? "");
  if (m === null) return -1n;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) return -1n;
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? "").padEnd(9, "0"));
}

/** list_summaries(Some(cwd)).first(): the newest by `last_active_at`, else `updated_at`. */
function mostRecentSessionId(cwd: string): string {
  const dir = join(sessionsRoot(), encodeCwdDirname(cwd));
  const found: { id: string; at: bigint }[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // no sessions for this cwd
  }
  for (const id of names) {
    const path = join(dir, id, "summary.json");
    if (!existsSync(path)) continue;
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    const json = parseJson(text);
    if (json === undefined) continue;
    const at = instant(str(field(json, "last_active_at")) ?? str(field(json, "updated_at")));
    found.push({ id, at });
  }
  found.sort((a, b) => (a.at === b.at ? b.id.localeCompare(a.id) : a.at < b.at ? 1 : -1));
  const first = found[0];
  if (first === undefined) {
    throw new StartupError(
      "No session found for current directory. Use 'grok' to start a new session.",
    );
  }
  return first.id;
}

function titleMissHint(arg: string): string {
  const q = JSON.stringify(arg);
  return `no session id or title matched ${q} for this directory; try \`grok sessions search ${q}\``;
}

/** resolve_existing_session: this cwd, then any cwd (with the stderr notice), else a miss. */
function resolveExisting(
  sessionId: string,
  cwd: string,
  notice: (line: string) => void,
): { sessionId: string; cwd: string } {
  if (sessionExistsForCwd(sessionId, cwd)) return { sessionId, cwd };
  const original = sessionCwdAnywhere(sessionId);
  if (original !== undefined) {
    notice(`Session ${sessionId} found locally (originally in ${original})`);
    return { sessionId, cwd: original };
  }
  if (!UUID_RE.test(sessionId)) {
    throw new StartupError(`Session does not exist: ${titleMissHint(sessionId)}`);
  }
  throw new StartupError("Session does not exist");
}

/** ensure_session_id_available: a UUID not persisted under `cwd`. */
export function ensureSessionIdAvailable(sessionId: string, cwd: string): void {
  if (!UUID_RE.test(sessionId)) {
    throw new StartupError(`Error: --session-id must be a valid UUID (got '${sessionId}').`);
  }
  if (sessionExistsForCwd(sessionId, cwd)) {
    throw new StartupError(`Error: Session ID ${sessionId} is already in use.`);
  }
}

/** materialize_startup_for_cwd: the intent against the sessions on disk. */
export function materializeStartup(
  intent: StartupIntent,
  cwd: string,
  notice: (line: string) => void,
): Startup {
  switch (intent.kind) {
    case "new_auto":
      return { kind: "new", sessionId: undefined };
    case "new_with_id":
      ensureSessionIdAvailable(intent.sessionId, cwd);
      return { kind: "new", sessionId: intent.sessionId };
    case "resume": {
      if (intent.sessionId === undefined) {
        return { kind: "load", sessionId: mostRecentSessionId(cwd), cwd };
      }
      const r = resolveExisting(intent.sessionId, cwd, notice);
      return { kind: "load", sessionId: r.sessionId, cwd: r.cwd };
    }
    case "fork_from": {
      if (intent.sourceSessionId === undefined) {
        if (intent.newSessionId !== undefined) ensureSessionIdAvailable(intent.newSessionId, cwd);
        return {
          kind: "fork",
          parentSessionId: mostRecentSessionId(cwd),
          newSessionId: intent.newSessionId,
        };
      }
      const r = resolveExisting(intent.sourceSessionId, cwd, notice);
      // effective_fork_new_cwd: the child is written where the parent lives.
      if (intent.newSessionId !== undefined) ensureSessionIdAvailable(intent.newSessionId, r.cwd);
      return { kind: "fork", parentSessionId: r.sessionId, newSessionId: intent.newSessionId };
    }
  }
}
