// The lifecycle event ring (src/api/event_hub.rs): sequence numbers from 1, the newest 512
// events of all kinds together; a subscriber reads everything after its last sequence.
import type { WireObject } from "./wire.js";

export type HubEvent = {
  /** snake_case EventKind, e.g. "pane_exited". */
  readonly kind: string;
  /** The EventData fields in declaration order, without `type` (added when written). */
  readonly data: WireObject;
};

export const MAX_EVENTS = 512;

export class EventHub {
  private nextSequence = 0;
  private readonly events: Array<{ sequence: number; event: HubEvent }> = [];

  push(event: HubEvent): void {
    this.nextSequence += 1;
    this.events.push({ sequence: this.nextSequence, event });
    const overflow = this.events.length - MAX_EVENTS;
    if (overflow > 0) this.events.splice(0, overflow);
  }

  eventsAfter(sequence: number): Array<{ sequence: number; event: HubEvent }> {
    return this.events.filter((e) => e.sequence > sequence);
  }

  currentSequence(): number {
    return this.nextSequence;
  }

  /** The oldest retained sequence, or null when nothing was ever pushed. */
  oldestSequence(): number | null {
    return this.events[0]?.sequence ?? null;
  }

  /** Retained events (at most MAX_EVENTS). */
  retained(): number {
    return this.events.length;
  }

  /** How many retained events of each kind (test control only). */
  retainedKinds(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const { event } of this.events) out[event.kind] = (out[event.kind] ?? 0) + 1;
    return out;
  }

  /**
   * EventHistoryError::Lost of the proposed fix (herdrdev/herdr PR #4225,
   * events_after_checked): the event right after `sequence` is no longer retained.
   */
  lostAfter(sequence: number): boolean {
    const first = this.oldestSequence();
    return first !== null && sequence < first - 1;
  }
}

/** EventEnvelope `{event, data:{type, ...}}`, internally tagged data with `type` first. */
export function envelope(event: HubEvent): WireObject {
  return { event: event.kind, data: { type: event.kind, ...event.data } };
}
