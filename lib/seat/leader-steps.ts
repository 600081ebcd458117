/**
 * From a listening socket to a proven leader, each step before the next may act:
 * - socket proof: the address (a path, not an abstract name; within sun_path), then the
 *   private-socket checks (lib/proof/socket.ts) on our runtime directory's socket, and the lock
 *   file's pid among its listeners;
 * - admission: the seat's single-controller lock and fence journal (lib/delivery/admission.ts);
 * - connect, once: before a byte is sent, the kernel's peer of our connection must be a listener
 *   of that very file (SO_PEERCRED/SO_PEERPIDFD, sock_diag UNIX_DIAG_VFS; kernel-proofs.md §2.3),
 *   named by a kernel identity, and the child of the TUI we launched while that TUI lives;
 * - register: `registered` and readiness, then the leader half of the version floor;
 * - leader proof: `get_leader_info` tested against kernel facts (lib/proof/leader.ts), then the
 *   leader's kernel handle, opened on the proven identity and kept for the seat's life.
 * There is no retry and no reconnect anywhere (seed ADR 0224: "Connect to that socket once").
 */
import { lstatSync } from "node:fs";
import type net from "node:net";
import { constants } from "node:os";
import { dirname, resolve } from "node:path";
import { type CheckResult, expectEqual, fail, firstFailure, pass } from "../check.js";
import { admitController, type Controller } from "../delivery/index.js";
import { admitVersion, type GrokVersion } from "../grok/version.js";
import {
  type FileType,
  identityJson,
  KernelError,
  type KernelPort,
  kernelInfo,
  type PeerCredentials,
  type PeerSocketFile,
  type ProcessFacts,
  type ProcessHandle,
  peerBoundTo,
  peerCredentials,
  peerSocketFile,
  readProcess,
  type SocketDirFacts,
  type SocketFacts,
  socketFacts,
  systemKernel,
} from "../kernel/index.js";
import { connectPath } from "../leader/connect-path.js";
import { connectLeader, type LeaderConnection } from "../leader/connection.js";
import type { LeaderInfo } from "../leader/control.js";
import { proveLeader } from "../observe/leader-proof.js";
import type { LeaderProofInput, TuiRecord } from "../proof/leader.js";
import { checkPrivateSocket, checkSocketAddress, checkSocketDir } from "../proof/socket.js";
import { outcome, type StepOutcome } from "./progress.js";
import { refuseOnCheck, SeatRefusal } from "./refusal.js";

/** lstat facts of a directory, or null when it cannot be looked at either. */
function dirFacts(path: string): SocketDirFacts | null {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return null;
  const type: FileType = st.isSymbolicLink()
    ? "symlink"
    : st.isDirectory()
      ? "directory"
      : st.isSocket()
        ? "socket"
        : st.isFIFO()
          ? "fifo"
          : st.isCharacterDevice()
            ? "char"
            : st.isBlockDevice()
              ? "block"
              : "file";
  return { path, type, uid: st.uid, mode: st.mode & 0o7777, isSymlink: type === "symlink" };
}

export function socketProofStep(
  socketPath: string,
  lockPid: number,
  uid: number,
): StepOutcome<SocketFacts> {
  // The address first: an abstract name or an over-long path is refused by its own name before
  // anything is looked at or connected to (reliability-plan.md §6 T4).
  const address = checkSocketAddress(
    socketPath.includes("\0") ? socketPath : resolve(socketPath),
    kernelInfo().sunPathMax,
  );
  const badAddress = firstFailure(address);
  if (badAddress !== undefined) throw refuseOnCheck("socket_proof", "SOCKET_UNPROVEN", badAddress);
  let facts: SocketFacts;
  try {
    facts = socketFacts(socketPath);
  } catch (err) {
    // A socket we cannot look at is often the directory's fault (another owner's 0700
    // directory, a file where the directory should be): then refuse with the directory's check.
    const dir = socketPath === "" ? null : dirFacts(dirname(resolve(socketPath)));
    const dirFailed = dir === null ? undefined : firstFailure(checkSocketDir(dir, { uid }));
    if (dirFailed !== undefined) throw refuseOnCheck("socket_proof", "SOCKET_UNPROVEN", dirFailed);
    throw new SeatRefusal({
      step: "socket_proof",
      code: "SOCKET_UNPROVEN",
      check: "socket.exists",
      reason: `${socketPath} cannot be looked at`,
      cause: err,
    });
  }
  const checks: CheckResult[] = [
    ...checkPrivateSocket(facts, { uid }),
    facts.listeners.includes(lockPid)
      ? pass("socket.lock_pid_listens", lockPid, [...facts.listeners])
      : fail(
          "socket.lock_pid_listens",
          lockPid,
          [...facts.listeners],
          `the lock file's pid ${lockPid} does not listen on ${socketPath}`,
        ),
  ];
  const failed = firstFailure(checks);
  if (failed !== undefined) throw refuseOnCheck("socket_proof", "SOCKET_UNPROVEN", failed);
  return outcome(
    facts,
    `${socketPath}: socket in a 0${(facts.dir.mode & 0o777).toString(8)} directory we own, listener pid ${facts.listeners.join(",")}`,
    checks,
    {
      path: facts.path,
      inode: facts.inode,
      device: facts.device,
      dirMode: facts.dir.mode,
      listeners: [...facts.listeners],
    },
  );
}

export function admissionStep(runtimeDir: string): StepOutcome<Controller> {
  const controller = admitController({ seatDir: runtimeDir });
  return outcome(
    controller,
    `admitted as the seat's only controller (epoch ${controller.epoch}, flock on ${controller.lock.path})`,
    [pass("admission.lock", "held", controller.lock.path)],
    { epoch: controller.epoch, lock: controller.lock.path },
  );
}

/**
 * The file the peer of our connection is bound to. Until the server has accept()ed, the kernel
 * has no peer socket to describe (sock_diag answers EAGAIN, lib/kernel/peer-socket.ts): that is a
 * fact not yet available, so it is read again, bounded, never guessed.
 */
async function acceptedPeerFile(socket: net.Socket, timeoutMs = 2_000): Promise<PeerSocketFile> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return peerSocketFile(socket);
    } catch (err) {
      const notYet = err instanceof KernelError && err.errno === constants.errno.EAGAIN;
      if (!notYet || performance.now() >= deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Who must be at the other end, known before connecting. */
export interface ConnectExpectation {
  /** The TUI we launched: while it lives, its leader is its direct child (protocol §13). */
  readonly tui: TuiRecord;
}

/**
 * The peer as a process, before a byte is written (reliability-plan.md §6 T4): the kernel names
 * it by a pidfd identity (SO_PEERPIDFD / LOCAL_PEERTOKEN; a bare SO_PEERCRED pid may be stale,
 * so there is no uid-only fallback) and, with an expectation, it is the child of the TUI we
 * launched while that TUI lives — an imposter of our own uid that listens on the file and names
 * itself in the lock file is refused here, not after our `register` reached it.
 */
function peerProcessChecks(
  peer: PeerCredentials,
  expected: ConnectExpectation | undefined,
): CheckResult[] {
  const read = readProcess(systemKernel, peer.pid);
  const want = peer.identity === null ? null : identityJson(peer.identity);
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
  if (expected === undefined) return checks;
  const tui = expected.tui;
  const tuiNow = readProcess(systemKernel, tui.pid);
  const tuiAlive =
    tuiNow.ok &&
    tuiNow.facts.identity.kind === tui.identity.kind &&
    tuiNow.facts.identity.value === tui.identity.value;
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

/** The refusal code of a failed connect check. */
function connectCode(check: string): string {
  if (check === "connect.peer_identity") return "IDENTITY_UNPROVEN";
  if (check === "connect.peer_parent") return "LEADER_UNPROVEN";
  return "SOCKET_UNPROVEN";
}

/** Connect once and, before anything is written, prove who answered. */
export async function connectStep(
  socketPath: string,
  facts: SocketFacts,
  uid: number,
  timeoutMs: number,
  expected?: ConnectExpectation,
): Promise<StepOutcome<net.Socket>> {
  let socket: net.Socket;
  try {
    socket = await connectPath(socketPath, timeoutMs);
  } catch (err) {
    throw new SeatRefusal({
      step: "connect",
      code: "LEADER_CONNECT_FAILED",
      check: "connect.socket",
      reason: `cannot connect to ${socketPath}`,
      cause: err,
    });
  }
  const checks: CheckResult[] = [];
  try {
    const peer = peerCredentials(socket);
    checks.push(
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
        uid,
        peer.uid,
        `our connection's peer runs as uid ${peer.uid}`,
      ),
    );
    if (kernelInfo().platform === "linux") {
      const file = await acceptedPeerFile(socket);
      checks.push(
        peerBoundTo(file, facts)
          ? pass(
              "connect.peer_socket_file",
              { device: facts.device, inode: facts.inode },
              file.file,
            )
          : fail(
              "connect.peer_socket_file",
              { device: facts.device, inode: facts.inode },
              file.file,
              "our connection reached a socket bound to another file than the one we proved",
            ),
      );
    }
    checks.push(...peerProcessChecks(peer, expected));
  } catch (err) {
    socket.destroy();
    throw new SeatRefusal({
      step: "connect",
      code: "SOCKET_UNPROVEN",
      check: "connect.peer",
      reason: "the kernel could not name the peer of our connection",
      cause: err,
    });
  }
  const failed = firstFailure(checks);
  if (failed !== undefined) {
    socket.destroy(); // nothing was written on it
    throw refuseOnCheck("connect", connectCode(failed.check), failed);
  }
  return outcome(
    socket,
    `connected once to ${socketPath}; the kernel names the listener as our peer${expected === undefined ? "" : ", the TUI's child"}`,
    checks,
    null,
  );
}

export interface RegisterInput {
  readonly socket: net.Socket;
  readonly cli: GrokVersion;
  readonly registrationTimeoutMs: number;
  readonly readyTimeoutMs: number;
  readonly controlTimeoutMs: number;
}

export async function registerStep(input: RegisterInput): Promise<StepOutcome<LeaderConnection>> {
  let conn: LeaderConnection;
  try {
    conn = await connectLeader(input.socket, {
      registrationTimeoutMs: input.registrationTimeoutMs,
      readyTimeoutMs: input.readyTimeoutMs,
      controlTimeoutMs: input.controlTimeoutMs,
    });
  } catch (err) {
    throw new SeatRefusal({
      step: "register",
      code: "LEADER_CONNECT_FAILED",
      check: "register.registered",
      reason: `the leader did not register us: ${err instanceof Error ? err.message : String(err)}`,
      cause: err,
    });
  }
  const r = conn.registered;
  const checks = admitVersion({ cli: input.cli, leaderRegistered: r });
  const failed = firstFailure(checks);
  if (failed !== undefined) {
    void conn.close();
    throw refuseOnCheck(
      "register",
      failed.check === "version.floor" ? "VERSION_BELOW_FLOOR" : "VERSION_MISMATCH",
      failed,
    );
  }
  return outcome(
    conn,
    `registered as client ${r.client_id}; leader ${r.leader_binary_version ?? "?"}, protocol ${r.leader_protocol_version ?? "?"}, control_v1`,
    checks,
    {
      clientId: r.client_id,
      leaderBinaryVersion: r.leader_binary_version,
      leaderProtocolVersion: r.leader_protocol_version,
      controlV1: r.leader_capabilities?.control_v1 ?? null,
    },
  );
}

export interface ProvenLeader {
  readonly info: LeaderInfo;
  readonly facts: ProcessFacts;
  readonly proof: LeaderProofInput;
  readonly handle: ProcessHandle;
}

export async function leaderProofStep(
  conn: LeaderConnection,
  kernel: KernelPort,
  req: { socketPath: string; tui: TuiRecord; grokExecutable: string; controlTimeoutMs: number },
): Promise<StepOutcome<ProvenLeader>> {
  const proof = await proveLeader(conn, req);
  const failed = firstFailure(proof.checks);
  if (failed !== undefined || proof.leaderInfo === null || proof.facts === null) {
    const f = failed ?? proof.checks[0];
    if (f === undefined) {
      throw new SeatRefusal({
        step: "leader_proof",
        code: "LEADER_UNPROVEN",
        reason: "no leader proof",
      });
    }
    throw refuseOnCheck("leader_proof", "LEADER_UNPROVEN", f, {
      leaderPid: proof.leaderInfo?.pid ?? null,
    });
  }
  const read = proof.facts.leader;
  if (!read.ok) throw new Error("unreachable: a passed leader proof has facts");
  const facts = read.facts;
  let handle: ProcessHandle;
  try {
    handle = kernel.openProcessHandle(facts.pid, facts.identity);
  } catch (err) {
    throw new SeatRefusal({
      step: "leader_proof",
      code: "IDENTITY_UNPROVEN",
      check: "leader.handle",
      reason: `no kernel handle on leader pid ${facts.pid} with its proven identity`,
      cause: err,
    });
  }
  // The handle must be on the very process the proof named (our connection's peer identity
  // already matched it in `leader.peer_identity`).
  const handleCheck = expectEqual(
    "leader.handle_identity",
    { kind: facts.identity.kind, value: facts.identity.value },
    { kind: handle.identity.kind, value: handle.identity.value },
    "the kernel handle is on another process than the proven leader",
  );
  if (!handleCheck.ok) {
    handle.close();
    throw refuseOnCheck("leader_proof", "IDENTITY_UNPROVEN", handleCheck);
  }
  return outcome(
    { info: proof.leaderInfo, facts, proof: proof.facts, handle },
    `leader pid ${facts.pid} proven: ${facts.executable ?? "?"}, child of TUI ${facts.ppid}, peer of our connection, lock holder`,
    [...proof.checks, handleCheck],
    {
      pid: facts.pid,
      ppid: facts.ppid,
      identity: { kind: facts.identity.kind, value: facts.identity.value },
      executable: facts.executable,
      cwd: facts.cwd,
    },
  );
}
