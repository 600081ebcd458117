/**
 * The private-socket proof (docs/design/reliability-plan.md §1.2: the trust anchor is the directory, as in
 * tmux, gnupg and OpenSSH): the address is a filesystem path that fits `sun_path`; the directory
 * is a real directory (not a symlink), owned by the expected uid, with no group or other bits;
 * the path is a socket owned by that uid; something listens on that very file (`socket.listener`:
 * not a stale socket) and a process we can see holds that listener (`socket.listener_pid`: not
 * another user's). Pure: facts in, CheckResult values out.
 */
import { constants } from "node:os";
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import type { SocketDirFacts, SocketFacts } from "../kernel/index.js";

/** Octal mode string, e.g. 0o700 -> "0700". */
export function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

export interface PrivateSocketExpectation {
  /** The uid that must own the directory and the socket (usually process.getuid()). */
  readonly uid: number;
}

/**
 * The address itself, before any file is looked at (docs/design/reliability-plan.md §6 T4): an abstract name
 * (a leading NUL) has no directory and no file mode to prove (containerd CVE-2020-15257), and a
 * path longer than `sun_path` cannot be connected to as given (a client that truncates it would
 * reach another file). `path` is the absolute path, or the abstract name as given.
 */
export function checkSocketAddress(path: string, sunPathMax: number): CheckResult[] {
  const bytes = Buffer.byteLength(path);
  return [
    path.includes("\0")
      ? fail(
          "socket.abstract_address",
          "a filesystem path",
          "abstract",
          "an abstract-namespace address has no directory or file mode that could prove it private",
        )
      : pass("socket.abstract_address", "a filesystem path", "path"),
    bytes <= sunPathMax
      ? pass("socket.path_length", `<= ${sunPathMax} bytes`, bytes)
      : fail(
          "socket.path_length",
          `<= ${sunPathMax} bytes`,
          bytes,
          `the socket path is ${bytes} bytes, longer than sun_path allows (${sunPathMax})`,
        ),
  ];
}

/** The directory checks alone (also when the socket inside cannot be looked at). */
export function checkSocketDir(
  dir: SocketDirFacts,
  expected: PrivateSocketExpectation,
): CheckResult[] {
  const dirMode =
    (dir.mode & 0o077) === 0
      ? pass("socket.dir_mode", "no group/other bits", octal(dir.mode))
      : fail(
          "socket.dir_mode",
          "no group/other bits",
          octal(dir.mode),
          `${dir.path} grants access to group or others (mode ${octal(dir.mode)})`,
        );
  return [
    dir.isSymlink
      ? fail("socket.dir_symlink", false, true, `${dir.path} is a symlink`)
      : pass("socket.dir_symlink", false, false),
    expectEqual("socket.dir_type", "directory", dir.type, `${dir.path} is not a directory`),
    expectEqual("socket.dir_owner", expected.uid, dir.uid, `${dir.path} is owned by another user`),
    dirMode,
  ];
}

export function checkPrivateSocket(
  facts: SocketFacts,
  expected: PrivateSocketExpectation,
): CheckResult[] {
  return [
    ...checkSocketDir(facts.dir, expected),
    expectEqual("socket.type", "socket", facts.type, `${facts.path} is not a socket`),
    expectEqual("socket.owner", expected.uid, facts.uid, `${facts.path} is owned by another user`),
    ...checkListener(facts),
  ];
}

/**
 * Two questions apart: does anything listen on this file at all (the kernel's socket table, whoever
 * holds it), and is the holder a process we can see. Where the platform cannot see other users'
 * sockets (`listeningSockets` null, macOS), a listener is only known through its visible pid, so
 * both checks follow the visible pids and a stale socket and a foreign listener look alike.
 */
function checkListener(facts: SocketFacts): CheckResult[] {
  const pids = [...facts.listeners];
  const listening = facts.listeningSockets ?? pids.length;
  return [
    listening > 0
      ? pass("socket.listener", "a listening socket bound to this file", listening)
      : fail(
          "socket.listener",
          "a listening socket bound to this file",
          0,
          facts.listeningSockets === null
            ? `no process we can see listens on ${facts.path} (stale socket, or another user's)`
            : `nothing listens on ${facts.path}: a stale socket`,
        ),
    pids.length > 0
      ? pass("socket.listener_pid", "a listening pid we can see", pids)
      : fail(
          "socket.listener_pid",
          "a listening pid we can see",
          [],
          listening > 0
            ? `${facts.path} has a listener whose process we cannot see: another user's`
            : `no process listens on ${facts.path}`,
        ),
  ];
}

/** The socket path could not be looked at: it does not exist, or a directory is not searchable. */
export function checkSocketUnreadable(
  path: string,
  error: { readonly code: string; readonly errno?: number; readonly message: string },
): CheckResult {
  const missing = error.errno === constants.errno.ENOENT;
  return fail(
    "socket.exists",
    "an existing socket path",
    missing ? null : error.code,
    missing
      ? `${path} (or its directory) does not exist`
      : `${path} cannot be looked at: ${error.message}`,
  );
}
