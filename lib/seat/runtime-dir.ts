/**
 * The seat's private runtime directory: ours, 0700, not a symlink (docs/design/reliability-plan.md §1.2: the
 * trust anchor of a unix socket is its directory, as in tmux, gnupg and OpenSSH), made in a base
 * whose every directory up to `/` nobody else can rename it out of (lib/proof/safe-path.ts, as
 * OpenSSH's StrictModes), and held open from creation to launch, when the path must still name the
 * directory we made (`checkHeldDir`). It holds the leader socket and lock (`--leader-socket
 * <dir>/leader.sock`; grok creates neither directory nor mode, docs/design/grok-leader-protocol.md §1), the
 * admission lock and fence journal, a temporary profile when one is used, and the seat record.
 */
import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import { GrokSeatError } from "../errors.js";
import { type KernelPort, pathAncestry, systemKernel } from "../kernel/index.js";
import { checkSafePath } from "../proof/safe-path.js";
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

/** The runtime directory as created: its path and the open fd that pins its identity. */
export interface HeldDir {
  readonly path: string;
  readonly fd: number;
  readonly device: string;
  readonly inode: string;
}

export interface RuntimeDir {
  /** Canonical path (symlinks of the base resolved, so the kernel reports the same path). */
  readonly dir: string;
  readonly socketPath: string;
  readonly checks: readonly CheckResult[];
  /** Open until launch (or until a refused hire closes it). */
  readonly held: HeldDir;
}

/**
 * `runtime_dir.base`: the canonical base and every directory above it are ours or root's and not
 * writable by group or others unless sticky. With a 0777 non-sticky base another user could rename
 * our fresh directory away and put theirs, with their `config.toml`, in its place before launch.
 */
export function checkRuntimeBase(
  base: string,
  uid: number = euid(),
): {
  parent: string;
  check: CheckResult;
} {
  const parent = realpathSync(base);
  return { parent, check: checkSafePath("runtime_dir.base", pathAncestry(parent), uid) };
}

/**
 * Create a fresh private directory under `base` (default: the system temp dir) once the base is
 * safe (RUNTIME_DIR_UNSAFE, nothing created, otherwise). mkdtemp(3) creates it 0700 with a random
 * name that cannot already exist; it is opened at once (O_DIRECTORY|O_NOFOLLOW) and the checks
 * then confirm, on the path and on the fd, that it is ours, 0700 and the same directory.
 */
export function createRuntimeDir(
  base: string = tmpdir(),
  kernel: KernelPort = systemKernel,
): RuntimeDir {
  const { parent, check } = checkRuntimeBase(base);
  if (!check.ok) {
    throw new GrokSeatError("RUNTIME_DIR_UNSAFE", check.reason ?? "unsafe runtime base", {
      details: { check: check.check, received: check.received },
    });
  }
  const dir = mkdtempSync(join(parent, "grok-seat-"));
  const held = holdDir(dir);
  const socketPath = join(dir, SOCKET_NAME);
  return {
    dir,
    socketPath,
    held,
    checks: [
      check,
      ...checkPrivateDir(dir),
      checkHeldDir(held),
      checkSocketPathLength(socketPath, kernel),
    ],
  };
}

/** Open a directory without following a symlink and keep the fd: it pins the identity. */
export function holdDir(path: string): HeldDir {
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd, { bigint: true });
    return { path, fd, device: String(st.dev), inode: String(st.ino) };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * `runtime_dir.identity`: the path still names the directory we hold (lstat dev+ino equal the
 * fd's), and that directory is still ours and 0700 (fstat on the fd).
 */
export function checkHeldDir(held: HeldDir, uid: number = euid()): CheckResult {
  const expected = { device: held.device, inode: held.inode, uid, mode: "0700" };
  let now: BigIntStats;
  let pinned: BigIntStats;
  try {
    now = lstatSync(held.path, { bigint: true });
    pinned = fstatSync(held.fd, { bigint: true });
  } catch (err) {
    const code = err instanceof Error ? String(Reflect.get(err, "code")) : "error";
    return fail(
      "runtime_dir.identity",
      expected,
      { error: code },
      `${held.path} is gone (${code})`,
    );
  }
  const received = {
    device: String(now.dev),
    inode: String(now.ino),
    uid: Number(pinned.uid),
    mode: octal(Number(pinned.mode & 0o7777n)),
  };
  if (received.device !== held.device || received.inode !== held.inode || now.isSymbolicLink()) {
    return fail(
      "runtime_dir.identity",
      expected,
      received,
      `${held.path} no longer names the directory we created: it was renamed away and replaced`,
    );
  }
  return expectEqual(
    "runtime_dir.identity",
    expected,
    received,
    `${held.path} is no longer ours with mode 0700`,
  );
}

/**
 * Close the held fd; remove the directory only while the path still names it, so a directory
 * someone put in its place is never removed by us.
 */
export function letGoDir(held: HeldDir, remove: boolean): void {
  try {
    if (remove && stillNames(held)) removeRuntimeDir(held.path);
  } finally {
    closeSync(held.fd);
  }
}

function stillNames(held: HeldDir): boolean {
  const st = lstatSync(held.path, { bigint: true, throwIfNoEntry: false });
  return (
    st?.isDirectory() === true && String(st.dev) === held.device && String(st.ino) === held.inode
  );
}

export function removeRuntimeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
