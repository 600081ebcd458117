/**
 * The in-memory image of a journal (pure): receipts by prompt id, the ids of compacted receipts,
 * the highest admission epoch, and the encoded lines of every receipt that is still open, kept in
 * journal order so that compaction rewrites them byte for byte. Terminal receipts drop their lines;
 * compaction replaces them with one `compacted` line each. Live appends and recovery replay go
 * through the same `applyRecord` (receipt.ts).
 */
import { Buffer } from "node:buffer";
import { encodeRecord } from "./codec.js";
import type { CompactedRecord, JournalRecord } from "./journal-record.js";
import { applyRecord, isTerminal, type Receipt } from "./receipt.js";

/** A journaled record that is not a legal move (a sequence no single controller writes). */
export interface RejectedRecord {
  readonly type: JournalRecord["t"];
  readonly promptId: string | null;
  readonly reason: string;
}

interface KeptLine {
  readonly seq: number;
  readonly line: Uint8Array;
}

export class Ledger {
  readonly #receipts = new Map<string, Receipt>();
  readonly #openLines = new Map<string, KeptLine[]>();
  readonly #compacted = new Map<string, Uint8Array>();
  #maxEpoch = 0;
  #epochLine: Uint8Array | null = null;
  #seq = 0;

  /** The highest epoch recorded so far (0 when no controller was ever admitted). */
  get maxEpoch(): number {
    return this.#maxEpoch;
  }

  get(promptId: string): Receipt | undefined {
    return this.#receipts.get(promptId);
  }

  /** True when the prompt id was compacted away (finished; only its id is kept). */
  isCompacted(promptId: string): boolean {
    return this.#compacted.has(promptId);
  }

  /** True for any prompt id this journal has ever fenced (live receipt or compacted). */
  knows(promptId: string): boolean {
    return this.#receipts.has(promptId) || this.#compacted.has(promptId);
  }

  receipts(): IterableIterator<Receipt> {
    return this.#receipts.values();
  }

  get compactedCount(): number {
    return this.#compacted.size;
  }

  /** Check a record against the current state without changing anything. */
  check(record: JournalRecord): RejectedRecord | null {
    if (record.t === "epoch") {
      return record.epoch > this.#maxEpoch
        ? null
        : { type: "epoch", promptId: null, reason: `epoch ${record.epoch} <= ${this.#maxEpoch}` };
    }
    if (this.#compacted.has(record.id)) {
      return { type: record.t, promptId: record.id, reason: "this prompt id was compacted" };
    }
    if (record.t === "compacted") {
      return this.#receipts.has(record.id)
        ? { type: record.t, promptId: record.id, reason: "a live receipt has this prompt id" }
        : null;
    }
    const next = applyRecord(this.#receipts.get(record.id), record);
    return next.ok ? null : { type: record.t, promptId: record.id, reason: next.reason };
  }

  /**
   * Apply one record and keep its encoded line; a rejected record changes nothing. The line is
   * kept by reference: recovery passes views into the file it read and calls `ownLines()` after.
   */
  apply(record: JournalRecord, line: Uint8Array): RejectedRecord | null {
    if (record.t === "epoch" || record.t === "compacted" || this.#compacted.has(record.id)) {
      const rejected = this.check(record);
      if (rejected !== null) return rejected;
      this.#seq++;
      if (record.t === "epoch") {
        this.#maxEpoch = record.epoch;
        this.#epochLine = line;
      } else if (record.t === "compacted") {
        this.#compacted.set(record.id, line);
      }
      return null;
    }
    const next = applyRecord(this.#receipts.get(record.id), record);
    if (!next.ok) return { type: record.t, promptId: record.id, reason: next.reason };
    const seq = this.#seq++;
    this.#receipts.set(record.id, next.receipt);
    if (isTerminal(next.receipt.state)) {
      this.#openLines.delete(record.id);
    } else {
      const lines = this.#openLines.get(record.id);
      if (lines === undefined) this.#openLines.set(record.id, [{ seq, line }]);
      else lines.push({ seq, line });
    }
    return null;
  }

  /** Copy every kept line out of the buffer it points into (so a 20 MB read can be freed). */
  ownLines(): void {
    if (this.#epochLine !== null) this.#epochLine = Buffer.from(this.#epochLine);
    for (const [id, line] of this.#compacted) this.#compacted.set(id, Buffer.from(line));
    for (const [id, lines] of this.#openLines) {
      this.#openLines.set(
        id,
        lines.map((k) => ({ seq: k.seq, line: Buffer.from(k.line) })),
      );
    }
  }

  /**
   * The bytes of a compacted journal: the highest epoch record, one `compacted` line per finished
   * (completed, cancelled or rejected) receipt (old ones first), then every record of every open
   * receipt (fenced, dispatched, consumed, cancel-submitted, uncertain) in original order.
   */
  compacted(at: number): {
    bytes: Buffer;
    kept: number;
    dropped: number;
    tombstones: CompactedRecord[];
  } {
    const tombstones: CompactedRecord[] = [];
    for (const r of this.#receipts.values()) {
      if (r.state === "completed" || r.state === "cancelled" || r.state === "rejected") {
        tombstones.push({
          v: 1,
          t: "compacted",
          id: r.promptId,
          state: r.state,
          at: r.result?.at ?? r.rejection?.at ?? at,
        });
      }
    }
    const open: KeptLine[] = [];
    for (const lines of this.#openLines.values()) open.push(...lines);
    open.sort((a, b) => a.seq - b.seq);
    const parts: Uint8Array[] = [];
    if (this.#epochLine !== null) parts.push(this.#epochLine);
    parts.push(...this.#compacted.values());
    parts.push(...tombstones.map((t) => encodeRecord(t)));
    parts.push(...open.map((k) => k.line));
    return {
      bytes: Buffer.concat(parts),
      kept: this.#openLines.size,
      dropped: tombstones.length,
      tombstones,
    };
  }

  /** After a compacted journal replaced the old one: finished receipts become tombstones. */
  dropTerminal(tombstones: readonly CompactedRecord[]): void {
    for (const t of tombstones) {
      this.#receipts.delete(t.id);
      this.#compacted.set(t.id, encodeRecord(t));
    }
  }
}
