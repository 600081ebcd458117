/**
 * One page of a session's stored transcript, chosen the same way whether the lines come from
 * `x.ai/session/updates` (lib/acp/transcript-pages.ts) or from `updates.jsonl` itself
 * (native-transcript.ts), so the two agree line for line (docs/design/decisions.md §13.3). Pure.
 *
 * `since` is an eventId, exclusive. The stored order is not quite the event order: Grok's
 * persistence holds the last ACP update back to merge the next chunk into it, while xAI lines are
 * written at once, so a stored line can lag behind later ones (`session/persistence.rs`
 * `maybe_merge_notification`). So a line belongs after the cursor by its counter, not by its
 * place: every line whose counter is above the cursor's, and the lines without an eventId that
 * follow the last line at or below the cursor. A page is ordered by eventId and never ends where
 * a lagging line could still follow, so the last eventId of one page is a safe `since` for the
 * next.
 */
import { eventSeq, type TranscriptEntry } from "./transcript-entry.js";

/** How far a stored line may lag behind later ones and still be put in its place. */
export const TRANSCRIPT_LOOKAHEAD = 32;
export const TRANSCRIPT_PAGE_DEFAULT = 500;
export const TRANSCRIPT_PAGE_MAX = 10_000;

export interface TranscriptPage {
  readonly entries: readonly TranscriptEntry[];
  /** More entries after this page when it was read. */
  readonly hasMore: boolean;
}

/**
 * Entries ordered by eventId counter: those with one are sorted among their own places; those
 * without keep their place. Stable.
 */
export function orderByEventId(
  entries: readonly TranscriptEntry[],
  sessionId: string,
): TranscriptEntry[] {
  const out = [...entries];
  const slots: number[] = [];
  const keyed: { e: TranscriptEntry; seq: number; at: number }[] = [];
  entries.forEach((e, at) => {
    const seq = eventSeq(e.eventId, sessionId);
    if (seq === null) return;
    slots.push(at);
    keyed.push({ e, seq, at });
  });
  keyed.sort((a, b) => a.seq - b.seq || a.at - b.at);
  slots.forEach((slot, i) => {
    const k = keyed[i];
    if (k !== undefined) out[slot] = k.e;
  });
  return out;
}

/** Collects the candidates of one page from stored entries offered in stored order. */
export class PageSelector {
  readonly #sessionId: string;
  readonly #since: number | null;
  readonly #limit: number;
  #candidates: TranscriptEntry[] = [];
  /** Candidates without an eventId, offered since the last line at or below the cursor. */
  #provisional: TranscriptEntry[] = [];

  constructor(sessionId: string, since: number | null, limit: number) {
    this.#sessionId = sessionId;
    this.#since = since;
    this.#limit = limit;
  }

  /** Enough candidates for a page that cannot end where a lagging line still follows. */
  get full(): boolean {
    return this.#candidates.length + this.#provisional.length >= this.#limit + TRANSCRIPT_LOOKAHEAD;
  }

  offer(e: TranscriptEntry): void {
    const seq = eventSeq(e.eventId, this.#sessionId);
    if (this.#since === null) {
      this.#candidates.push(e);
      return;
    }
    if (seq === null) {
      this.#provisional.push(e);
      return;
    }
    if (seq <= this.#since) {
      // Lines without an eventId before this one are at or before the cursor's place.
      this.#provisional = [];
      return;
    }
    this.#candidates.push(...this.#provisional, e);
    this.#provisional = [];
  }

  /** The page; `moreStored`: stored lines exist beyond those offered. */
  page(moreStored: boolean): TranscriptPage {
    const all = orderByEventId([...this.#candidates, ...this.#provisional], this.#sessionId);
    if (all.length <= this.#limit) return { entries: all, hasMore: moreStored };
    let end = this.#limit;
    // A page followed by more ends at a line with an eventId: the next `since` is then exact.
    while (end > 1 && eventSeq(all[end - 1]?.eventId ?? null, this.#sessionId) === null) end--;
    return { entries: all.slice(0, end), hasMore: true };
  }
}

/** The counter of a `since` cursor, or why it is not one of `sessionId`'s eventIds. */
export function cursorSeq(
  since: string | undefined,
  sessionId: string,
): { ok: true; seq: number | null } | { ok: false; reason: string } {
  if (since === undefined) return { ok: true, seq: null };
  if (typeof since !== "string") return { ok: false, reason: "since must be an eventId string" };
  const seq = eventSeq(since, sessionId);
  return seq === null
    ? { ok: false, reason: `since must be an eventId of session ${sessionId} ({sessionId}-{n})` }
    : { ok: true, seq };
}

/** `limit` checked: an integer in 1..TRANSCRIPT_PAGE_MAX (default TRANSCRIPT_PAGE_DEFAULT). */
export function pageLimit(limit: number | undefined): number | null {
  if (limit === undefined) return TRANSCRIPT_PAGE_DEFAULT;
  return Number.isInteger(limit) && limit >= 1 && limit <= TRANSCRIPT_PAGE_MAX ? limit : null;
}
