/**
 * An in-memory scripted leader for the power-loss test (T2): the same behaviours as the counting
 * leader (test/helpers/counting-leader.ts), without a socket. Its `received` list is the ground
 * truth of what left the controller; it lives outside the simulated disk, so it survives the cut.
 */
import type { LeaderEvent, LeaderLink, PromptFrame } from "../helpers/crash-plan.js";

interface Finished {
  readonly promptId: string;
  readonly sessionId: string;
  readonly stopReason: string;
}

export class SimLeader {
  readonly received: string[] = [];
  readonly #finished = new Map<string, Finished>();
  readonly #held = new Map<string, string>();
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
      leader.#finished.set(id, {
        promptId: id,
        sessionId,
        stopReason: cancelled.has(id) ? "cancelled" : "end_turn",
      });
    }
    return leader;
  }

  async connect(): Promise<LeaderLink> {
    const queue: LeaderEvent[] = [];
    for (const f of this.#finished.values()) {
      queue.push({
        type: "result",
        promptId: f.promptId,
        sessionId: f.sessionId,
        channel: "turn-completed",
        stopReason: f.stopReason,
      });
    }
    queue.push({ type: "replay-done" });
    let closed = false;
    const mine = new Set<string>();
    const finish = (promptId: string, sessionId: string, stopReason: string): void => {
      this.#held.delete(promptId);
      this.#finished.set(promptId, { promptId, sessionId, stopReason });
    };
    const closeLink = (): void => {
      if (closed) return;
      closed = true;
      // A turn keeps running when its client disconnects (grok-leader-protocol.md §4).
      for (const id of mine) {
        const sid = this.#held.get(id);
        if (sid !== undefined) finish(id, sid, "end_turn");
      }
    };
    return {
      send: async (frame: PromptFrame) => {
        if (closed) throw Object.assign(new Error("link closed"), { code: "EPIPE" });
        this.received.push(frame.promptId);
        this.#onEvent("sent", frame.promptId);
        mine.add(frame.promptId);
        const { promptId, sessionId } = frame;
        if (frame.behave === "complete") {
          finish(promptId, sessionId, "end_turn");
          queue.push({ type: "consumed", promptId, sessionId, kind: "queue-entry" });
          queue.push({
            type: "result",
            promptId,
            sessionId,
            channel: "rpc-response",
            stopReason: "end_turn",
          });
          queue.push({
            type: "result",
            promptId,
            sessionId,
            channel: "prompt-complete",
            stopReason: "end_turn",
          });
        } else if (frame.behave === "hold-cancel") {
          this.#held.set(promptId, sessionId);
          queue.push({ type: "consumed", promptId, sessionId, kind: "running-prompt" });
        } else if (frame.behave === "drop") {
          finish(promptId, sessionId, "end_turn");
          closeLink();
        }
      },
      sendCancel: async (promptId: string) => {
        const sid = this.#held.get(promptId);
        if (closed || sid === undefined) return;
        this.#onEvent("cancel", promptId);
        finish(promptId, sid, "cancelled");
        queue.push({
          type: "result",
          promptId,
          sessionId: sid,
          channel: "rpc-response",
          stopReason: "cancelled",
        });
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
