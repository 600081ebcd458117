/**
 * Permission prompts and questions stay with the owner in the TUI (seed ADR 0224: "Permissions
 * and questions remain in the native TUI for the owner"). The leader broadcasts each interaction
 * reverse-request to every subscriber, replays it to late attachers and evicts it on
 * `interaction_resolved`; the first answer wins (grok-leader-protocol.md §12). We never answer;
 * we only track what is pending so the orchestrator can say "owner action pending".
 *
 * Pure: a map keyed by tool call id, advanced by tap events for our session.
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

/** Advance the pending map with one event; returns the new map and what changed (if anything). */
export function trackOwnerActions(
  pending: ReadonlyMap<string, OwnerAction>,
  event: GrokEvent,
  sessionId: string,
): { pending: ReadonlyMap<string, OwnerAction>; change: OwnerActionChange | null } {
  if (event.type === "interaction_request" || event.type === "pending_interaction") {
    if (event.sessionId !== sessionId) return { pending, change: null };
    const known = pending.get(event.toolCallId);
    const action: OwnerAction = {
      sessionId,
      toolCallId: event.toolCallId,
      kind: event.kind,
      method: event.type === "interaction_request" ? event.method : (known?.method ?? null),
    };
    const next = new Map(pending);
    next.set(event.toolCallId, action);
    return { pending: next, change: known === undefined ? { type: "pending", action } : null };
  }
  if (event.type === "interaction_resolved") {
    const known = pending.get(event.toolCallId);
    if (event.sessionId !== sessionId || known === undefined) return { pending, change: null };
    const next = new Map(pending);
    next.delete(event.toolCallId);
    return { pending: next, change: { type: "resolved", action: known } };
  }
  return { pending, change: null };
}
