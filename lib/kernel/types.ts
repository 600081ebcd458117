/**
 * The typed surface of the kernel-proofs addon: the contract every other layer codes against.
 * Only `lib/kernel/` loads the addon; everything here is plain data (docs/design/style.md, habit 9).
 * 64-bit kernel numbers (inodes, devices, unique ids) are decimal strings, never floats.
 */

/** The five ways a kernel read can fail (docs/design/kernel-proofs.md §3 "Both OSes"). */
export type KernelFailureCode =
  | "NO_SUCH_PROCESS"
  | "ACCESS_DENIED"
  | "ZOMBIE"
  | "UNSUPPORTED"
  | "SYSCALL_FAILED";

/**
 * A process identity stronger than (pid, start time).
 * - `linux-pidfs`: value `<boot_id>:<pidfs inode>` (kernel >= 6.9, f_type checked); unique per boot.
 * - `linux-boot-ticks`: value `<boot_id>:<pid>:<starttime ticks>`; weaker (10 ms ticks, see docs/design/kernel-proofs.md §3).
 * - `darwin-uniqueid`: value `<kern.bootsessionuuid>:<p_uniqueid>`; unique per boot, kept across exec.
 */
export interface ProcessIdentity {
  readonly kind: "linux-pidfs" | "linux-boot-ticks" | "darwin-uniqueid";
  readonly value: string;
}

export interface ProcessFacts {
  readonly pid: number;
  readonly ppid: number;
  readonly uid: number;
  readonly euid: number;
  /**
   * Canonical path of the executable; null when the kernel gives no path: Linux kernel threads,
   * and on macOS an executable whose file was deleted (proc_pidpath refuses a text vnode whose last
   * path no longer resolves, xnu bsd/kern/proc_info.c proc_pidpathinfo_internal), where Linux
   * still gives the last path.
   */
  readonly executable: string | null;
  /**
   * True when the file the process was exec'd from is no longer at `executable`: deleted, or
   * replaced (renamed over, as a self-update does). Linux: the kernel's " (deleted)" mark on an
   * inode with no names left. macOS: the path no longer resolves (then `executable` is null), or
   * the file now there carries none of the process's Mach-O LC_UUIDs (flavor 17 p_uuid).
   */
  readonly executableDeleted: boolean;
  readonly cwd: string | null;
  /** Controlling terminal as a device path (`/dev/pts/3`, `/dev/ttys004`) or null. */
  readonly tty: string | null;
  /** Birth as epoch microseconds. */
  readonly startTimeUs: number;
  /** The honest precision of startTimeUs: 1 on macOS, 10 000 (one USER_HZ tick) on Linux. */
  readonly startTimePrecisionUs: number;
  readonly identity: ProcessIdentity;
}

export type FileType = "socket" | "file" | "directory" | "symlink" | "fifo" | "char" | "block";

export interface SocketDirFacts {
  readonly path: string;
  readonly type: FileType;
  readonly uid: number;
  /** Permission bits (st_mode & 07777). */
  readonly mode: number;
  readonly isSymlink: boolean;
}

/** lstat facts of a socket path, its parent directory, and who listens on it. */
export interface SocketFacts {
  readonly path: string;
  readonly type: FileType;
  readonly inode: string;
  readonly device: string;
  readonly uid: number;
  readonly mode: number;
  readonly dir: SocketDirFacts;
  /**
   * Pids holding a listening socket bound to this very file, among the processes of our effective
   * uid (`{ allUsers: true }`: every process whose fds we may read, all of them as root); with
   * `socketFacts(path, { pid })` only that pid is checked.
   * Linux: sock_diag's listening sockets whose bound dev+ino is this file, then their holders in
   * /proc/<pid>/fd. macOS (no inode of a bound socket in libproc): a connect() to the path lets the
   * kernel resolve the file's listening socket; LOCAL_PEERTOKEN names its last user, kept only when
   * that process holds the listening socket (so a recycled pid is never named); then every holder
   * of that same kernel socket. A process listening on an unlinked or replaced file of the same
   * name is not a listener on either OS.
   */
  readonly listeners: readonly number[];
  /**
   * Listening sockets bound to this file, whoever holds them: tells a stale socket (0) from a
   * listener whose pid we cannot see (> 0 with no `listeners`, e.g. another user's). Linux: the
   * kernel's table (sock_diag), capped at 64. macOS: 1 when a connect() to the path reached a
   * listener, 0 when it was refused (no listener, or its backlog is full); that connect is seen by
   * the server as a client that closes without a byte. Null only on macOS when we may not connect
   * (no write permission on the socket file): then `listeners` falls back to matching the name
   * each listener bound, which cannot tell this file from an unlinked one of the same name.
   */
  readonly listeningSockets: number | null;
}

/**
 * Credentials of the peer of a connected unix stream socket our process holds.
 *
 * `uid` and `gid` are the peer's effective uid and gid as the kernel captured them when the
 * connection was made: at connect() for a client, at listen() for a server, at socketpair() for a
 * pair (Linux SO_PEERCRED; macOS LOCAL_PEERCRED's cr_uid and cr_groups[0]). They do not follow a
 * later setuid(). `pid` is the peer process: Linux, the one SO_PEERCRED captured at the same time;
 * macOS, the last process that used the peer socket (its last_pid, read through LOCAL_PEERTOKEN
 * at the time of the call), which for a server is the listener until it accept()s.
 */
export interface PeerCredentials {
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
  /**
   * The identity of the process at `pid`, only where the kernel proves it is the peer: Linux, the
   * pidfd SO_PEERPIDFD gives for exactly the captured process (kernel >= 6.5); macOS, when the
   * process LOCAL_PEERTOKEN names still has the token's pidversion and holds the other end of this
   * connection (an fd on the peer socket, or before accept() the listening socket our connection
   * waits on). Null otherwise (older Linux, a peer that exited, another user's process on macOS,
   * whose fds we may not read), and a proof that needs it fails by name.
   */
  readonly identity: ProcessIdentity | null;
  readonly method: "SO_PEERPIDFD" | "SO_PEERCRED" | "LOCAL_PEERTOKEN";
}

/**
 * A handle on one process for safe signalling and exit observation (Linux pidfd; macOS identity
 * re-check + proc_signal_with_audittoken where present). It can never signal another process that
 * later gets the same pid: a changed identity refuses with NO_SUCH_PROCESS.
 */
export interface ProcessHandle {
  readonly pid: number;
  readonly identity: ProcessIdentity;
  /** Send a signal (name like "SIGTERM" or number). Throws KernelError when the process is gone. */
  signal(signal: NodeJS.Signals | number): void;
  /** True while the process has not exited (zombies count as exited). */
  isAlive(): boolean;
  /**
   * Resolves when the kernel reports that this very process exited, at once for a handle opened
   * on an exited process that is not reaped yet (a zombie): a handle opens on one on both OSes.
   */
  readonly exited: Promise<void>;
  /** Release the kernel handle (the pidfd). Idempotent. */
  close(): void;
}

export interface KernelInfo {
  readonly platform: "linux" | "darwin";
  readonly release: string;
  /** Linux boot_id or macOS kern.bootsessionuuid. */
  readonly bootId: string;
  /** pidfs inodes are usable identities (Linux >= 6.9). */
  readonly pidfsIdentity: boolean;
  /** SO_PEERPIDFD is available (Linux >= 6.5). */
  readonly peerPidfd: boolean;
}
