/**
 * The journal's file-system surface, small enough to simulate power loss behind it
 * (docs/design/reliability-plan.md §6 T2: the SQLite test6.c / LazyFS idea, in-process). The real
 * implementation is `nodeJournalIO` below; tests substitute a recording file system that
 * tracks which bytes and directory entries are durable.
 *
 * Synchronous on purpose: a fence is one short critical section (~0.2 ms of fsync on this box,
 * docs/design/reliability-plan.md A.5); a synchronous call cannot interleave with another append between the
 * admission check and the write, and it gives the crash tests a deterministic syscall sequence.
 * Every method throws the OS error (with its errno `code`) on failure; the journal turns that into
 * JOURNAL_IO and fail-stops.
 */

import * as fs from "node:fs";

/** The journal's file name inside the seat directory. */
export const JOURNAL_FILE = "delivery.journal";

/** Checked before every append: throws ADMISSION_LOST when this controller lost the seat. */
export interface JournalGuard {
  assertHeld(): void;
}

export type PathKind = "file" | "directory" | "symlink" | "other";

/** lstat/fstat facts. 64-bit kernel numbers are decimal strings (lib/kernel/types.ts rule). */
export interface PathFacts {
  readonly kind: PathKind;
  readonly dev: string;
  readonly ino: string;
  readonly uid: number;
  /** Permission bits (st_mode & 07777). */
  readonly mode: number;
  readonly size: number;
  readonly nlink: number;
}

export interface JournalIO {
  /** lstat (never follows a symlink); null when the path does not exist. */
  lstat(path: string): PathFacts | null;
  fstat(fd: number): PathFacts;
  /** open(O_RDONLY | O_DIRECTORY | O_NOFOLLOW): a directory fd for fstat and fsync. */
  openDirectory(path: string): number;
  /**
   * open(O_RDWR | O_APPEND | O_NOFOLLOW), plus O_CREAT | O_EXCL with mode 0600 for "create".
   * Appends always go to the end of the file, whoever else holds it open.
   */
  openFile(path: string, how: "create" | "existing"): number;
  /** The whole content of an open file. */
  readAll(fd: number): Uint8Array;
  /** write(2) until every byte is written; a short write that cannot continue throws. */
  append(fd: number, bytes: Uint8Array): void;
  /** fsync(2) of a file or of a directory fd. Never retried by the journal. */
  fsync(fd: number): void;
  /** ftruncate(2). */
  truncate(fd: number, length: number): void;
  /** rename(2) within the seat directory: atomic replacement of the name. */
  rename(from: string, to: string): void;
  unlink(path: string): void;
  close(fd: number): void;
  /** The effective uid the seat directory and its files must belong to. */
  euid(): number;
}

/** Why a seat directory is not private to us, or null when it is (tmux `make_label`, §1.1). */
export function seatDirProblem(facts: PathFacts | null, euid: number): string | null {
  if (facts === null) return "missing";
  if (facts.kind === "symlink") return "symlink";
  if (facts.kind !== "directory") return "not-directory";
  if (facts.uid !== euid) return "owner";
  if ((facts.mode & 0o077) !== 0) return "mode";
  return null;
}

/** Why a file in the seat directory is not private to us, or null when it is. */
export function seatFileProblem(facts: PathFacts, euid: number): string | null {
  if (facts.kind === "symlink") return "symlink";
  if (facts.kind !== "file") return "not-file";
  if (facts.uid !== euid) return "owner";
  if ((facts.mode & 0o077) !== 0) return "mode";
  // A second name for the inode could be someone else's hard link into our directory.
  if (facts.nlink !== 1) return "links";
  return null;
}

export function sameFile(a: PathFacts, b: PathFacts): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function facts(s: fs.BigIntStats): PathFacts {
  const kind = s.isFile()
    ? "file"
    : s.isDirectory()
      ? "directory"
      : s.isSymbolicLink()
        ? "symlink"
        : "other";
  return {
    kind,
    dev: s.dev.toString(),
    ino: s.ino.toString(),
    uid: Number(s.uid),
    mode: Number(s.mode & 0o7777n),
    size: Number(s.size),
    nlink: Number(s.nlink),
  };
}

const { O_RDONLY, O_RDWR, O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = fs.constants;

/** The real file system (Node's synchronous fs; every call is one syscall or a short loop). */
export const nodeJournalIO: JournalIO = {
  lstat: (path) => {
    const s = fs.lstatSync(path, { bigint: true, throwIfNoEntry: false });
    return s === undefined ? null : facts(s);
  },
  fstat: (fd) => facts(fs.fstatSync(fd, { bigint: true })),
  openDirectory: (path) => fs.openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW),
  openFile: (path, how) =>
    fs.openSync(
      path,
      O_RDWR | O_APPEND | O_NOFOLLOW | (how === "create" ? O_CREAT | O_EXCL : 0),
      0o600,
    ),
  readAll: (fd) => {
    const size = Number(fs.fstatSync(fd, { bigint: true }).size);
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = fs.readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  },
  append: (fd, bytes) => {
    let off = 0;
    while (off < bytes.length) {
      const n = fs.writeSync(fd, bytes, off, bytes.length - off);
      // write(2) on a regular file returns > 0 or fails; 0 would loop forever, so treat it as EIO.
      if (n <= 0) throw Object.assign(new Error("EIO: write returned 0"), { code: "EIO" });
      off += n;
    }
  },
  fsync: (fd) => fs.fsyncSync(fd),
  truncate: (fd, length) => fs.ftruncateSync(fd, length),
  rename: (from, to) => fs.renameSync(from, to),
  unlink: (path) => fs.unlinkSync(path),
  close: (fd) => fs.closeSync(fd),
  euid: () => (typeof process.geteuid === "function" ? process.geteuid() : -1),
};
