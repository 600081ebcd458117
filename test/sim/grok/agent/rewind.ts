/**
 * Prompt boundaries and rewind dead branches over raw `updates.jsonl` lines, as
 * extensions/session_updates.rs and session/storage/mod.rs read them:
 * - compute_prompt_starts: the index of the first line of every run of `user_message_chunk`
 *   lines, found by the substring `"sessionUpdate":"user_message_chunk"` (wire_tags.rs
 *   USER_MESSAGE_CHUNK_PREFIX), not by parsing.
 * - filter_rewind_lines: when any line contains `rewind_marker`, replay the timeline: a persisted
 *   xAI `rewind_marker{target_prompt_index}` truncates the survivors back to that prompt's first
 *   line and is dropped itself; user runs are counted by UserRunTurnTracker (every run counts
 *   until the first `_meta.promptIndex` appears, then only marked runs; `_meta.hostTurn` chunks
 *   never count). The simulator never writes rewind markers itself; this reads ones put there.
 */
import { field, isRecord, parseJson, str, u64 } from "../json.js";

const USER_MESSAGE_CHUNK_PREFIX = '"sessionUpdate":"user_message_chunk"';
const REWIND_MARKER = "rewind_marker";
const XAI_SESSION_UPDATE_METHOD = "_x.ai/session/update";

export function isUserMessageChunkLine(line: string): boolean {
  return line.includes(USER_MESSAGE_CHUNK_PREFIX);
}

export function hasRewindMarker(line: string): boolean {
  return line.includes(REWIND_MARKER);
}

export function computePromptStarts(lines: readonly string[]): number[] {
  const starts: number[] = [];
  let inUser = false;
  for (const [i, line] of lines.entries()) {
    const isUser = isUserMessageChunkLine(line);
    if (isUser && !inUser) starts.push(i);
    inUser = isUser;
  }
  return starts;
}

type RewindStep =
  | { kind: "rewind"; target: number }
  | { kind: "user"; promptIndex: number | undefined }
  | { kind: "other" };

/** rewind_step_for_line: peek at the envelope's method and the update's tag and `_meta`. */
function rewindStep(line: string): RewindStep {
  const env = parseJson(line);
  const isEnvelope = isRecord(env);
  const method = isEnvelope ? env.method : undefined;
  const params = isEnvelope && Object.hasOwn(env, "params") ? env.params : env;
  const isXai = method === XAI_SESSION_UPDATE_METHOD;
  const update = field(params, "update");
  const tag = str(field(update, "sessionUpdate"));
  if (tag === undefined) return { kind: "other" };
  const target = u64(field(update, "target_prompt_index"));
  if (isXai && tag === REWIND_MARKER && target !== undefined) return { kind: "rewind", target };
  const meta = field(update, "_meta");
  const hostTurn = field(meta, "hostTurn") === true;
  if (!isXai && !hostTurn && tag === "user_message_chunk") {
    return { kind: "user", promptIndex: u64(field(meta, "promptIndex")) };
  }
  return { kind: "other" };
}

/** UserRunTurnTracker (session/storage/mod.rs). */
class UserRunTracker {
  private seenMarker = false;
  private inUser = false;
  private currentRun: number | undefined;

  /** True when this chunk opens a counted turn. */
  onUserChunk(promptIndex: number | undefined): boolean {
    if (promptIndex !== undefined) this.seenMarker = true;
    const counts = this.seenMarker ? promptIndex !== undefined : true;
    let newRun: boolean;
    if (!this.inUser) newRun = true;
    else if (this.seenMarker || promptIndex !== undefined) newRun = promptIndex !== this.currentRun;
    else newRun = false;
    this.inUser = true;
    if (!newRun) return false;
    this.currentRun = promptIndex;
    return counts;
  }

  onNonUser(): void {
    this.inUser = false;
    this.currentRun = undefined;
  }
}

export function filterRewindLines(lines: readonly string[]): string[] {
  if (!lines.some(hasRewindMarker)) return [...lines];
  const result: string[] = [];
  const promptStarts: number[] = [];
  const tracker = new UserRunTracker();
  for (const line of lines) {
    const step = rewindStep(line);
    if (step.kind === "rewind") {
      // An out-of-range target keeps every survivor.
      result.length = promptStarts[step.target] ?? result.length;
      promptStarts.length = Math.min(promptStarts.length, step.target);
      tracker.onNonUser();
      continue;
    }
    if (step.kind === "user") {
      if (tracker.onUserChunk(step.promptIndex)) promptStarts.push(result.length);
    } else {
      tracker.onNonUser();
    }
    result.push(line);
  }
  return result;
}
