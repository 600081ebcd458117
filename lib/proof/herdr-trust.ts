/**
 * Is the Herdr server ours? Pure checks from the session descriptor (lib/proof/session-descriptor.ts)
 * and the lstat facts of the socket's directory and every directory above it:
 * - `herdr.socket_owner`: the socket file is owned by our uid;
 * - `herdr.socket_dir`: its directory is ours and writable by no one else, and every directory
 *   above it is ours or root's and not group/other-writable unless sticky (lib/proof/safe-path.ts).
 *   Herdr makes its own directories with create_dir_all under the user's umask and its socket 0600
 *   (src/ipc.rs `prepare_socket_path`, src/api/server.rs `SOCKET_PERMISSION_MODE`), so its default
 *   places (`~/.config/herdr`, `<tmp>/herdr` when HOME is unset, `sessions/<name>`) pass when they
 *   are ours; the same path made first by another user (`/tmp/herdr` under cron or `env -i`) fails;
 * - `herdr.server_uid`: the process that listens (peer credentials of our own connection) runs as
 *   our uid.
 * Until all three pass nothing but `ping` is sent (the client's gate, lib/observe/herdr-trust.ts):
 * a request carries our env, cwd, socket paths and session ids.
 */
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import type { PathEntry } from "../kernel/index.js";
import { checkOwnDir, checkSafePath } from "./safe-path.js";
import type { SessionDescriptor } from "./session-descriptor.js";

/** What ties a Herdr server to us, besides its descriptor. */
export interface HerdrTie {
  /** Our uid: the owner the socket, its directory and the server process must have. */
  readonly uid: number;
  /** lstat of the socket's directory first, then every directory above it up to `/`. */
  readonly socketDir: readonly PathEntry[];
}

export const HERDR_TRUST_CHECKS = ["herdr.socket_owner", "herdr.socket_dir", "herdr.server_uid"];

export function checkSocketDir(tie: HerdrTie): CheckResult {
  const own = checkOwnDir("herdr.socket_dir", tie.socketDir[0], tie.uid);
  if (!own.ok) return own;
  const above = checkSafePath("herdr.socket_dir", tie.socketDir.slice(1), tie.uid);
  return above.ok ? pass("herdr.socket_dir", above.expected, own.received) : above;
}

export function checkHerdrServer(descriptor: SessionDescriptor, tie: HerdrTie): CheckResult[] {
  return [
    expectEqual(
      "herdr.socket_owner",
      tie.uid,
      descriptor.socketFile.uid,
      `the Herdr socket ${descriptor.socketPath} is owned by uid ${descriptor.socketFile.uid}, not by us`,
    ),
    checkSocketDir(tie),
    descriptor.server.uid === tie.uid
      ? pass("herdr.server_uid", tie.uid, descriptor.server.uid)
      : fail(
          "herdr.server_uid",
          tie.uid,
          descriptor.server.uid,
          `the process serving ${descriptor.socketPath} (pid ${descriptor.server.pid}) runs as uid ${descriptor.server.uid}, not as us`,
        ),
  ];
}
