/**
 * The one way to reach a leader socket we did not create the listener of: connect once and, before
 * a byte is written, prove who answered (docs/design/reliability-plan.md §6 T4, T10). The kernel's
 * peer of our connection must be a listener of the very file the socket proof lstat'ed (SO_PEERCRED
 * and, on Linux, sock_diag UNIX_DIAG_VFS; docs/design/kernel-proofs.md §2.3), run as our uid, be
 * named by a kernel identity (SO_PEERPIDFD / LOCAL_PEERTOKEN: a bare pid may be stale, so there is
 * no uid-only fallback) and, while the TUI that spawned the leader lives, be that TUI's direct
 * child (docs/design/grok-leader-protocol.md §13). A path swapped between the proof and the
 * connect, or an imposter of our own uid listening there, is refused here, with nothing sent to it.
 * `hire()` and `verify-proof socket --leader` both connect through this.
 */
import type net from "node:net";
import { constants } from "node:os";
import { type CheckResult, expectEqual, fail, firstFailure, pass } from "../check.js";
import { failureOf } from "../errors.js";
import {
  identityJson,
  KernelError,
  type KernelPort,
  type PeerCredentials,
  type PeerSocketFile,
  type ProcessIdentity,
  peerBoundTo,
  readProcess,
  type SocketFacts,
  sameIdentity,
  systemKernel,
} from "../kernel/index.js";
import { connectPath } from "./connect-path.js";

/** Who must be at the other end, known before connecting. */
export interface PeerExpectation {
  /** The socket file as the socket proof saw it: lstat dev+ino and its listeners. */
  readonly socket: SocketFacts;
  /** Our uid: the peer must have listened as it. */
  readonly uid: number;
  /** The TUI that spawned the leader; while it lives, the peer is its direct child. */
  readonly tui?: { readonly pid: number; readonly identity: ProcessIdentity } | null;
}

/** The refusal codes of a connection whose peer is not proven (stable, as in `hire()`). */
export type ConnectRefusalCode =
  | "LEADER_CONNECT_FAILED"
  | "SOCKET_UNPROVEN"
  | "IDENTITY_UNPROVEN"
  | "LEADER_UNPROVEN";

export type ProvenConnection =
  /** Connected, every check passed, nothing written yet: the socket is the caller's. */
  | { readonly ok: true; readonly socket: net.Socket; readonly checks: readonly CheckResult[] }
  /** Refused; the socket (if one was opened) is destroyed and nothing was written on it. */
  | {
      readonly ok: false;
      readonly code: ConnectRefusalCode;
      readonly failed: CheckResult;
      readonly checks: readonly CheckResult[];
      /** The error behind `connect.socket` or `connect.peer`; null for a failed check. */
      readonly cause: unknown;
    };

export interface ConnectProvenOptions {
  /** Bound on `connect()` (default 5 s, as `leader/client.rs`). */
  readonly timeoutMs?: number;
  readonly kernel?: KernelPort;
}

/**
 * The file the peer of our connection is bound to. Until the server has accept()ed, the kernel
 * has no peer socket to describe (sock_diag answers EAGAIN, lib/kernel/peer-socket.ts): that is a
 * fact not yet available, so it is read again, bounded, never guessed.
 */
async function acceptedPeerFile(
  kernel: KernelPort,
  socket: net.Socket,
  timeoutMs = 2_000,
): Promise<PeerSocketFile> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return kernel.peerSocketFile(socket);
    } catch (err) {
      const notYet = err instanceof KernelError && err.errno === constants.errno.EAGAIN;
      if (!notYet || performance.now() >= deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The peer as a process: named by a kernel identity, and the TUI's child while the TUI lives. */
function peerProcessChecks(
  kernel: KernelPort,
  peer: PeerCredentials,
  tui: PeerExpectation["tui"],
): CheckResult[] {
  const read = readProcess(kernel, peer.pid);
  const want = identityJson(peer.identity);
  const checks = [
    want === null
      ? fail(
          "connect.peer_identity",
          "a kernel identity of our peer",
          peer.method,
          `the kernel names our peer only by pid ${peer.pid} (${peer.method}), which may be stale or reused`,
        )
      : read.ok
        ? expectEqual(
            "connect.peer_identity",
            want,
            identityJson(read.facts.identity),
            `pid ${peer.pid} names another process than the peer of our connection`,
          )
        : fail(
            "connect.peer_identity",
            want,
            read.error.code,
            `the facts of our peer pid ${peer.pid} cannot be read: ${read.error.message}`,
          ),
  ];
  if (tui === undefined || tui === null) return checks;
  const tuiNow = readProcess(kernel, tui.pid);
  const tuiAlive = tuiNow.ok && sameIdentity(tuiNow.facts.identity, tui.identity);
  if (!read.ok) {
    checks.push(fail("connect.peer_parent", tui.pid, null, `no facts of our peer pid ${peer.pid}`));
  } else if (!tuiAlive) {
    // The leader outlives its TUI and is reparented (as leader.ppid in lib/proof/leader.ts).
    checks.push(
      pass(
        "connect.peer_parent",
        { ppid: tui.pid, whileTuiAlive: true },
        { ppid: read.facts.ppid, tuiAlive: false },
      ),
    );
  } else {
    checks.push(
      expectEqual(
        "connect.peer_parent",
        tui.pid,
        read.facts.ppid,
        `our peer (pid ${peer.pid}) is a child of pid ${read.facts.ppid}, not of the TUI we launched (pid ${tui.pid})`,
      ),
    );
  }
  return checks;
}

/** The checks on our connection's peer, in order; throws when the kernel cannot name the peer. */
async function peerChecks(
  kernel: KernelPort,
  socket: net.Socket,
  expect: PeerExpectation,
): Promise<CheckResult[]> {
  const facts = expect.socket;
  const peer = kernel.peerCredentials(socket);
  const checks: CheckResult[] = [
    facts.listeners.includes(peer.pid)
      ? pass("connect.peer_listener", [...facts.listeners], peer.pid)
      : fail(
          "connect.peer_listener",
          [...facts.listeners],
          peer.pid,
          `our connection's peer is pid ${peer.pid}, not a listener we saw on the socket`,
        ),
    expectEqual(
      "connect.peer_uid",
      expect.uid,
      peer.uid,
      `our connection's peer runs as uid ${peer.uid}`,
    ),
  ];
  if (kernel.kernelInfo().platform === "linux") {
    const file = await acceptedPeerFile(kernel, socket);
    const expected = { device: facts.device, inode: facts.inode };
    checks.push(
      peerBoundTo(file, facts)
        ? pass("connect.peer_socket_file", expected, file.file)
        : fail(
            "connect.peer_socket_file",
            expected,
            file.file,
            "our connection reached a socket bound to another file than the one we proved",
          ),
    );
  }
  checks.push(...peerProcessChecks(kernel, peer, expect.tui));
  return checks;
}

function refusalCode(check: string): ConnectRefusalCode {
  if (check === "connect.peer_identity") return "IDENTITY_UNPROVEN";
  if (check === "connect.peer_parent") return "LEADER_UNPROVEN";
  return "SOCKET_UNPROVEN";
}

/** Connect once to `path` and prove the peer before anything is written. Never throws a failure. */
export async function connectProven(
  path: string,
  expect: PeerExpectation,
  options: ConnectProvenOptions = {},
): Promise<ProvenConnection> {
  const kernel = options.kernel ?? systemKernel;
  let socket: net.Socket;
  try {
    socket = await connectPath(path, options.timeoutMs ?? 5_000);
  } catch (cause) {
    const code = failureOf(cause)?.code ?? null;
    const failed = fail("connect.socket", path, code, `cannot connect to ${path}`);
    return { ok: false, code: "LEADER_CONNECT_FAILED", failed, checks: [failed], cause };
  }
  let checks: CheckResult[];
  try {
    checks = await peerChecks(kernel, socket, expect);
  } catch (cause) {
    socket.destroy();
    const code = failureOf(cause)?.code ?? null;
    const failed = fail(
      "connect.peer",
      "the kernel's credentials of our peer",
      code,
      "the kernel could not name the peer of our connection",
    );
    return { ok: false, code: "SOCKET_UNPROVEN", failed, checks: [failed], cause };
  }
  const failed = firstFailure(checks);
  if (failed !== undefined) {
    socket.destroy(); // nothing was written on it
    return { ok: false, code: refusalCode(failed.check), failed, checks, cause: null };
  }
  return { ok: true, socket, checks };
}
