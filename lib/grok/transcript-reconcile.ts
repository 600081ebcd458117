/**
 * `TranscriptReconciler`: one transcript from live entries and stored records without a duplicated
 * or a missing character (docs/design/decisions.md §13.4). Pure, and bounded: it keeps the highest
 * eventId counter written and the live chunks of the current chunk run only.
 *
 * The live stream has one entry per update; the store merges consecutive message (or thought)
 * chunks of one prompt into one line that carries the *last* chunk's eventId and all their text
 * (`session/persistence.rs` `maybe_merge_notification`), unless something drained the merge buffer
 * in between (turn end, an attach, a chunk with its own `_meta`). So a stored chunk line stands
 * for the live chunks it covers: same prompt, same kind, consecutive, ending at its eventId. When
 * some of them were already written, only the rest of its text is new; when all were, it is
 * nothing new.
 *
 * Feed entries in the order they happened: what you had live, then a catch-up page
 * (`seat.transcript({ since })` or `readNativeTranscript`), then the live entries that arrived
 * meanwhile. Entries without an eventId cannot be matched and are always written.
 */
import { isJsonValue } from "../json.js";
import {
  entryChunkText,
  eventSeq,
  MERGED_CHUNK_KINDS,
  type TranscriptEntry,
  updateFacts,
} from "./transcript-entry.js";

interface Run {
  readonly kind: string;
  readonly promptId: string | null;
  /** Text lengths of the live chunks written since the last stored line of this run. */
  chunks: (number | null)[];
}

function withText(e: TranscriptEntry, rest: string, skipped: number): TranscriptEntry {
  const facts = e.params === null ? null : updateFacts(e.params);
  if (facts === null || typeof e.params !== "object" || e.params === null) return e;
  const content = facts.update.content;
  const params: unknown = {
    ...e.params,
    update: {
      ...facts.update,
      content: { ...(typeof content === "object" && content !== null ? content : {}), text: rest },
    },
  };
  return isJsonValue(params) ? { ...e, params, skippedChars: skipped } : e;
}

export class TranscriptReconciler {
  readonly #sessionId: string;
  #highWater: number | null = null;
  #run: Run | null = null;

  constructor(sessionId: string) {
    this.#sessionId = sessionId;
  }

  /** The highest eventId counter written so far (null before any). */
  get highWater(): number | null {
    return this.#highWater;
  }

  /**
   * The entry to write for `e`: `e` itself, a stored chunk line cut to the text not written yet
   * (`skippedChars` says how much was left out), or null when everything in it was written.
   */
  push(e: TranscriptEntry): TranscriptEntry | null {
    const seq = eventSeq(e.eventId, this.#sessionId);
    if (seq === null) return e;
    const out = e.source === "record" ? this.#record(e, seq) : this.#live(e, seq);
    if (out !== null) this.#highWater = Math.max(this.#highWater ?? seq, seq);
    return out;
  }

  #live(e: TranscriptEntry, seq: number): TranscriptEntry | null {
    if (this.#highWater !== null && seq <= this.#highWater) return null;
    if (MERGED_CHUNK_KINDS.has(e.kind)) {
      const chars = entryChunkText(e)?.length ?? null;
      const run = this.#run;
      if (run !== null && run.kind === e.kind && run.promptId === e.promptId) {
        run.chunks.push(chars);
      } else {
        this.#run = { kind: e.kind, promptId: e.promptId, chunks: [chars] };
      }
    } else if (e.method === "session/update") {
      // Any other ACP update ends a chunk run (xAI lines are written beside it, not into it).
      this.#run = null;
    }
    return e;
  }

  #record(e: TranscriptEntry, seq: number): TranscriptEntry | null {
    // Every update up to the high water was written (a live stream has no gaps): a stored line
    // at or below it, merged or not, holds nothing new.
    if (this.#highWater !== null && seq <= this.#highWater) return null;
    const run = this.#run;
    if (MERGED_CHUNK_KINDS.has(e.kind)) {
      const text = entryChunkText(e);
      if (run !== null && run.kind === e.kind && run.promptId === e.promptId) {
        // Its live chunks written so far are the run's chunks not yet covered by a stored line.
        const covered = run.chunks;
        run.chunks = [];
        const had = covered.reduce<number>((sum, c) => sum + (c ?? 0), 0);
        // A truncated live chunk has no known length: the stored line is written whole.
        if (text === null || covered.includes(null) || had === 0) return e;
        if (had >= text.length) {
          this.#highWater = seq;
          return null;
        }
        return withText(e, text.slice(had), had);
      }
      this.#run = { kind: e.kind, promptId: e.promptId, chunks: [] };
    } else if (e.method === "session/update") {
      this.#run = null;
    }
    return e;
  }
}
