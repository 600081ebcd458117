/**
 * Permission prompts and questions stay with the owner in the TUI (ADR 0224 (docs/design/adr-0224.md): "Permissions
 * and questions remain in the native TUI for the owner"). The leader broadcasts each interaction
 * reverse-request to every subscriber, replays it to late attachers and evicts it on
 * `interaction_resolved`; the first answer wins (docs/design/grok-leader-protocol.md §12). We never answer;
 * we only track what is pending so the orchestrator can say "owner action pending".
 *
 * One map keyed by tool call id, updated in place (a copy per event made 16,000 unresolved
 * requests cost 26 s of CPU). It keeps at most `cap` actions: past it the oldest is dropped and
 * counted (`dropped`), so a leader that never resolves cannot grow us without bound.
 */
import type { GrokEvent } from "./grok-extensions.js";

export interface OwnerAction {
  readonly sessionId: string;
  readonly toolCallId: string;
  /** permission | question | plan_approval (the `PendingKind` names). */
  readonly kind: string;
  /** The reverse-request method, when we saw the request itself (not just the notice). */
  readonly method: string | null;
}

export type OwnerActionChange =
  | { readonly type: "pending"; readonly action: OwnerAction }
  | { readonly type: "resolved"; readonly action: OwnerAction };

/** How many pending actions are kept by default; an owner answers them one at a time. */
export const OWNER_ACTIONS_CAP = 1024;

export class OwnerActions {
  readonly cap: number;
  readonly #pending = new Map<string, OwnerAction>();
  #dropped = 0;

  constructor(cap: number = OWNER_ACTIONS_CAP) {
    this.cap = Math.max(1, Math.floor(cap));
  }

  /** Pending actions, oldest first. */
  list(): OwnerAction[] {
    return [...this.#pending.values()];
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Actions dropped because `cap` were already pending (they may still wait in the TUI). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Advance with one event of our session; returns what changed, if anything. */
  apply(event: GrokEvent, sessionId: string): OwnerActionChange | null {
    if (event.type === "interaction_request" || event.type === "pending_interaction") {
      if (event.sessionId !== sessionId) return null;
      const known = this.#pending.get(event.toolCallId);
      const action: OwnerAction = {
        sessionId,
        toolCallId: event.toolCallId,
        kind: event.kind,
        method: event.type === "interaction_request" ? event.method : (known?.method ?? null),
      };
      if (known === undefined && this.#pending.size >= this.cap) {
        const oldest = this.#pending.keys().next();
        if (oldest.done !== true) this.#pending.delete(oldest.value);
        this.#dropped += 1;
      }
      this.#pending.set(event.toolCallId, action);
      return known === undefined ? { type: "pending", action } : null;
    }
    if (event.type === "interaction_resolved") {
      const known = this.#pending.get(event.toolCallId);
      if (event.sessionId !== sessionId || known === undefined) return null;
      this.#pending.delete(event.toolCallId);
      return { type: "resolved", action: known };
    }
    return null;
  }
}
