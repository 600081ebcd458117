/**
 * `$GROK_HOME/active_sessions.json` as xai-grok-active-sessions writes it: read-modify-write
 * under an exclusive flock on `active_sessions.lock`, a pretty-printed array of
 * `{session_id, pid, cwd, opened_at}` written to `active_sessions.json.tmp` and renamed;
 * registration is idempotent by session id, a corrupt file reads as empty, and unregistering is
 * best effort (skipped when the lock is contended).
 */
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { lockExclusive, unlock } from "./flock.js";
import { isAlive } from "./pid.js";

const ActiveSession = v.object({
  session_id: v.string(),
  pid: v.number(),
  cwd: v.string(),
  opened_at: v.string(),
});
type ActiveSession = v.InferOutput<typeof ActiveSession>;

function readAll(path: string): ActiveSession[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  if (text === "") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const result = v.safeParse(v.array(ActiveSession), parsed);
  return result.success ? result.output : [];
}

function withLock(
  root: string,
  nonBlocking: boolean,
  mutate: (list: ActiveSession[]) => ActiveSession[],
): boolean {
  mkdirSync(root, { recursive: true });
  const fd = openSync(join(root, "active_sessions.lock"), constants.O_RDWR | constants.O_CREAT);
  try {
    if (!lockExclusive(fd, nonBlocking)) return false;
    const data = join(root, "active_sessions.json");
    const tmp = join(root, "active_sessions.json.tmp");
    const next = mutate(readAll(data));
    writeFileSync(tmp, JSON.stringify(next, null, 2));
    renameSync(tmp, data);
    unlock(fd);
    return true;
  } finally {
    closeSync(fd);
  }
}

export function registerActiveSession(root: string, entry: ActiveSession): void {
  withLock(root, false, (list) => [
    ...list.filter((s) => s.session_id !== entry.session_id),
    entry,
  ]);
}

export function tryUnregisterActiveSession(root: string, sessionId: string): boolean {
  try {
    return withLock(root, true, (list) => list.filter((s) => s.session_id !== sessionId));
  } catch {
    return false;
  }
}

/**
 * collect_crashed: every grok run (bin/main.rs main, before the runtime starts) drops entries
 * whose pid is dead. Like the real read-modify-write it rewrites the file even when nothing
 * changed, creating `[]` when there was none.
 */
export function collectCrashed(root: string): void {
  withLock(root, false, (list) => list.filter((s) => isAlive(s.pid)));
}

/** Fault GROK_SIM_CORRUPT_ACTIVE_SESSIONS: leave bytes that do not parse. */
export function corruptActiveSessions(root: string): void {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "active_sessions.json"), '[{"session_id": "truncated');
}
