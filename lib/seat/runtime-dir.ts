/**
 * The seat's private runtime directory: ours, 0700, not a symlink (reliability-plan.md §1.2: the
 * trust anchor of a unix socket is its directory, as in tmux, gnupg and OpenSSH). It holds the
 * leader socket and lock (`--leader-socket <dir>/leader.sock`; grok creates neither directory nor
 * mode, grok-leader-protocol.md §1), the admission lock and fence journal, a temporary profile
 * when one is used, and the seat record.
 */
import { lstatSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import { type KernelPort, systemKernel } from "../kernel/index.js";
import { octal } from "../proof/socket.js";

export const SOCKET_NAME = "leader.sock";
export const RECORD_NAME = "seat.json";

function euid(): number {
  return typeof process.geteuid === "function" ? process.geteuid() : -1;
}

/** The lstat checks of a directory that must be private to us. Pure apart from the one lstat. */
export function checkPrivateDir(dir: string, prefix = "runtime_dir"): CheckResult[] {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (st === undefined) return [fail(`${prefix}.exists`, dir, null, `${dir} does not exist`)];
  const mode = st.mode & 0o7777;
  return [
    pass(`${prefix}.exists`, dir, dir),
    st.isSymbolicLink()
      ? fail(`${prefix}.symlink`, false, true, `${dir} is a symlink`)
      : pass(`${prefix}.symlink`, false, false),
    expectEqual(
      `${prefix}.type`,
      "directory",
      st.isDirectory() ? "directory" : "other",
      `${dir} is not a directory`,
    ),
    expectEqual(`${prefix}.owner`, euid(), st.uid, `${dir} is owned by another user`),
    (mode & 0o077) === 0
      ? pass(`${prefix}.mode`, "no group/other bits", octal(mode))
      : fail(
          `${prefix}.mode`,
          "no group/other bits",
          octal(mode),
          `${dir} grants access to group or others (mode ${octal(mode)})`,
        ),
  ];
}

/** bind()/connect() take at most sun_path bytes (107 on Linux, 103 on macOS). */
export function checkSocketPathLength(
  socketPath: string,
  kernel: KernelPort = systemKernel,
): CheckResult {
  const max = kernel.kernelInfo().sunPathMax;
  const bytes = Buffer.byteLength(socketPath);
  return bytes <= max
    ? pass("runtime_dir.socket_path_length", `<= ${max} bytes`, bytes)
    : fail(
        "runtime_dir.socket_path_length",
        `<= ${max} bytes`,
        bytes,
        `${socketPath} is too long for a unix socket (${bytes} > ${max} bytes)`,
      );
}

export interface RuntimeDir {
  /** Canonical path (symlinks of the base resolved, so the kernel reports the same path). */
  readonly dir: string;
  readonly socketPath: string;
  readonly checks: readonly CheckResult[];
}

/**
 * Create a fresh private directory under `base` (default: the system temp dir). mkdtemp(3)
 * creates it 0700 with a random name that cannot already exist; the checks then confirm it.
 */
export function createRuntimeDir(
  base: string = tmpdir(),
  kernel: KernelPort = systemKernel,
): RuntimeDir {
  const parent = realpathSync(base);
  const dir = mkdtempSync(join(parent, "grok-seat-"));
  const socketPath = join(dir, SOCKET_NAME);
  return {
    dir,
    socketPath,
    checks: [...checkPrivateDir(dir), checkSocketPathLength(socketPath, kernel)],
  };
}

export function removeRuntimeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
