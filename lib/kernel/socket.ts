/**
 * lstat facts of a unix socket path and its parent directory, and the pids listening on that very
 * file (Linux: sock_diag UDIAG_SHOW_VFS matched on dev+ino, then /proc/<pid>/fd holders;
 * macOS: PROC_PIDFDSOCKETINFO bound path + SO_ACCEPTCONN). kernel-proofs.md §1.2, §2.4.
 */
import { dirname, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { RawSocketFacts } from "./binding.js";
import { KernelError } from "./kernel-error.js";
import { callNative, parseNative } from "./loader.js";
import type { FileType, SocketFacts } from "./types.js";

function fileType(type: FileType | "other", syscall: string): FileType {
  if (type === "other") {
    throw new KernelError("SYSCALL_FAILED", {
      pid: null,
      syscall,
      errno: 0,
      message: `SYSCALL_FAILED: ${syscall} reported a file type grok-seat does not know`,
    });
  }
  return type;
}

/**
 * Facts of a socket path (made absolute against the cwd). Throws UsageError INVALID_ARGUMENT for
 * an empty path or one longer than sun_path allows; KernelError SYSCALL_FAILED with errno ENOENT
 * (syscall `lstat(path)` / `lstat(dir)`) when it does not exist, ACCESS_DENIED when a directory
 * on the way is not searchable. Listeners are only those whose fd table we may read (our own
 * processes, or all as root).
 */
export function socketFacts(path: string): SocketFacts {
  if (path === "") throw new UsageError("INVALID_ARGUMENT", "the socket path is empty");
  const abs = resolve(path);
  const dir = dirname(abs);
  const raw = parseNative(
    RawSocketFacts,
    callNative((n) => n.socketFacts(abs, dir, null)),
    "socketFacts",
  );
  const dirType = fileType(raw.dir.type, "lstat(dir)");
  return {
    path: abs,
    type: fileType(raw.file.type, "lstat(path)"),
    inode: raw.file.inode,
    device: raw.file.device,
    uid: raw.file.uid,
    mode: raw.file.mode,
    dir: {
      path: dir,
      type: dirType,
      uid: raw.dir.uid,
      mode: raw.dir.mode,
      isSymlink: dirType === "symlink",
    },
    listeners: [...new Set(raw.listeners)].sort((a, b) => a - b),
    listeningSockets: raw.listeningSockets,
  };
}
