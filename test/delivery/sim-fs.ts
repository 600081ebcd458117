/**
 * An in-memory file system behind `JournalIO` that knows what is durable (docs/design/reliability-plan.md §6
 * T2; the SQLite test6.c / LazyFS fault model, in-process).
 *
 * One directory (the seat directory) with files. Per inode: the bytes as of its last fsync and the
 * ordered file operations since (writes, truncates). Per directory: the entries as of its last
 * fsync and the ordered entry operations since (create, rename, unlink). After every mutating call
 * a crash point is recorded; `crashStates` materialises what a power cut at that point may leave:
 * - every byte fsynced before the cut is kept;
 * - of the later operations on a file, any prefix is kept, and the last kept write may be torn at
 *   any offset (either cut short, or extended to full length with zeros: size persisted, data not);
 * - of the later directory operations, any prefix is kept (unsynced entries dropped, renames undone).
 * Fault injection: `failOn(op, n, code)` makes the n-th call of `op` throw an errno error.
 */
import { Buffer } from "node:buffer";
import { basename, dirname } from "node:path";
import type { JournalIO, PathFacts } from "../../lib/delivery/journal-io.js";

type FileOp =
  | { readonly kind: "write"; readonly offset: number; readonly bytes: Uint8Array }
  | { readonly kind: "truncate"; readonly length: number };
type DirOp =
  | { readonly kind: "link"; readonly name: string; readonly ino: number }
  | { readonly kind: "rename"; readonly from: string; readonly to: string }
  | { readonly kind: "unlink"; readonly name: string };

interface Inode {
  data: Uint8Array;
  durable: Uint8Array;
  pending: FileOp[];
}

/** What a power cut at one point may leave, before choosing among the possibilities. */
export interface CrashPoint {
  readonly index: number;
  readonly op: string;
  readonly durableEntries: ReadonlyMap<string, number>;
  readonly pendingDir: readonly DirOp[];
  readonly inodes: ReadonlyMap<
    number,
    { readonly durable: Uint8Array; readonly pending: readonly FileOp[] }
  >;
  /** How many entries of the caller's event log (`SimFS.log`) happened before this point. */
  readonly logLength: number;
}

export type SimOp =
  | "open"
  | "append"
  | "fsync"
  | "truncate"
  | "rename"
  | "unlink"
  | "read"
  | "close";

function errnoError(code: string, op: string): Error {
  const err = new Error(`${code}: simulated failure, ${op}`);
  Reflect.set(err, "code", code);
  return err;
}

function applyFileOps(base: Uint8Array, ops: readonly FileOp[]): Uint8Array {
  let data = base;
  for (const op of ops) {
    if (op.kind === "truncate") {
      data = data.subarray(0, Math.min(op.length, data.length));
    } else {
      const next = new Uint8Array(Math.max(data.length, op.offset + op.bytes.length));
      next.set(data);
      next.set(op.bytes, op.offset);
      data = next;
    }
  }
  return data;
}

export function applyDirOps(
  base: ReadonlyMap<string, number>,
  ops: readonly DirOp[],
): Map<string, number> {
  const entries = new Map(base);
  for (const op of ops) {
    if (op.kind === "link") entries.set(op.name, op.ino);
    else if (op.kind === "unlink") entries.delete(op.name);
    else {
      const ino = entries.get(op.from);
      entries.delete(op.from);
      if (ino !== undefined) entries.set(op.to, ino);
    }
  }
  return entries;
}

/** The seat directory's facts: ours, 0700, as the journal requires. */
const DIRECTORY_FACTS: PathFacts = {
  kind: "directory",
  dev: "1",
  ino: "2",
  uid: 0,
  mode: 0o700,
  size: 4096,
  nlink: 2,
};

export class SimFS implements JournalIO {
  readonly dir: string;
  readonly points: CrashPoint[] = [];
  readonly calls: Record<SimOp, number> = {
    open: 0,
    append: 0,
    fsync: 0,
    truncate: 0,
    rename: 0,
    unlink: 0,
    read: 0,
    close: 0,
  };
  /** Events outside the disk (prompts sent, acknowledged), in order, for the crash points. */
  readonly log: string[] = [];
  #inodes = new Map<number, Inode>();
  #entries = new Map<string, number>();
  #durableEntries = new Map<string, number>();
  #pendingDir: DirOp[] = [];
  #fds = new Map<number, number | "dir">();
  #nextIno = 100;
  #nextFd = 10;
  #faults: { op: SimOp; n: number; code: string }[] = [];
  #record: boolean;

  /** A seat directory holding `files`, all durable (the state a previous run left on disk). */
  constructor(dir: string, files: ReadonlyMap<string, Uint8Array> = new Map(), record = true) {
    this.dir = dir;
    this.#record = record;
    for (const [name, bytes] of files) {
      const ino = this.#nextIno++;
      this.#inodes.set(ino, { data: bytes, durable: bytes, pending: [] });
      this.#entries.set(name, ino);
      this.#durableEntries.set(name, ino);
    }
  }

  /** Make the n-th (1-based) call of `op` throw an error with errno `code`. */
  failOn(op: SimOp, n: number, code: string): void {
    this.#faults.push({ op, n, code });
  }

  note(event: string): void {
    this.log.push(event);
  }

  /** Current (volatile) content of every file, for comparisons. */
  files(): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    for (const [name, ino] of this.#entries) out.set(name, this.#inode(ino).data);
    return out;
  }

  #inode(ino: number): Inode {
    const i = this.#inodes.get(ino);
    if (i === undefined) throw errnoError("EBADF", "no inode");
    return i;
  }

  #call(op: SimOp): void {
    this.calls[op]++;
    for (const f of this.#faults)
      if (f.op === op && f.n === this.calls[op]) throw errnoError(f.code, op);
  }

  #point(op: string): void {
    if (!this.#record) return;
    const inodes = new Map<number, { durable: Uint8Array; pending: FileOp[] }>();
    for (const [ino, i] of this.#inodes)
      inodes.set(ino, { durable: i.durable, pending: [...i.pending] });
    this.points.push({
      index: this.points.length,
      op,
      durableEntries: new Map(this.#durableEntries),
      pendingDir: [...this.#pendingDir],
      inodes,
      logLength: this.log.length,
    });
  }

  #name(path: string): string {
    if (dirname(path) !== this.dir) throw errnoError("ENOENT", `outside ${this.dir}: ${path}`);
    return basename(path);
  }

  #fileFd(fd: number): Inode {
    const ino = this.#fds.get(fd);
    if (ino === undefined || ino === "dir") throw errnoError("EBADF", "not a file fd");
    return this.#inode(ino);
  }

  /** How many directory entries name the inode (0 once it was renamed over or unlinked). */
  #links(ino: number): number {
    let n = 0;
    for (const e of this.#entries.values()) if (e === ino) n++;
    return n;
  }

  /** The facts of a file's inode, as its owner's 0600 journal files have them. */
  #fileFacts(ino: number): PathFacts {
    return {
      kind: "file",
      dev: "1",
      ino: String(ino),
      uid: 0,
      mode: 0o600,
      size: this.#inode(ino).data.length,
      nlink: this.#links(ino),
    };
  }

  lstat(path: string): PathFacts | null {
    if (path === this.dir) return DIRECTORY_FACTS;
    const ino = this.#entries.get(this.#name(path));
    if (ino === undefined) return null;
    return this.#fileFacts(ino);
  }

  fstat(fd: number): PathFacts {
    const ino = this.#fds.get(fd);
    if (ino === undefined) throw errnoError("EBADF", "fstat");
    if (ino === "dir") return DIRECTORY_FACTS;
    return this.#fileFacts(ino);
  }

  openDirectory(path: string): number {
    this.#call("open");
    if (path !== this.dir) throw errnoError("ENOENT", "openDirectory");
    const fd = this.#nextFd++;
    this.#fds.set(fd, "dir");
    return fd;
  }

  openFile(path: string, how: "create" | "existing"): number {
    this.#call("open");
    const name = this.#name(path);
    let ino = this.#entries.get(name);
    if (how === "create") {
      if (ino !== undefined) throw errnoError("EEXIST", "openFile");
      ino = this.#nextIno++;
      const empty = new Uint8Array(0);
      this.#inodes.set(ino, { data: empty, durable: empty, pending: [] });
      this.#entries.set(name, ino);
      this.#pendingDir.push({ kind: "link", name, ino });
      this.#point(`create ${name}`);
    } else if (ino === undefined) {
      throw errnoError("ENOENT", "openFile");
    }
    const fd = this.#nextFd++;
    this.#fds.set(fd, ino);
    return fd;
  }

  readAll(fd: number): Uint8Array {
    this.#call("read");
    return Buffer.from(this.#fileFd(fd).data);
  }

  append(fd: number, bytes: Uint8Array): void {
    this.#call("append");
    const i = this.#fileFd(fd);
    const op: FileOp = { kind: "write", offset: i.data.length, bytes: Buffer.from(bytes) };
    i.data = applyFileOps(i.data, [op]);
    i.pending.push(op);
    this.#point("append");
  }

  fsync(fd: number): void {
    this.#call("fsync");
    const ino = this.#fds.get(fd);
    if (ino === undefined) throw errnoError("EBADF", "fsync");
    if (ino === "dir") {
      this.#durableEntries = new Map(this.#entries);
      this.#pendingDir = [];
      this.#point("fsync dir");
    } else {
      const i = this.#inode(ino);
      i.durable = i.data;
      i.pending = [];
      this.#point("fsync");
    }
  }

  truncate(fd: number, length: number): void {
    this.#call("truncate");
    const i = this.#fileFd(fd);
    const op: FileOp = { kind: "truncate", length };
    i.data = applyFileOps(i.data, [op]);
    i.pending.push(op);
    this.#point("truncate");
  }

  rename(from: string, to: string): void {
    this.#call("rename");
    const a = this.#name(from);
    const b = this.#name(to);
    const ino = this.#entries.get(a);
    if (ino === undefined) throw errnoError("ENOENT", "rename");
    this.#entries.delete(a);
    this.#entries.set(b, ino);
    this.#pendingDir.push({ kind: "rename", from: a, to: b });
    this.#point(`rename ${a} ${b}`);
  }

  unlink(path: string): void {
    this.#call("unlink");
    const name = this.#name(path);
    if (!this.#entries.delete(name)) throw errnoError("ENOENT", "unlink");
    this.#pendingDir.push({ kind: "unlink", name });
    this.#point(`unlink ${name}`);
  }

  close(fd: number): void {
    this.#call("close");
    if (!this.#fds.delete(fd)) throw errnoError("EBADF", "close");
  }

  euid(): number {
    return 0;
  }
}

/** One choice of what survived, for a given inode: how many pending ops, and how the last tore. */
export interface InodeChoice {
  readonly keep: number;
  /** Bytes kept of the last kept write (when it is a write); undefined = all of it. */
  readonly tearAt?: number;
  /** Fill the torn remainder with zeros (the size reached the disk, the data did not). */
  readonly zeros?: boolean;
}

/** Materialise one crash state: the directory prefix `dirKeep`, and per inode its choice. */
export function materialize(
  p: CrashPoint,
  dirKeep: number,
  choose: (ino: number, pending: readonly FileOp[]) => InodeChoice,
): Map<string, Uint8Array> {
  const entries = applyDirOps(p.durableEntries, p.pendingDir.slice(0, dirKeep));
  const out = new Map<string, Uint8Array>();
  for (const [name, ino] of entries) {
    const i = p.inodes.get(ino);
    if (i === undefined) continue;
    const c = choose(ino, i.pending);
    const ops = i.pending.slice(0, c.keep);
    const last = ops[ops.length - 1];
    if (last !== undefined && last.kind === "write" && c.tearAt !== undefined) {
      const kept = last.bytes.subarray(0, c.tearAt);
      const torn = c.zeros
        ? Buffer.concat([kept, Buffer.alloc(last.bytes.length - kept.length)])
        : kept;
      ops[ops.length - 1] = { kind: "write", offset: last.offset, bytes: torn };
    }
    out.set(name, applyFileOps(i.durable, ops));
  }
  return out;
}

/** Every choice for one inode's pending ops: each prefix, and each tear of the last kept write. */
export function inodeChoices(
  pending: readonly FileOp[],
  tearOffsets: (write: { offset: number; length: number }) => number[],
): InodeChoice[] {
  const out: InodeChoice[] = [{ keep: 0 }];
  for (let keep = 1; keep <= pending.length; keep++) {
    out.push({ keep });
    const last = pending[keep - 1];
    if (last === undefined || last.kind !== "write") continue;
    for (const at of tearOffsets({ offset: last.offset, length: last.bytes.length })) {
      out.push({ keep, tearAt: at, zeros: false });
      out.push({ keep, tearAt: at, zeros: true });
    }
  }
  return out;
}

export type { DirOp, FileOp };
