/**
 * Read a small regular file we were pointed at (a saved record), bounded: opened with O_NOFOLLOW
 * (a symlink is refused, not followed) and O_NONBLOCK (a FIFO or a device never blocks the open
 * or the read), then fstat'ed on the open fd: anything but a regular file is refused before a byte
 * is read, and reading stops one byte past `maxBytes` (a file that grows, or a /proc file whose
 * size says 0, cannot make us read more). Every failure is a `FileReadError` with a stable code.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { GrokSeatError } from "../errors.js";
import { requireCount, requirePath } from "./arguments.js";

export type FileReadErrorCode =
  /** open/fstat/read failed (errno in details), including a symlink (ELOOP under O_NOFOLLOW). */
  | "FILE_UNREADABLE"
  /** A FIFO, socket, device or directory. */
  | "FILE_NOT_REGULAR"
  /** More than `maxBytes`. */
  | "FILE_TOO_LARGE";

export class FileReadError extends GrokSeatError<FileReadErrorCode> {}

export interface RegularFile {
  readonly bytes: Buffer;
  /** fstat of the open file: its owner and permission bits. */
  readonly uid: number;
  readonly mode: number;
}

function unreadable(path: string, op: string, cause: unknown): FileReadError {
  const errno = cause instanceof Error ? Reflect.get(cause, "code") : undefined;
  const code = typeof errno === "string" ? errno : "error";
  const why = code === "ELOOP" ? "a symlink (not followed)" : code;
  return new FileReadError("FILE_UNREADABLE", `cannot ${op} ${path}: ${why}`, {
    details: { path, op, errno: typeof errno === "string" ? errno : null },
    cause,
  });
}

export function readRegularFile(path: string, maxBytes: number): RegularFile {
  requirePath(path, "readRegularFile");
  requireCount(maxBytes, "readRegularFile", "maxBytes");
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (cause) {
    throw unreadable(path, "open", cause);
  }
  try {
    let st: ReturnType<typeof fstatSync>;
    try {
      st = fstatSync(fd);
    } catch (cause) {
      throw unreadable(path, "fstat", cause);
    }
    if (!st.isFile()) {
      throw new FileReadError("FILE_NOT_REGULAR", `${path} is not a regular file`, {
        details: { path },
      });
    }
    const buf = Buffer.alloc(Math.min(maxBytes, Math.max(st.size, 4096)) + 1);
    let bytes = buf;
    let filled = 0;
    for (;;) {
      if (filled === bytes.length) {
        const grown = Buffer.alloc(Math.min(maxBytes + 1, bytes.length * 2));
        bytes.copy(grown);
        bytes = grown;
      }
      let n: number;
      try {
        n = readSync(fd, bytes, filled, bytes.length - filled, null);
      } catch (cause) {
        throw unreadable(path, "read", cause);
      }
      if (n === 0) break;
      filled += n;
      if (filled > maxBytes) {
        throw new FileReadError("FILE_TOO_LARGE", `${path} is larger than ${maxBytes} bytes`, {
          details: { path, maxBytes, size: Math.max(st.size, filled) },
        });
      }
    }
    return { bytes: bytes.subarray(0, filled), uid: st.uid, mode: st.mode & 0o7777 };
  } finally {
    closeSync(fd);
  }
}
