/**
 * An in-memory scripted leader for the power-loss test (T2): the same behaviours as the counting
 * leader (test/helpers/counting-leader.ts, both test/helpers/scripted-turns.ts), without a socket. Its `received` list is the ground
 * truth of what left the controller; it lives outside the simulated disk, so it survives the cut.
 */
import type { LeaderEvent, LeaderLink, PromptFrame } from "../helpers/crash-plan.js";
import { ScriptedTurns } from "../helpers/scripted-turns.js";

export class SimLeader {
  readonly received: string[] = [];
  readonly #turns = new ScriptedTurns();
  /** Called for every prompt and cancel received, before any reply (the crash-point log). */
  readonly #onEvent: (event: "sent" | "cancel", promptId: string) => void;

  constructor(onEvent: (event: "sent" | "cancel", promptId: string) => void = () => {}) {
    this.#onEvent = onEvent;
  }

  /**
   * The leader as a crash left it: these prompts were received (in order), those in `cancelled`
   * were cancelled, everything else ran to completion after our connection died.
   */
  static after(
    received: readonly string[],
    cancelled: ReadonlySet<string>,
    sessionId: string,
  ): SimLeader {
    const leader = new SimLeader();
    for (const id of received) {
      leader.received.push(id);
      leader.#turns.finish(id, sessionId, cancelled.has(id) ? "cancelled" : "end_turn");
    }
    return leader;
  }

  async connect(): Promise<LeaderLink> {
    const queue: LeaderEvent[] = this.#turns.replay();
    let closed = false;
    const link = {};
    const closeLink = (): void => {
      if (closed) return;
      closed = true;
      this.#turns.disconnected(link);
    };
    return {
      send: async (frame: PromptFrame) => {
        if (closed) throw Object.assign(new Error("link closed"), { code: "EPIPE" });
        this.received.push(frame.promptId);
        this.#onEvent("sent", frame.promptId);
        const { events, drop } = this.#turns.prompt(frame, link);
        queue.push(...events);
        if (drop) closeLink();
      },
      sendCancel: async (promptId: string) => {
        if (closed || !this.#turns.isHeld(promptId)) return;
        this.#onEvent("cancel", promptId);
        queue.push(...this.#turns.cancel(promptId));
      },
      next: async () => {
        const ev = queue.shift();
        if (ev !== undefined) return ev;
        closeLink();
        return { type: "closed" };
      },
      close: closeLink,
    };
  }
}
