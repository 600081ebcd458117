/**
 * lstat facts of a unix socket path and its parent directory, and the pids listening on that very
 * file. Linux: sock_diag UDIAG_SHOW_VFS matched on dev+ino, then /proc/<pid>/fd holders; for one
 * known pid, an exact sock_diag lookup of each of its socket fds instead of the dump. macOS:
 * the kernel resolves the path by a connect(), the listener's pid comes from LOCAL_PEERTOKEN and
 * is kept only when that process holds the listening socket; an fd scan then finds every holder of
 * that same socket. docs/design/kernel-proofs.md §1.2, §2.4.
 */
import { dirname, resolve } from "node:path";
import { optionalBoolean, requireOptions, requirePath, requirePid } from "./arguments.js";
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

export interface SocketFactsOptions {
  /**
   * Check only this process (the proof path: the lock file's pid, the peer of our connection).
   * Only its fd table is read, so the cost does not grow with the number of processes; `listeners`
   * is then `[pid]` or `[]`. A pid that is gone holds nothing (`[]`); a pid whose fds we may not
   * read is KernelError ACCESS_DENIED (an unreadable proof is not a negative one). The answer is
   * about whatever process has that pid now: pair it with the identity you recorded
   * (processFacts before and after, or a ProcessHandle).
   */
  readonly pid?: number;
  /**
   * Without `pid`: scan every process we may inspect (true), instead of only the processes whose
   * effective uid is ours (the default). A listener we may trust is ours, and skipping another
   * user's process costs one stat instead of reading its whole fd table (Linux: the owner of
   * /proc/<pid>; macOS: proc_listpids PROC_UID_ONLY). Only root can read other users' fd tables,
   * so this changes the answer only for root. Ignored with `pid`.
   */
  readonly allUsers?: boolean;
}

/**
 * Facts of a socket path (made absolute against the cwd).
 *
 * Without `options.pid`, `listeners` is every process of our effective uid holding a listening
 * socket bound to this very file (the CLI's "all listeners" view): a scan, in which another
 * user's process costs one stat. `options.allUsers` scans every process whose fd table we may
 * read instead (all of them as root). With `options.pid`, only that process is checked.
 *
 * `listeningSockets` counts the listening sockets bound to this file, whoever holds them. Linux:
 * sock_diag's table (capped at 64). macOS: 1 when a connect() to the path reached a listener,
 * 0 when it was refused (stale socket, or a listener whose backlog is full), null only when we
 * may not connect (no write permission on the socket). On macOS this costs one connection: the
 * server sees a client connect and close without sending a byte.
 *
 * Throws UsageError INVALID_ARGUMENT for a path that is not a non-empty string, is longer than
 * sun_path allows, or a bad `options.pid`; KernelError SYSCALL_FAILED with errno ENOENT (syscall
 * `lstat(path)` / `lstat(dir)`) when it does not exist, ACCESS_DENIED when a directory on the way
 * is not searchable.
 */
export function socketFacts(path: string, options?: SocketFactsOptions): SocketFacts {
  requirePath(path, "socketFacts");
  const option = requireOptions(options, "socketFacts");
  const pidOption = option("pid");
  const allUsers = optionalBoolean(option("allUsers"), "socketFacts", "allUsers") ?? false;
  let pid: number | null = null;
  if (pidOption !== undefined) {
    requirePid(pidOption, "socketFacts");
    pid = pidOption;
  }
  const abs = resolve(path);
  const dir = dirname(abs);
  const raw = parseNative(
    RawSocketFacts,
    callNative((n) => n.socketFacts(abs, dir, pid, allUsers)),
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
