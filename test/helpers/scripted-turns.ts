/**
 * What the crash tests' scripted leader does with a prompt (docs/design/reliability-plan.md §6 T1, T2), apart
 * from how the prompt arrives: the counting leader (test/helpers/counting-leader.ts) receives it
 * on a unix socket from another process, the power-loss leader (test/delivery/sim-leader.ts) in
 * memory. Behaviours are crash-plan.ts's: complete (queue entry + results on two channels),
 * hold-cancel (running until cancelled; a disconnect lets it finish), drop (finished, then the
 * connection is closed before any evidence). Every finished turn is replayed to a new client like
 * the `turn_completed` replay of docs/design/grok-leader-protocol.md §4.
 */
import type { LeaderEvent, PromptFrame } from "./crash-plan.js";

export class ScriptedTurns {
  readonly #finished = new Map<string, { sessionId: string; stopReason: string }>();
  readonly #held = new Map<string, { sessionId: string; client: object }>();

  finish(promptId: string, sessionId: string, stopReason: string): void {
    this.#held.delete(promptId);
    this.#finished.set(promptId, { sessionId, stopReason });
  }

  /** What a new client is told first: every finished turn, then `replay-done`. */
  replay(): LeaderEvent[] {
    const events: LeaderEvent[] = [];
    for (const [promptId, f] of this.#finished) {
      events.push({
        type: "result",
        promptId,
        sessionId: f.sessionId,
        channel: "turn-completed",
        stopReason: f.stopReason,
      });
    }
    events.push({ type: "replay-done" });
    return events;
  }

  /** A prompt from `client`: the events it answers with, and whether it then drops the client. */
  prompt(
    frame: Pick<PromptFrame, "promptId" | "sessionId" | "behave">,
    client: object,
  ): { readonly events: LeaderEvent[]; readonly drop: boolean } {
    const { promptId, sessionId } = frame;
    if (frame.behave === "complete") {
      this.finish(promptId, sessionId, "end_turn");
      return {
        events: [
          { type: "consumed", promptId, sessionId, kind: "queue-entry" },
          { type: "result", promptId, sessionId, channel: "rpc-response", stopReason: "end_turn" },
          {
            type: "result",
            promptId,
            sessionId,
            channel: "prompt-complete",
            stopReason: "end_turn",
          },
        ],
        drop: false,
      };
    }
    if (frame.behave === "hold-cancel") {
      this.#held.set(promptId, { sessionId, client });
      return {
        events: [{ type: "consumed", promptId, sessionId, kind: "running-prompt" }],
        drop: false,
      };
    }
    // "drop" ("fail-send" never reaches a leader: our sender fails before writing).
    this.finish(promptId, sessionId, "end_turn");
    return { events: [], drop: true };
  }

  isHeld(promptId: string): boolean {
    return this.#held.has(promptId);
  }

  /** Cancel a held turn: its `cancelled` result; none when the turn is not held. */
  cancel(promptId: string): LeaderEvent[] {
    const h = this.#held.get(promptId);
    if (h === undefined) return [];
    this.finish(promptId, h.sessionId, "cancelled");
    return [
      {
        type: "result",
        promptId,
        sessionId: h.sessionId,
        channel: "rpc-response",
        stopReason: "cancelled",
      },
    ];
  }

  /** `client` went away: its held turns keep running to the end (docs/design/grok-leader-protocol.md §4). */
  disconnected(client: object): void {
    for (const [id, h] of this.#held)
      if (h.client === client) this.finish(id, h.sessionId, "end_turn");
  }
}
