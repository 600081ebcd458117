/**
 * Journal recovery, run by `Journal.open` (all file access through `JournalIO`; no I/O of its own):
 * check that the seat directory and the journal are private; remove a stale compaction or
 * quarantine temp file; create the journal if absent (fsync the file, then the directory); read to
 * the last valid record (codec.ts); copy a torn or corrupt tail to a `.quarantine` file (temp,
 * fsync, rename, fsync directory) and truncate it away (fsync), with a typed warning; rebuild the
 * receipts (ledger.ts); and list every receipt still fenced/dispatched, which the journal then marks
 * `uncertain` (fsynced): the old connection died with the old process. Idempotent: a second
 * recovery finds nothing to do and changes no byte (T1/T2 check this).
 */

import { join } from "node:path";
import { crc32 } from "node:zlib";
import { failureOf } from "../errors.js";
import { decodeJournal, type TailReason } from "./codec.js";
import { DeliveryError } from "./delivery-error.js";
import {
  JOURNAL_FILE,
  type JournalGuard,
  type JournalIO,
  type PathFacts,
  sameFile,
  seatDirProblem,
  seatFileProblem,
} from "./journal-io.js";
import type { JournalRecord, UncertainReason } from "./journal-record.js";
import { Ledger } from "./ledger.js";

export type JournalWarning =
  | {
      readonly code: "JOURNAL_TAIL_QUARANTINED";
      readonly reason: TailReason;
      readonly offset: number;
      readonly length: number;
      readonly framedLinesAfter: number;
      readonly quarantinePath: string;
    }
  | {
      readonly code: "JOURNAL_RECORD_REJECTED";
      readonly offset: number;
      readonly type: JournalRecord["t"];
      readonly promptId: string | null;
      readonly reason: string;
    }
  | { readonly code: "JOURNAL_STALE_TEMP_REMOVED"; readonly path: string };

export interface RecoveryReport {
  readonly createdFile: boolean;
  readonly records: number;
  readonly validBytes: number;
  readonly warnings: readonly JournalWarning[];
  /** Prompt ids recovery marked uncertain (fence without dispatch / consumption evidence). */
  readonly madeUncertain: readonly string[];
  readonly maxEpoch: number;
}

export interface RecoveryOptions {
  readonly dir: string;
  readonly guard: JournalGuard;
  readonly io: JournalIO;
  readonly now: () => number;
}

/** The open files and rebuilt state a recovered journal starts from. */
export interface RecoveredParts {
  readonly io: JournalIO;
  readonly dirFd: number;
  readonly fd: number;
  readonly file: PathFacts;
  readonly ledger: Ledger;
  readonly report: RecoveryReport;
}

function ioError(op: string, path: string, cause: unknown): DeliveryError {
  const errno = failureOf(cause)?.code ?? null;
  return new DeliveryError("JOURNAL_IO", `${op} of ${path} failed (${errno ?? "error"})`, {
    details: { op, path, errno },
    cause,
  });
}

function attempt<T>(op: string, path: string, f: () => T): T {
  try {
    return f();
  } catch (cause) {
    if (cause instanceof DeliveryError) throw cause;
    throw ioError(op, path, cause);
  }
}

/** Open and recover the seat's journal files (see the file comment). The caller holds the seat. */
export function recoverFiles(opts: RecoveryOptions): {
  parts: RecoveredParts;
  /** `uncertain` records still to append (by the journal, through its guarded append). */
  unfinished: JournalRecord[];
} {
  const io = opts.io;
  const dir = opts.dir;
  const path = join(dir, JOURNAL_FILE);
  opts.guard.assertHeld();
  const euid = io.euid();
  const dirFacts = attempt("lstat", dir, () => io.lstat(dir));
  const dirProblem = seatDirProblem(dirFacts, euid);
  if (dirProblem !== null || dirFacts === null) {
    throw new DeliveryError(
      "SEAT_DIR_UNSAFE",
      `seat directory ${dir} is not private: ${dirProblem}`,
      {
        details: { path: dir, reason: dirProblem },
      },
    );
  }
  const dirFd = attempt("open", dir, () => io.openDirectory(dir));
  const fds = [dirFd];
  try {
    if (
      !sameFile(
        attempt("fstat", dir, () => io.fstat(dirFd)),
        dirFacts,
      )
    ) {
      throw new DeliveryError("SEAT_DIR_UNSAFE", `seat directory ${dir} changed while opening`, {
        details: { path: dir, reason: "replaced" },
      });
    }
    const warnings: JournalWarning[] = [];
    for (const stale of [`${path}.compact`, `${path}.quarantine.tmp`]) {
      if (attempt("lstat", stale, () => io.lstat(stale)) === null) continue;
      attempt("unlink", stale, () => io.unlink(stale));
      attempt("fsync", dir, () => io.fsync(dirFd));
      warnings.push({ code: "JOURNAL_STALE_TEMP_REMOVED", path: stale });
    }
    const existing = attempt("lstat", path, () => io.lstat(path));
    let fd: number;
    let createdFile = false;
    if (existing === null) {
      fd = attempt("create", path, () => io.openFile(path, "create"));
      fds.push(fd);
      attempt("fsync", path, () => io.fsync(fd));
      attempt("fsync", dir, () => io.fsync(dirFd));
      createdFile = true;
    } else {
      const problem = seatFileProblem(existing, euid);
      if (problem !== null) {
        throw new DeliveryError(
          "JOURNAL_FILE_UNSAFE",
          `journal ${path} is not private: ${problem}`,
          {
            details: { path, reason: problem },
          },
        );
      }
      fd = attempt("open", path, () => io.openFile(path, "existing"));
      fds.push(fd);
      if (
        !sameFile(
          attempt("fstat", path, () => io.fstat(fd)),
          existing,
        )
      ) {
        throw new DeliveryError("JOURNAL_FILE_UNSAFE", `journal ${path} changed while opening`, {
          details: { path, reason: "replaced" },
        });
      }
    }
    const bytes = attempt("read", path, () => io.readAll(fd));
    const decoded = decodeJournal(bytes);
    const tail = decoded.tail;
    if (tail?.reason === "unsupported-version") {
      throw new DeliveryError(
        "JOURNAL_FILE_UNSAFE",
        `journal ${path} has a record of another version at ${tail.offset}`,
        {
          details: { path, reason: "unsupported-version", offset: tail.offset },
        },
      );
    }
    if (tail !== null) {
      const tailBytes = bytes.subarray(tail.offset);
      const qpath = `${path}.${tail.offset}-${crc32(tailBytes).toString(16).padStart(8, "0")}.quarantine`;
      const have = attempt("lstat", qpath, () => io.lstat(qpath));
      if (have === null || have.size !== tailBytes.length) {
        const tmp = `${path}.quarantine.tmp`;
        const qfd = attempt("create", tmp, () => io.openFile(tmp, "create"));
        try {
          attempt("write", tmp, () => io.append(qfd, tailBytes));
          attempt("fsync", tmp, () => io.fsync(qfd));
        } finally {
          attempt("close", tmp, () => io.close(qfd));
        }
        attempt("rename", tmp, () => io.rename(tmp, qpath));
        attempt("fsync", dir, () => io.fsync(dirFd));
      }
      attempt("truncate", path, () => io.truncate(fd, tail.offset));
      attempt("fsync", path, () => io.fsync(fd));
      warnings.push({
        code: "JOURNAL_TAIL_QUARANTINED",
        reason: tail.reason,
        offset: tail.offset,
        length: tail.length,
        framedLinesAfter: tail.framedLinesAfter,
        quarantinePath: qpath,
      });
    }
    const ledger = new Ledger();
    for (const l of decoded.lines) {
      const rejected = ledger.apply(l.record, bytes.subarray(l.offset, l.offset + l.length));
      if (rejected !== null)
        warnings.push({ code: "JOURNAL_RECORD_REJECTED", offset: l.offset, ...rejected });
    }
    ledger.ownLines();
    const now = opts.now();
    const unfinished: JournalRecord[] = [];
    const madeUncertain: string[] = [];
    for (const r of ledger.receipts()) {
      if (r.state !== "fenced" && r.state !== "dispatched") continue;
      const reason: UncertainReason =
        r.state === "fenced" ? "recovered-fenced" : "recovered-dispatched";
      unfinished.push({ v: 1, t: "uncertain", id: r.promptId, at: now, reason });
      madeUncertain.push(r.promptId);
    }
    const file = attempt("fstat", path, () => io.fstat(fd));
    const report: RecoveryReport = {
      createdFile,
      records: decoded.lines.length,
      validBytes: decoded.validLength,
      warnings,
      madeUncertain,
      maxEpoch: ledger.maxEpoch,
    };
    fds.length = 0; // the journal owns them now
    return { parts: { io, dirFd, fd, file, ledger, report }, unfinished };
  } finally {
    for (const fd of fds) {
      try {
        io.close(fd);
      } catch {
        // Opening failed already; the first error is the one to report.
      }
    }
  }
}
