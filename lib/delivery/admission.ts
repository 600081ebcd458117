/**
 * Single-controller admission: exactly one controller per seat directory at a time, by an
 * exclusive non-blocking flock(2) on `controller.lock` (never unlinked, re-checked to be the
 * inode we locked) and a monotonic epoch fsynced into the journal as a fencing token
 * (docs/design/decisions.md §5.6).
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { failureOf } from "../errors.js";
import { flock } from "../kernel/index.js";
import { DeliveryError } from "./delivery-error.js";
import { Journal, type JournalGuard, type RecoveryReport } from "./journal.js";
import {
  nodeJournalIO,
  type PathFacts,
  sameFile,
  seatDirProblem,
  seatFileProblem,
} from "./journal-io.js";

export const LOCK_FILE = "controller.lock";

/** How many times a lock whose name was swapped under us is retried before giving up. */
const LOCK_ATTEMPTS = 3;

export interface ControllerLock extends JournalGuard {
  readonly path: string;
  /** False after `release()` or after the lock was found lost. */
  readonly held: boolean;
  /** Close the lock fd: the kernel releases the flock. Idempotent. */
  release(): void;
}

const lstatFacts = (path: string): PathFacts | null => nodeJournalIO.lstat(path);
const fdFacts = (fd: number): PathFacts => nodeJournalIO.fstat(fd);

function euid(): number {
  return typeof process.geteuid === "function" ? process.geteuid() : -1;
}

class FlockLock implements ControllerLock {
  readonly path: string;
  readonly #ino: bigint;
  readonly #dev: bigint;
  #fd: number | null;
  #lostReason: string | null = null;

  constructor(path: string, fd: number, facts: PathFacts) {
    this.path = path;
    this.#fd = fd;
    this.#ino = BigInt(facts.ino);
    this.#dev = BigInt(facts.dev);
  }

  get held(): boolean {
    return this.#fd !== null && this.#lostReason === null;
  }

  assertHeld(): void {
    if (this.#fd === null) this.#lost("released");
    if (this.#lostReason !== null) this.#lost(this.#lostReason);
    // Called before every journal write: compare the kernel's bigints directly, no conversion.
    let now: fs.BigIntStats | undefined;
    try {
      now = fs.lstatSync(this.path, { bigint: true, throwIfNoEntry: false });
    } catch (cause) {
      this.#lost(`lstat failed (${failureOf(cause)?.code ?? "error"})`);
    }
    if (now === undefined) this.#lost("lock-file-unlinked");
    if (now.ino !== this.#ino || now.dev !== this.#dev) this.#lost("lock-file-replaced");
  }

  release(): void {
    if (this.#fd === null) return;
    const fd = this.#fd;
    this.#fd = null;
    fs.closeSync(fd);
  }

  #lost(reason: string): never {
    this.#lostReason ??= reason;
    throw new DeliveryError("ADMISSION_LOST", `controller lock ${this.path}: ${reason}`, {
      details: { path: this.path, reason },
    });
  }
}

/**
 * Take the seat's admission lock without blocking. Throws LEADER_BUSY when another live controller
 * holds it, SEAT_DIR_UNSAFE / JOURNAL_FILE_UNSAFE when the directory or lock file is not private.
 */
export function acquireControllerLock(seatDir: string): ControllerLock {
  const me = euid();
  let dirProblem: string | null;
  try {
    dirProblem = seatDirProblem(lstatFacts(seatDir), me);
  } catch (cause) {
    dirProblem = `lstat failed (${failureOf(cause)?.code ?? "error"})`;
  }
  if (dirProblem !== null) {
    throw new DeliveryError(
      "SEAT_DIR_UNSAFE",
      `seat directory ${seatDir} is not private: ${dirProblem}`,
      {
        details: { path: seatDir, reason: dirProblem },
      },
    );
  }
  const path = join(seatDir, LOCK_FILE);
  for (let attempt = 1; ; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(
        path,
        fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW,
        0o600,
      );
    } catch (cause) {
      const errno = failureOf(cause)?.code ?? null;
      const reason = errno === "ELOOP" ? "symlink" : `open failed (${errno ?? "error"})`;
      throw new DeliveryError("JOURNAL_FILE_UNSAFE", `controller lock ${path}: ${reason}`, {
        details: { path, reason },
        cause,
      });
    }
    let keep = false;
    try {
      const facts = fdFacts(fd);
      const problem = seatFileProblem(facts, me);
      if (problem !== null) {
        throw new DeliveryError(
          "JOURNAL_FILE_UNSAFE",
          `controller lock ${path} is not private: ${problem}`,
          {
            details: { path, reason: problem },
          },
        );
      }
      if (!flock(fd, "exclusive", { nonBlocking: true })) {
        throw new DeliveryError("LEADER_BUSY", `another controller holds ${path}`, {
          details: { path },
        });
      }
      const named = lstatFacts(path);
      if (named !== null && sameFile(named, facts)) {
        keep = true;
        return new FlockLock(path, fd, facts);
      }
      if (attempt >= LOCK_ATTEMPTS) {
        throw new DeliveryError("LEADER_BUSY", `controller lock ${path} keeps being replaced`, {
          details: { path, reason: "lock-file-replaced" },
        });
      }
    } finally {
      if (!keep) fs.closeSync(fd);
    }
  }
}

export interface AdmitOptions {
  readonly seatDir: string;
  readonly now?: () => number;
  /** The journal's automatic compaction threshold (journal.ts DEFAULT_COMPACT_ABOVE_BYTES). */
  readonly compactAboveBytes?: number;
}

/** An admitted controller: the only writer of the seat's journal until `release()`. */
export interface Controller {
  readonly epoch: number;
  readonly journal: Journal;
  readonly recovery: RecoveryReport;
  readonly lock: ControllerLock;
  /** Close the journal and drop the lock. Idempotent. */
  release(): void;
}

/** Lock the seat, open and recover its journal, and record a new epoch (fsynced). */
export function admitController(opts: AdmitOptions): Controller {
  const lock = acquireControllerLock(opts.seatDir);
  let journal: Journal | undefined;
  try {
    journal = Journal.open({
      dir: opts.seatDir,
      guard: lock,
      ...(opts.now === undefined ? {} : { now: opts.now }),
      ...(opts.compactAboveBytes === undefined
        ? {}
        : { compactAboveBytes: opts.compactAboveBytes }),
    });
    const epoch = journal.beginEpoch();
    const j = journal;
    return {
      epoch,
      journal: j,
      recovery: j.recovery,
      lock,
      release() {
        j.close();
        lock.release();
      },
    };
  } catch (err) {
    journal?.close();
    lock.release();
    throw err;
  }
}
