/**
 * The typed surface of the kernel-proofs addon: the contract every other layer codes against.
 * Only `lib/kernel/` loads the addon; everything here is plain data (style.md, habit 9).
 * 64-bit kernel numbers (inodes, devices, unique ids) are decimal strings, never floats.
 */

/** The five ways a kernel read can fail (kernel-proofs.md §3 "Both OSes"). */
export type KernelFailureCode =
  | "NO_SUCH_PROCESS"
  | "ACCESS_DENIED"
  | "ZOMBIE"
  | "UNSUPPORTED"
  | "SYSCALL_FAILED";

/**
 * A process identity stronger than (pid, start time).
 * - `linux-pidfs`: value `<boot_id>:<pidfs inode>` (kernel >= 6.9, f_type checked); unique per boot.
 * - `linux-boot-ticks`: value `<boot_id>:<pid>:<starttime ticks>`; weaker (10 ms ticks, see kernel-proofs.md §3).
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
  /** Canonical path of the executable; null only when the kernel gives no path. */
  readonly executable: string | null;
  /** True when the executable file was deleted or replaced after exec (Linux " (deleted)"). */
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
  /** Pids holding a listening socket bound to this very file (dev+ino on Linux; bound path on macOS). */
  readonly listeners: readonly number[];
  /**
   * Listening sockets bound to this file in the kernel's socket table, whoever holds them (Linux
   * sock_diag; capped at 64). Tells a stale socket (0) from another user's listener whose pid we
   * cannot see (> 0 with no `listeners`). Null where the platform cannot tell (macOS).
   */
  readonly listeningSockets: number | null;
}

/** Credentials of the peer of a connected unix socket our process holds. */
export interface PeerCredentials {
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
  /** The peer's identity from SO_PEERPIDFD / LOCAL_PEERTOKEN; null when the kernel cannot give one. */
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
  /** Resolves when the kernel reports that this very process exited. */
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
