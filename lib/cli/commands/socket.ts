/**
 * `verify-proof socket <path>`: prove that a unix socket is private to us (directory owned by our
 * uid, no group/other bits, not a symlink; socket owned by us) and that a live process we can see
 * listens on that very file. A path that does not exist or cannot be looked at is a failed check (exit 1).
 */
import { constants } from "node:os";
import type { JsonValue } from "../../json.js";
import { KernelError, type SocketFacts, systemKernel } from "../../kernel/index.js";
import { checkPrivateSocket, checkSocketUnreadable } from "../../proof/socket.js";
import type { Command } from "../command.js";
import { runSocketLeader, socketLeaderFlags } from "./socket-leader.js";

/** The --json facts object (keys fixed by the CLI contract). */
export function socketFactsJson(f: SocketFacts): JsonValue {
  return {
    path: f.path,
    type: f.type,
    inode: f.inode,
    device: f.device,
    uid: f.uid,
    mode: f.mode,
    dir: { path: f.dir.path, uid: f.dir.uid, mode: f.dir.mode, isSymlink: f.dir.isSymlink },
    listeners: [...f.listeners],
    listeningSockets: f.listeningSockets,
  };
}

function unreadable(err: unknown): err is KernelError {
  return (
    err instanceof KernelError &&
    (err.code === "ACCESS_DENIED" ||
      (err.syscall.startsWith("lstat") &&
        (err.errno === constants.errno.ENOENT || err.errno === constants.errno.ENOTDIR)))
  );
}

export const socketCommand: Command = {
  name: "socket",
  summary: "prove that <path> is a private unix socket with a live listener",
  positionals: ["path"],
  flags: { ...socketLeaderFlags },
  async run(input, progress) {
    const path = input.positionals.path ?? "";
    progress(`reading the kernel facts of ${path}`);
    let facts: SocketFacts;
    try {
      // A proof must see a listener of another uid when we can (as root), to name it: the scan
      // of every process, not the fast one of ours (docs/design/kernel-proofs.md §2.4).
      facts = systemKernel.socketFacts(path, { allUsers: true });
    } catch (err) {
      if (!unreadable(err)) throw err;
      const error = { code: err.code, message: err.message };
      return {
        subject: "socket",
        facts: null,
        checks: [checkSocketUnreadable(path, { ...error, errno: err.errno })],
        error,
      };
    }
    const uid = process.getuid?.() ?? -1;
    const report = {
      subject: "socket",
      facts: socketFactsJson(facts),
      checks: checkPrivateSocket(facts, { uid }),
    };
    return input.flags.leader === true ? runSocketLeader(facts, report, input, progress) : report;
  },
};
