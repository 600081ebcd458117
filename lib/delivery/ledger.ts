/**
 * The in-memory image of a journal (pure): receipts by prompt id, the ids of compacted receipts
 * (with how each ended), the highest admission epoch, and the encoded lines of every receipt that
 * is still open, kept in journal order so that compaction rewrites them byte for byte. Terminal
 * receipts drop their lines; compaction replaces them with their ids packed into `settled`
 * records. Live appends and recovery replay go through the same `applyRecord` (receipt.ts).
 */
import { Buffer } from "node:buffer";
import { encodeRecord, MAX_LINE_BYTES } from "./codec.js";
import {
  type JournalRecord,
  type SettledRecord,
  type SettledState,
  SNAPSHOT_VERSION,
} from "./journal-record.js";
import { applyRecord, isTerminal, type Receipt } from "./receipt.js";

/** A finished receipt compaction reduced to its id. */
export interface SettledId {
  readonly id: string;
  readonly state: SettledState;
}

/** Pack ids into `settled` records of at most MAX_LINE_BYTES each, one state per record. */
export function settledRecords(ids: Iterable<SettledId>, at: number): SettledRecord[] {
  const byState = new Map<SettledState, string[]>();
  for (const s of ids) {
    const list = byState.get(s.state);
    if (list === undefined) byState.set(s.state, [s.id]);
    else list.push(s.id);
  }
  const out: SettledRecord[] = [];
  for (const [state, list] of byState) {
    // The line without ids, plus the 9-byte CRC prefix and the newline; each id adds its length
    // and three bytes (quotes, comma). IDs are ASCII without escapes (ID_PATTERN).
    const empty: SettledRecord = { v: SNAPSHOT_VERSION, t: "settled", state, at, ids: [] };
    const base = JSON.stringify(empty).length + 10;
    let batch: string[] = [];
    let bytes = base;
    for (const id of list) {
      if (batch.length > 0 && bytes + id.length + 3 > MAX_LINE_BYTES) {
        out.push({ ...empty, ids: batch });
        batch = [];
        bytes = base;
      }
      batch.push(id);
      bytes += id.length + 3;
    }
    if (batch.length > 0) out.push({ ...empty, ids: batch });
  }
  return out;
}

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
  readonly #compacted = new Map<string, SettledState>();
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
    // Never rejected: refusing a snapshot would forget used prompt ids. An id that also has a
    // live receipt (no writer of ours does that) stays known through the receipt.
    if (record.t === "settled") return null;
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
    if (record.t === "settled") {
      this.#seq++;
      for (const id of record.ids) {
        if (!this.#receipts.has(id)) this.#compacted.set(id, record.state);
      }
      return null;
    }
    if (record.t === "epoch" || record.t === "compacted" || this.#compacted.has(record.id)) {
      const rejected = this.check(record);
      if (rejected !== null) return rejected;
      this.#seq++;
      if (record.t === "epoch") {
        this.#maxEpoch = record.epoch;
        this.#epochLine = line;
      } else if (record.t === "compacted") {
        this.#compacted.set(record.id, record.state);
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
    for (const [id, lines] of this.#openLines) {
      this.#openLines.set(
        id,
        lines.map((k) => ({ seq: k.seq, line: Buffer.from(k.line) })),
      );
    }
  }

  /**
   * The bytes of a compacted journal: the highest epoch record, the ids of every finished
   * (completed, cancelled or rejected) receipt packed into `settled` records (those compacted
   * before first, then the newly finished in ledger order), then every record of every open
   * receipt (fenced, dispatched, consumed, cancel-submitted, uncertain) in original order.
   */
  compacted(at: number): {
    bytes: Buffer;
    kept: number;
    dropped: number;
    settled: SettledId[];
  } {
    const settled: SettledId[] = [];
    for (const r of this.#receipts.values()) {
      if (r.state === "completed" || r.state === "cancelled" || r.state === "rejected") {
        settled.push({ id: r.promptId, state: r.state });
      }
    }
    const open: KeptLine[] = [];
    for (const lines of this.#openLines.values()) open.push(...lines);
    open.sort((a, b) => a.seq - b.seq);
    const parts: Uint8Array[] = [];
    if (this.#epochLine !== null) parts.push(this.#epochLine);
    const ids = function* (old: Map<string, SettledState>): Generator<SettledId> {
      for (const [id, state] of old) yield { id, state };
      yield* settled;
    };
    for (const rec of settledRecords(ids(this.#compacted), at)) parts.push(encodeRecord(rec));
    parts.push(...open.map((k) => k.line));
    return {
      bytes: Buffer.concat(parts),
      kept: this.#openLines.size,
      dropped: settled.length,
      settled,
    };
  }

  /**
   * About how many bytes `compacted()` would write (within a few percent), without building it:
   * what the journal checks on open to decide whether compacting pays.
   */
  compactedSizeEstimate(): number {
    let ids = 0;
    let n = 0;
    for (const id of this.#compacted.keys()) {
      ids += id.length + 3;
      n++;
    }
    let open = 0;
    for (const r of this.#receipts.values()) {
      if (isTerminal(r.state)) {
        ids += r.promptId.length + 3;
        n++;
      }
    }
    for (const lines of this.#openLines.values()) for (const k of lines) open += k.line.length;
    // One settled line per ~4,000 bytes of ids, ~70 bytes of frame each.
    const lines = n === 0 ? 0 : Math.ceil(ids / (MAX_LINE_BYTES - 100)) + 3;
    return (this.#epochLine?.length ?? 0) + ids + lines * 70 + open;
  }

  /** After a compacted journal replaced the old one: finished receipts become settled ids. */
  dropTerminal(settled: readonly SettledId[]): void {
    for (const s of settled) {
      this.#receipts.delete(s.id);
      this.#compacted.set(s.id, s.state);
    }
  }
}
