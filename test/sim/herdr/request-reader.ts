// Reading a connection the way Herdr does (src/api/server.rs read_initial_request_line_with_limits,
// src/ipc.rs probe_stream_closed): straight from the socket, never past the request line. Node
// would read everything the client sent into its own buffers; Herdr leaves whatever follows the
// line (or the part of an over-long line past 1 MiB) unread in the kernel, and closing a unix
// socket with unread input makes the peer's next read fail with ECONNRESET instead of EOF
// (net/unix/af_unix.c unix_release_sock sets sk_err on the peer). So the server accepts with
// `pauseOnConnect` (libuv never reads) and reads the fd itself, byte by byte like Herdr.
import { readSync } from "node:fs";
import type { Socket } from "node:net";

/** Lines longer than this are read in blocks (a 1 MiB line byte by byte takes seconds). */
const BYTEWISE_LIMIT = 64 * 1024;
const BLOCK = 64 * 1024;

export type ReadResult = Buffer | "pending" | "closed";

/** The socket's file descriptor (libuv's pipe handle), or null where Node hides it. */
export function socketFd(socket: Socket): number | null {
  const handle = (socket as unknown as { _handle?: { fd?: unknown } })._handle;
  return typeof handle?.fd === "number" && handle.fd >= 0 ? handle.fd : null;
}

/** One non-blocking read of at most `max` bytes: data, nothing yet, or EOF/error. */
export function readSome(fd: number, max: number): ReadResult {
  const buf = Buffer.alloc(max);
  try {
    const n = readSync(fd, buf, 0, max, null);
    return n === 0 ? "closed" : buf.subarray(0, n);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "EAGAIN" || code === "EWOULDBLOCK" || code === "EINTR" ? "pending" : "closed";
  }
}

export type LineOutcome =
  | { readonly kind: "line"; readonly bytes: Buffer }
  | { readonly kind: "drop" }
  | { readonly kind: "pending" };

/**
 * The request line so far. `step` reads what is available: the whole line (with its newline),
 * `drop` on EOF, a read error or more than `maxBytes` without a newline, or `pending`.
 */
export class RequestLineReader {
  private readonly fd: number;
  private readonly maxBytes: number;
  private line = Buffer.alloc(1024);
  private size = 0;
  private readonly one = Buffer.alloc(1);

  constructor(fd: number, maxBytes: number) {
    this.fd = fd;
    this.maxBytes = maxBytes;
  }

  private append(bytes: Buffer): void {
    if (this.size + bytes.length > this.line.length) {
      const grown = Buffer.alloc(Math.max(this.line.length * 2, this.size + bytes.length));
      this.line.copy(grown, 0, 0, this.size);
      this.line = grown;
    }
    bytes.copy(this.line, this.size);
    this.size += bytes.length;
  }

  step(): LineOutcome {
    for (;;) {
      // Herdr stops after the byte that made the line too long: never read beyond it.
      const want = this.size < BYTEWISE_LIMIT ? 1 : Math.min(BLOCK, this.maxBytes + 1 - this.size);
      const r = want === 1 ? this.readOne() : readSome(this.fd, want);
      if (r === "pending") return { kind: "pending" };
      if (r === "closed") return { kind: "drop" };
      const newline = r.indexOf(0x0a);
      const content = newline < 0 ? r.length : newline;
      if (this.size + content > this.maxBytes) return { kind: "drop" };
      this.append(newline < 0 ? r : r.subarray(0, newline + 1));
      if (newline >= 0) return { kind: "line", bytes: this.line.subarray(0, this.size) };
    }
  }

  /** One byte into a reused buffer (the common path: most request lines are short). */
  private readOne(): ReadResult {
    try {
      return readSync(this.fd, this.one, 0, 1, null) === 0 ? "closed" : this.one;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === "EAGAIN" || code === "EWOULDBLOCK" || code === "EINTR" ? "pending" : "closed";
    }
  }
}

/** probe_stream_closed: one byte read; data or EOF both mean the client is done. */
export function peerDone(fd: number): boolean {
  return readSome(fd, 1) !== "pending";
}
