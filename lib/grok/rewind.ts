/**
 * Rewind dead branches of a stored transcript: the lines `/rewind` took back, which Grok itself
 * leaves out of `x.ai/session/updates` and of replays (`session/storage/mod.rs`
 * `filter_rewind_lines`, `filter_rewind_by`, `UserRunTurnTracker`, `rewind_step_for_line`). A
 * persisted xAI `rewind_marker{target_prompt_index}` truncates the surviving lines back to that
 * prompt's first line and is dropped itself. Pure; the file reader applies it only when a line
 * contains `rewind_marker`, as Grok does.
 */
import * as v from "valibot";

export const REWIND_MARKER = "rewind_marker";
const XAI_STORED_METHOD = "_x.ai/session/update";

export type RewindStep =
  | { readonly kind: "rewind"; readonly target: number }
  | { readonly kind: "user"; readonly promptIndex: number | null }
  | { readonly kind: "other" };

const Index = v.pipe(v.number(), v.integer(), v.minValue(0));
const LineSchema = v.looseObject({
  method: v.optional(v.unknown()),
  params: v.optional(v.unknown()),
});
const ParamsSchema = v.looseObject({
  update: v.looseObject({
    sessionUpdate: v.string(),
    target_prompt_index: v.optional(v.unknown()),
    _meta: v.optional(
      v.nullable(
        v.looseObject({
          promptIndex: v.optional(v.nullable(v.unknown())),
          hostTurn: v.optional(v.nullable(v.unknown())),
        }),
      ),
    ),
  }),
});

function index(x: unknown): number | null {
  const r = v.safeParse(Index, x);
  return r.success ? r.output : null;
}

/** `rewind_step_for_line` over a parsed line (an envelope or a legacy bare-params line). */
export function rewindStepOf(line: unknown): RewindStep {
  const env = v.safeParse(LineSchema, line);
  const isEnvelope = env.success && typeof env.output.method === "string";
  const params = isEnvelope ? env.output.params : line;
  const isXai = isEnvelope && env.output.method === XAI_STORED_METHOD;
  const p = v.safeParse(ParamsSchema, params);
  if (!p.success) return { kind: "other" };
  const u = p.output.update;
  const target = index(u.target_prompt_index);
  if (isXai && u.sessionUpdate === REWIND_MARKER && target !== null) {
    return { kind: "rewind", target };
  }
  const hostTurn = u._meta?.hostTurn === true;
  if (!isXai && !hostTurn && u.sessionUpdate === "user_message_chunk") {
    return { kind: "user", promptIndex: index(u._meta?.promptIndex) };
  }
  return { kind: "other" };
}

/** `UserRunTurnTracker`: which user chunks open a counted turn. */
class UserRunTracker {
  #seenMarker = false;
  #inUser = false;
  #currentRun: number | null = null;

  onUserChunk(promptIndex: number | null): boolean {
    if (promptIndex !== null) this.#seenMarker = true;
    const counts = this.#seenMarker ? promptIndex !== null : true;
    const newRun = !this.#inUser
      ? true
      : this.#seenMarker || promptIndex !== null
        ? promptIndex !== this.#currentRun
        : false;
    this.#inUser = true;
    if (!newRun) return false;
    this.#currentRun = promptIndex;
    return counts;
  }

  onNonUser(): void {
    this.#inUser = false;
    this.#currentRun = null;
  }
}

/** The indexes of the lines that survive every rewind, given each line's step in order. */
export function survivingLines(steps: Iterable<RewindStep>): number[] {
  const result: number[] = [];
  const promptStarts: number[] = [];
  const tracker = new UserRunTracker();
  let i = 0;
  for (const step of steps) {
    const at = i++;
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
    result.push(at);
  }
  return result;
}
