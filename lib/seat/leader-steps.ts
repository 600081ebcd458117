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
import { dirname, resolve } from "node:path";
import { type CheckResult, expectEqual, fail, firstFailure, pass } from "../check.js";
import { admitController, type Controller } from "../delivery/index.js";
import { admitVersion, type GrokVersion } from "../grok/version.js";
import {
  type FileType,
  type KernelPort,
  kernelInfo,
  type ProcessFacts,
  type ProcessHandle,
  type SocketDirFacts,
  type SocketFacts,
  socketFacts,
  systemKernel,
} from "../kernel/index.js";
import { connectProven } from "../leader/connect-proven.js";
import type { LeaderInfo } from "../leader/control.js";
import { connectLeader, type LeaderConnection } from "../leader/leader-connection.js";
import { proveLeader } from "../observe/leader-proof.js";
import type { LeaderProofInput, TuiRecord } from "../proof/leader.js";
import { checkPrivateSocket, checkSocketAddress, checkSocketDir } from "../proof/socket.js";
import { refuseOnCheck, SeatRefusal } from "./refusal.js";
import { outcome, type StepOutcome } from "./step-runner.js";

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

/** Who must be at the other end, known before connecting. */
export interface ConnectExpectation {
  /** The TUI we launched: while it lives, its leader is its direct child (protocol §13). */
  readonly tui: TuiRecord;
}

/** Connect once and, before anything is written, prove who answered (lib/leader/connect-proven.ts). */
export async function connectStep(
  socketPath: string,
  facts: SocketFacts,
  uid: number,
  timeoutMs: number,
  expected?: ConnectExpectation,
  kernel: KernelPort = systemKernel,
): Promise<StepOutcome<net.Socket>> {
  const r = await connectProven(
    socketPath,
    { socket: facts, uid, tui: expected?.tui ?? null },
    { timeoutMs, kernel },
  );
  if (!r.ok) throw refuseOnCheck("connect", r.code, r.failed, {}, r.cause);
  return outcome(
    r.socket,
    `connected once to ${socketPath}; the kernel names the listener as our peer${expected === undefined ? "" : ", the TUI's child"}`,
    r.checks,
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
