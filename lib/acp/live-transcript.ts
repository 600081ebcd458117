/**
 * The live transcript of our session: which incoming notifications are updates of our session,
 * and the entry each one becomes (docs/design/decisions.md §13.2). Bounded: it keeps the highest
 * eventId counter seen and how many of our own replaying loads are in flight, nothing per update.
 *
 * Updates ride `session/update` (ACP) and `_x.ai/session_notification` (Grok's, persisted as
 * `_x.ai/session/update`; `extensions/notification.rs`). A replaying `session/load` sends the
 * stored lines again, to the loading client only (`leader/server.rs` `extract_target_client_id`),
 * marked `isReplay` when it replays from the start (`session/storage/replay.rs`
 * `prepare_replay_lines`): a replayed line at or below the highest counter seen is one we had,
 * and is dropped (so is an unmarked one while our own load is in flight), so a replay never
 * duplicates an entry or a reply's text; one above it is new to us and kept.
 */

import {
  eventSeq,
  makeEntry,
  TRANSCRIPT_ENTRY_MAX_CHARS,
  type TranscriptEntry,
  type UpdateFacts,
  updateFacts,
} from "../grok/transcript-entry.js";
import { normalizeExt } from "./grok-extensions.js";

const UPDATE_METHODS: ReadonlySet<string> = new Set([
  "session/update",
  "x.ai/session_notification",
  "x.ai/session/update",
]);

export interface LiveUpdate {
  readonly entry: TranscriptEntry;
  readonly facts: UpdateFacts;
}

export class LiveTranscript {
  readonly #sessionId: string;
  readonly #maxChars: number;
  readonly #now: () => number;
  #highWater: number | null = null;
  #replaying = 0;

  constructor(sessionId: string, options: { maxEntryChars?: number; now?: () => number } = {}) {
    this.#sessionId = sessionId;
    this.#maxChars = options.maxEntryChars ?? TRANSCRIPT_ENTRY_MAX_CHARS;
    this.#now = options.now ?? Date.now;
  }

  /** Our replaying `session/load` is in flight until the returned function is called. */
  replaying(): () => void {
    this.#replaying++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#replaying--;
    };
  }

  /**
   * The update `method`/`params` carry, when it is one of our session's and not a replayed
   * duplicate; null otherwise.
   */
  accept(method: string, params: unknown): LiveUpdate | null {
    const inner = normalizeExt(method, params);
    if (!UPDATE_METHODS.has(inner.method)) return null;
    const facts = updateFacts(inner.params);
    if (facts === null || facts.sessionId !== this.#sessionId) return null;
    const seq = eventSeq(facts.eventId, this.#sessionId);
    // A replayed line we have seen is dropped. One we have not is kept: while a resident session
    // replays, what it produces reaches the loader only in the delta replay (session_setup.rs).
    const again = facts.replay || this.#replaying > 0;
    if (again && (seq === null ? facts.replay : seq <= (this.#highWater ?? -1))) return null;
    if (seq !== null) this.#highWater = Math.max(this.#highWater ?? seq, seq);
    const entry = makeEntry({
      source: "live",
      method,
      params: inner.params,
      facts,
      receivedAt: new Date(this.#now()).toISOString(),
      storedAt: null,
      maxChars: this.#maxChars,
    });
    return { entry, facts };
  }
}
