/**
 * The in-memory image of a journal (pure): receipts by prompt id, the highest admission epoch, and
 * the encoded lines of every receipt that is still open, kept in journal order so that compaction
 * can rewrite them byte for byte. Terminal receipts drop their lines: compaction leaves them out.
 * Live appends and recovery replay go through the same `applyRecord` (receipt.ts).
 */
import { Buffer } from "node:buffer";
import { applyRecord, isTerminal, type Receipt } from "./receipt.js";
import type { JournalRecord } from "./record.js";

/** A journaled record that is not a legal move (a sequence no single controller writes). */
export interface RejectedRecord {
  readonly type: JournalRecord["t"];
  readonly promptId: string | null;
  readonly reason: string;
}

interface KeptLine {
  readonly seq: number;
  readonly line: Buffer;
}

export class Ledger {
  readonly #receipts = new Map<string, Receipt>();
  readonly #openLines = new Map<string, KeptLine[]>();
  #maxEpoch = 0;
  #epochLine: Buffer | null = null;
  #seq = 0;

  /** The highest epoch recorded so far (0 when no controller was ever admitted). */
  get maxEpoch(): number {
    return this.#maxEpoch;
  }

  get size(): number {
    return this.#receipts.size;
  }

  get(promptId: string): Receipt | undefined {
    return this.#receipts.get(promptId);
  }

  receipts(): IterableIterator<Receipt> {
    return this.#receipts.values();
  }

  /** Check a record against the current state without changing anything. */
  check(record: JournalRecord): RejectedRecord | null {
    if (record.t === "epoch") {
      return record.epoch > this.#maxEpoch
        ? null
        : { type: "epoch", promptId: null, reason: `epoch ${record.epoch} <= ${this.#maxEpoch}` };
    }
    const next = applyRecord(this.#receipts.get(record.id), record);
    return next.ok ? null : { type: record.t, promptId: record.id, reason: next.reason };
  }

  /** Apply one record and keep its encoded line; a rejected record changes nothing. */
  apply(record: JournalRecord, line: Uint8Array): RejectedRecord | null {
    const rejected = this.check(record);
    if (rejected !== null) return rejected;
    const seq = this.#seq++;
    if (record.t === "epoch") {
      this.#maxEpoch = record.epoch;
      this.#epochLine = Buffer.from(line);
      return null;
    }
    const next = applyRecord(this.#receipts.get(record.id), record);
    if (!next.ok) return { type: record.t, promptId: record.id, reason: next.reason };
    this.#receipts.set(record.id, next.receipt);
    if (isTerminal(next.receipt.state)) {
      this.#openLines.delete(record.id);
    } else {
      const lines = this.#openLines.get(record.id) ?? [];
      lines.push({ seq, line: Buffer.from(line) });
      this.#openLines.set(record.id, lines);
    }
    return null;
  }

  /**
   * The bytes of a compacted journal: the highest epoch record, then every record of every open
   * receipt (fenced, dispatched, consumed, cancel-submitted, uncertain) in original order.
   */
  compacted(): { bytes: Buffer; kept: number; dropped: number } {
    const all: KeptLine[] = [];
    for (const lines of this.#openLines.values()) all.push(...lines);
    all.sort((a, b) => a.seq - b.seq);
    const parts = all.map((k) => k.line);
    if (this.#epochLine !== null) parts.unshift(this.#epochLine);
    return {
      bytes: Buffer.concat(parts),
      kept: this.#openLines.size,
      dropped: this.#receipts.size - this.#openLines.size,
    };
  }

  /** Forget terminal receipts, after their lines were left out of a compacted journal. */
  dropTerminal(): void {
    for (const [id, r] of this.#receipts) if (isTerminal(r.state)) this.#receipts.delete(id);
  }
}
