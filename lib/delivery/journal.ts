/**
 * The delivery fence journal: an append-only, checksummed record log per seat in its private
 * directory (`<seat dir>/delivery.journal`), reached only through the injectable `JournalIO`.
 * Durable records are fsynced before the call returns, any I/O error fail-stops it, and admission
 * is re-checked before every write (docs/design/decisions.md §5.1-§5.3;
 * docs/design/reliability-plan.md §3.2).
 */
import { Buffer } from "node:buffer";
import { hash } from "node:crypto";
import { join } from "node:path";
import { failureOf, UsageError } from "../errors.js";
import { encodeRecord } from "./codec.js";
import { DeliveryError } from "./delivery-error.js";
import {
  JOURNAL_FILE,
  type JournalGuard,
  type JournalIO,
  nodeJournalIO,
  type PathFacts,
  sameFile,
} from "./journal-io.js";
import {
  type CancelHow,
  type FenceInput,
  fenceInputProblem,
  type JournalRecord,
  type UncertainReason,
} from "./journal-record.js";
import type { Ledger } from "./ledger.js";
import {
  type ConsumptionEvidence,
  decide,
  type IgnoredOutcome,
  type Receipt,
  type ReceiptEvent,
  type RejectionEvidence,
  type ResultEvidence,
} from "./receipt.js";
import { type RecoveredParts, type RecoveryReport, recoverFiles } from "./recovery.js";

export { JOURNAL_FILE, type JournalGuard } from "./journal-io.js";
export type { FenceInput } from "./journal-record.js";
export type { JournalWarning, RecoveryReport } from "./recovery.js";

export interface Fenced {
  readonly receipt: Receipt;
  readonly textBytes: Buffer;
}

/** What a piece of evidence did: journaled (`applied`/`reconciled`) or why not. */
export interface EvidenceOutcome {
  readonly outcome: "applied" | "reconciled" | IgnoredOutcome | "compacted" | "unknown-prompt";
  /** The receipt after the evidence; null for a compacted prompt and for one that is not ours. */
  readonly receipt: Receipt | null;
}

export interface CompactionReport {
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  readonly keptReceipts: number;
  readonly droppedReceipts: number;
}

/**
 * The journal compacts itself (`compact()`) once its file is larger than this many bytes and half
 * again as large as right after its last compaction (or its opening), so a seat's journal stays
 * within about 1.5x its snapshot and a reopen reads that, not every line ever written
 * (docs/design/decisions.md §5.7). 1 MiB is about 1,500 finished prompts.
 */
export const DEFAULT_COMPACT_ABOVE_BYTES = 1 << 20;
/** Growth over the last compacted size that triggers the next compaction (amortised O(1)). */
const COMPACT_GROWTH = 1.5;
/** Finished receipts compaction dropped that `receipt()` still answers in this process. */
const RECENTLY_SETTLED = 10_000;

export interface OpenJournalOptions {
  /** The seat's private directory: owned by us, mode 0700, not a symlink. */
  readonly dir: string;
  readonly guard: JournalGuard;
  readonly io?: JournalIO;
  readonly now?: () => number;
  readonly pid?: number;
  /**
   * Compact automatically above this size (see DEFAULT_COMPACT_ABOVE_BYTES); on open when the
   * compacted journal would be less than 1/1.5 of the file, and before a durable append once the
   * file grew 1.5x over its last compacted size. `Infinity` turns it off.
   */
  readonly compactAboveBytes?: number;
}

const DURABLE: ReadonlySet<JournalRecord["t"]> = new Set([
  "epoch",
  "fence",
  "uncertain",
  "cancel-submitted",
  "completed",
  "cancelled",
  "rejected",
  "reconciled",
]);

function checkFenceInput(input: FenceInput): void {
  const problem = fenceInputProblem(input);
  if (problem !== null) {
    throw new UsageError("INVALID_ARGUMENT", `fence: ${problem.field} ${problem.why}`, {
      details: { field: problem.field },
    });
  }
}

export class Journal {
  readonly dir: string;
  readonly path: string;
  readonly recovery: RecoveryReport;
  readonly #io: JournalIO;
  readonly #guard: JournalGuard;
  readonly #now: () => number;
  readonly #pid: number;
  #dirFd: number;
  #fd: number;
  #file: PathFacts;
  #size: number;
  /** Compact before the next durable append once #size exceeds this (see compactAboveBytes). */
  #compactAt: number;
  readonly #compactAbove: number;
  /** Receipts the last compactions dropped, newest last, for `receipt()` (bounded). */
  readonly #recentlySettled = new Map<string, Receipt>();
  #ledger: Ledger;
  #epoch: number | null = null;
  #failure: DeliveryError | null = null;
  #closed = false;
  /** Lazy lines (dispatched, consumed) waiting for the next durable append: group commit. */
  #pending: Buffer[] = [];

  private constructor(opts: OpenJournalOptions, o: RecoveredParts) {
    this.dir = opts.dir;
    this.path = join(opts.dir, JOURNAL_FILE);
    this.#io = o.io;
    this.#guard = opts.guard;
    this.#now = opts.now ?? Date.now;
    this.#pid = opts.pid ?? process.pid;
    this.#dirFd = o.dirFd;
    this.#fd = o.fd;
    this.#file = o.file;
    this.#size = o.file.size;
    this.#compactAbove = opts.compactAboveBytes ?? DEFAULT_COMPACT_ABOVE_BYTES;
    this.#compactAt = Math.max(this.#compactAbove, this.#size * COMPACT_GROWTH);
    this.#ledger = o.ledger;
    this.recovery = o.report;
  }

  /** Open and recover the journal of a seat. The caller must hold the seat (see admission.ts). */
  static open(opts: OpenJournalOptions): Journal {
    const { parts, unfinished } = recoverFiles({
      dir: opts.dir,
      guard: opts.guard,
      io: opts.io ?? nodeJournalIO,
      now: opts.now ?? Date.now,
    });
    const journal = new Journal(opts, parts);
    try {
      if (unfinished.length > 0) journal.#append(unfinished);
      journal.#compactOnOpen();
    } catch (err) {
      journal.close();
      throw err;
    }
    return journal;
  }

  /** This controller's admission epoch, or null before `beginEpoch`. */
  get epoch(): number | null {
    return this.#epoch;
  }

  /** The error that fail-stopped the journal, or null while it is usable. */
  get failure(): DeliveryError | null {
    return this.#failure;
  }

  get maxEpoch(): number {
    return this.#ledger.maxEpoch;
  }

  /**
   * The receipt of a prompt this journal fenced. After compaction a finished prompt keeps only
   * its id (`isKnownPromptId`); its receipt is still answered in this process for the last
   * 10,000 such prompts, and undefined after a reopen.
   */
  receipt(promptId: string): Receipt | undefined {
    return this.#ledger.get(promptId) ?? this.#recentlySettled.get(promptId);
  }

  receipts(): Receipt[] {
    return [...this.#ledger.receipts()];
  }

  /**
   * True for every prompt id this journal ever fenced, including compacted ones: the set a caller
   * checks before choosing a prompt id, and what `fence` refuses as PROMPT_ID_DUPLICATE.
   */
  isKnownPromptId(promptId: string): boolean {
    return this.#ledger.knows(promptId);
  }

  /**
   * Record a new controller epoch (max + 1), fsynced. Called once, by admission. At the ceiling
   * (Number.MAX_SAFE_INTEGER) it refuses with EPOCH_EXHAUSTED and writes nothing.
   */
  beginEpoch(): number {
    if (this.#epoch !== null) {
      throw new UsageError("INVALID_ARGUMENT", "beginEpoch: this journal already has an epoch");
    }
    const max = this.#ledger.maxEpoch;
    if (max >= Number.MAX_SAFE_INTEGER) {
      // max + 1 could not be told from max: no epoch is written, no controller admitted.
      throw new DeliveryError("EPOCH_EXHAUSTED", `this journal has used every epoch (${max})`, {
        details: { maxEpoch: max },
      });
    }
    const epoch = max + 1;
    this.#append([{ v: 1, t: "epoch", epoch, pid: this.#pid, at: this.#now() }]);
    this.#epoch = epoch;
    return epoch;
  }

  /**
   * Durably fence a prompt before it is sent: refused (nothing written) for a duplicate prompt id,
   * without an epoch, or on a fail-stopped journal. Prefer `dispatch()`, which sends after this.
   */
  fence(input: FenceInput): Fenced {
    this.#usable();
    checkFenceInput(input);
    if (this.#epoch === null)
      throw new DeliveryError("NOT_ADMITTED", "fence: no controller epoch (admit first)");
    if (this.#ledger.knows(input.promptId)) {
      const state = this.#ledger.get(input.promptId)?.state ?? "compacted";
      throw new DeliveryError(
        "PROMPT_ID_DUPLICATE",
        `prompt id ${input.promptId} already has a receipt`,
        {
          details: { promptId: input.promptId, state },
        },
      );
    }
    const textBytes = Buffer.from(input.text, "utf8");
    this.#append([
      {
        v: 1,
        t: "fence",
        id: input.promptId,
        sid: input.sessionId,
        leader: input.leader,
        pane: input.pane,
        sha256: hash("sha256", textBytes, "hex"), // one-shot: half the cost of createHash
        len: textBytes.length,
        epoch: this.#epoch,
        at: this.#now(),
      },
    ]);
    return { receipt: this.#mustGet(input.promptId), textBytes };
  }

  /** The sender wrote the frame. No-op (current receipt returned) once evidence moved it on. */
  markDispatched(promptId: string): Receipt {
    return this.#event(promptId, { type: "dispatched" }).receipt;
  }

  /** The send failed or the connection dropped before consumption evidence. */
  markUncertain(promptId: string, reason: UncertainReason, detail?: string): Receipt {
    const event: ReceiptEvent =
      detail === undefined ? { type: "uncertain", reason } : { type: "uncertain", reason, detail };
    return this.#event(promptId, event).receipt;
  }

  /** We asked the leader to cancel a consumed prompt; stays cancel-submitted until a result. */
  recordCancelSubmitted(promptId: string, how: CancelHow): Receipt {
    return this.#event(promptId, { type: "cancel-submitted", how }).receipt;
  }

  /** Queue / runningPromptId evidence. Evidence for a prompt that is not ours is ignored. */
  recordConsumption(evidence: ConsumptionEvidence): EvidenceOutcome {
    return this.#evidence(evidence.promptId, { type: "consumed", evidence });
  }

  /** A final result (any of the three channels). Evidence for a prompt not ours is ignored. */
  recordResult(evidence: ResultEvidence): EvidenceOutcome {
    return this.#evidence(evidence.promptId, { type: "result", evidence });
  }

  /**
   * Grok answered our `session/prompt` with a JSON-RPC error (rejection.ts). Before consumption
   * evidence the receipt becomes `rejected` (terminal, fsynced, never resent); an answer proves
   * the frame was written, so a receipt still `fenced` (the sender's own signal not yet in) is
   * marked dispatched in the same write. After consumption evidence it completes the receipt as a
   * failed turn (stop reason `error` / `rate_limit`). A prompt not ours is ignored.
   */
  recordRejection(evidence: RejectionEvidence): EvidenceOutcome {
    if (!Number.isInteger(evidence.code) || typeof evidence.message !== "string") {
      throw new UsageError(
        "INVALID_ARGUMENT",
        "recordRejection: code must be an integer and message a string",
        { details: { field: Number.isInteger(evidence.code) ? "message" : "code" } },
      );
    }
    this.#usable();
    const current = this.#ledger.get(evidence.promptId);
    if (current?.state === "fenced" && current.sessionId === evidence.sessionId) {
      this.#event(evidence.promptId, { type: "dispatched" });
    }
    return this.#evidence(evidence.promptId, { type: "rejected", evidence });
  }

  /** The leader connection is gone: every receipt without consumption evidence becomes uncertain. */
  connectionLost(detail?: string): Receipt[] {
    this.#usable();
    const at = this.#now();
    const event: ReceiptEvent =
      detail === undefined
        ? { type: "uncertain", reason: "connection-lost" }
        : { type: "uncertain", reason: "connection-lost", detail };
    const records: JournalRecord[] = [];
    const ids: string[] = [];
    for (const r of this.#ledger.receipts()) {
      const d = decide(r, event, at);
      if (d.kind !== "record") continue;
      records.push(d.record);
      ids.push(r.promptId);
    }
    if (records.length > 0) this.#append(records);
    return ids.map((id) => this.#mustGet(id));
  }

  /** Write the pending lazy records (dispatched, consumed) and fsync: everything so far is durable. */
  sync(): void {
    this.#append([]);
  }

  /**
   * Rewrite the journal with every completed, cancelled or rejected receipt reduced to its id,
   * packed into `settled` records (each id stays known: still refused as a duplicate, its late
   * evidence still recognised as ours). Every open or uncertain receipt keeps all of its records
   * byte for byte, and the highest epoch record is kept so epochs stay monotonic. The journal
   * also does this by itself (`compactAboveBytes`).
   * Crash-safe at every step: write temp, fsync, rename, fsync directory.
   */
  compact(): CompactionReport {
    this.#usable();
    this.#checkOwnership();
    return this.#writeCompacted(this.#ledger.compacted(this.#now()));
  }

  /** On open: compact a large journal when that shrinks it by a third or more. */
  #compactOnOpen(): void {
    if (this.#size <= this.#compactAbove) return;
    // The estimate, not the plan: building it costs as much as the rest of a reopen.
    const estimate = this.#ledger.compactedSizeEstimate();
    if (estimate * COMPACT_GROWTH < this.#size) {
      this.#checkOwnership();
      this.#writeCompacted(this.#ledger.compacted(this.#now()));
    } else {
      // Growth counts from the snapshot, not from this opening: restarts cannot ratchet it up.
      this.#compactAt = Math.max(this.#compactAbove, estimate * COMPACT_GROWTH);
    }
  }

  #writeCompacted(plan: ReturnType<Ledger["compacted"]>): CompactionReport {
    const tmp = `${this.path}.compact`;
    const io = this.#io;
    const before = this.#size;
    this.#ioCall("compact", tmp, () => {
      if (io.lstat(tmp) !== null) io.unlink(tmp);
      const tfd = io.openFile(tmp, "create");
      try {
        io.append(tfd, plan.bytes);
        io.fsync(tfd);
      } finally {
        io.close(tfd);
      }
      io.rename(tmp, this.path);
      io.fsync(this.#dirFd);
      io.close(this.#fd);
      this.#fd = io.openFile(this.path, "existing");
      this.#file = io.fstat(this.#fd);
    });
    this.#size = this.#file.size;
    this.#compactAt = Math.max(this.#compactAbove, this.#size * COMPACT_GROWTH);
    for (const s of plan.settled) {
      const r = this.#ledger.get(s.id);
      if (r !== undefined) this.#recentlySettled.set(s.id, r);
    }
    for (const id of this.#recentlySettled.keys()) {
      if (this.#recentlySettled.size <= RECENTLY_SETTLED) break;
      this.#recentlySettled.delete(id);
    }
    this.#ledger.dropTerminal(plan.settled);
    this.#pending = []; // they are in the compacted file: it was built from the ledger
    return {
      bytesBefore: before,
      bytesAfter: this.#size,
      keptReceipts: plan.kept,
      droppedReceipts: plan.dropped,
    };
  }

  /** Close the files. Later calls throw JOURNAL_CLOSED. Idempotent. */
  close(): void {
    if (this.#closed) return;
    if (this.#failure === null && this.#pending.length > 0) {
      try {
        this.#append([]);
      } catch {
        // Only lazy records were waiting; losing them leaves receipts uncertain, never wrong.
      }
    }
    this.#closed = true;
    for (const fd of [this.#fd, this.#dirFd]) {
      try {
        this.#io.close(fd);
      } catch {
        // Everything acknowledged was fsynced before; a close error loses nothing we promised.
      }
    }
  }

  #mustGet(promptId: string): Receipt {
    const r = this.#ledger.get(promptId);
    if (r === undefined)
      throw new DeliveryError("UNKNOWN_PROMPT", `no receipt for prompt id ${promptId}`, {
        details: { promptId },
      });
    return r;
  }

  #event(
    promptId: string,
    event: ReceiptEvent,
  ): { receipt: Receipt; outcome: EvidenceOutcome["outcome"] } {
    this.#usable();
    const r = this.#mustGet(promptId);
    const d = decide(r, event, this.#now());
    if (d.kind === "illegal") {
      throw new DeliveryError(
        "ILLEGAL_TRANSITION",
        `${event.type} for prompt ${promptId} in state ${d.from}: ${d.reason}`,
        {
          details: { promptId, from: d.from, event: event.type },
        },
      );
    }
    if (d.kind === "ignore") return { receipt: r, outcome: d.outcome };
    this.#append([d.record]);
    return { receipt: this.#mustGet(promptId), outcome: d.outcome };
  }

  #evidence(promptId: string, event: ReceiptEvent): EvidenceOutcome {
    this.#usable();
    if (this.#ledger.isCompacted(promptId)) return { outcome: "compacted", receipt: null };
    if (this.#ledger.get(promptId) === undefined) {
      return { outcome: "unknown-prompt", receipt: null };
    }
    return this.#event(promptId, event);
  }

  #usable(): void {
    if (this.#closed) throw new DeliveryError("JOURNAL_CLOSED", `journal ${this.path} is closed`);
    const f = this.#failure;
    if (f !== null) {
      throw new DeliveryError(f.code, `journal ${this.path} is fail-stopped: ${f.message}`, {
        details: { ...f.context, failStopped: true },
        cause: f,
      });
    }
  }

  #fail(err: DeliveryError): DeliveryError {
    this.#failure ??= err;
    return err;
  }

  #ioCall<T>(op: string, path: string, f: () => T): T {
    try {
      return f();
    } catch (cause) {
      if (cause instanceof DeliveryError) throw this.#fail(cause);
      const errno = failureOf(cause)?.code ?? null;
      throw this.#fail(
        new DeliveryError("JOURNAL_IO", `${op} of ${path} failed (${errno ?? "error"})`, {
          details: { op, path, errno },
          cause,
        }),
      );
    }
  }

  /**
   * Before every write: the guard's lock is still ours (admission.ts checks the lock file's inode
   * by path), and our journal inode still has its one name and the size we left it (one fstat: a
   * journal renamed over or unlinked leaves our inode with nlink 0; a foreign append changes the
   * size). Anything else is ADMISSION_LOST, and fail-stops the journal.
   */
  #checkOwnership(): void {
    try {
      this.#guard.assertHeld();
    } catch (err) {
      if (err instanceof DeliveryError) throw this.#fail(err);
      throw err;
    }
    const open = this.#ioCall("fstat", this.path, () => this.#io.fstat(this.#fd));
    const reason =
      open.nlink !== 1 || !sameFile(open, this.#file)
        ? "journal-replaced"
        : open.size !== this.#size
          ? "journal-changed-size"
          : null;
    if (reason !== null) {
      throw this.#fail(
        new DeliveryError("ADMISSION_LOST", `journal ${this.path}: ${reason}`, {
          details: { reason, path: this.path },
        }),
      );
    }
  }

  /**
   * Append records. A batch with a durable record is written in one write(2) together with every
   * lazy line still pending, then fsynced (group commit). A batch of lazy records only is kept in
   * memory until then: it costs no syscall on the dispatch path and leaves no page dirty behind an
   * fsync, and losing it (a crash first) is exactly as safe as losing an unsynced write. An empty
   * batch flushes and fsyncs the pending lines (`sync`, `close`).
   */
  #append(records: readonly JournalRecord[]): void {
    this.#usable();
    // Check every record against the state before anything is written: a record that is not a
    // legal move is a bug here, and must not reach the disk.
    for (const rec of records) {
      const problem = this.#ledger.check(rec);
      if (problem !== null) {
        throw new DeliveryError(
          "ILLEGAL_TRANSITION",
          `refusing to journal ${rec.t}: ${problem.reason}`,
          {
            details: { ...problem },
          },
        );
      }
    }
    const lines = records.map((r) => encodeRecord(r));
    const durable = records.length === 0 || records.some((r) => DURABLE.has(r.t));
    if (durable) {
      // Before this batch is written, so a failed compaction fail-stops with nothing of it on disk.
      if (this.#size > this.#compactAt && records.length > 0) {
        this.#checkOwnership();
        this.#writeCompacted(this.#ledger.compacted(this.#now()));
      }
      this.#checkOwnership();
      const parts = this.#pending.length === 0 ? lines : [...this.#pending, ...lines];
      const bytes = parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts);
      if (bytes.length > 0) {
        this.#ioCall("append", this.path, () => this.#io.append(this.#fd, bytes));
        this.#size += bytes.length;
      }
      this.#ioCall("fsync", this.path, () => this.#io.fsync(this.#fd));
      this.#pending = [];
    } else {
      this.#pending.push(...lines);
    }
    for (let i = 0; i < records.length; i++) {
      const rec = records[i];
      const line = lines[i];
      if (rec !== undefined && line !== undefined) this.#ledger.apply(rec, line);
    }
  }
}
