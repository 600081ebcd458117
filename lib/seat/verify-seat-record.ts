/**
 * Re-verify a saved seat record against live facts, read-only (`verify-proof record`): nothing
 * registers with a leader, sends an ACP message or a signal, or writes a file. The checks, in
 * order, are listed in docs/design/decisions.md §9.
 */
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import { failureOr } from "../errors.js";
import { checkActiveSession, readActiveSessions } from "../grok/active-sessions.js";
import type { HerdrClient } from "../herdr/client.js";
import {
  type KernelPort,
  readProcess,
  type SocketFacts,
  socketFactsFor,
  systemKernel,
} from "../kernel/index.js";
import { flockHolder, readSmallFile } from "../leader/lock-file.js";
import { trustedHerdrClient } from "../observe/herdr-trust.js";
import { verifyPane } from "../observe/pane.js";
import type { AgentVerdict } from "../proof/agent-reconcile.js";
import { parseLockPid } from "../proof/leader.js";
import { checkProcess, checkProcessRead } from "../proof/process.js";
import { checkPrivateSocket, octal } from "../proof/socket.js";
import type { SeatRecord } from "./seat-record.js";
import { checkAppliedFromDisk } from "./verify-record-applied.js";

export interface RecordVerification {
  readonly checks: readonly CheckResult[];
  readonly agent: AgentVerdict | null;
  /** Is the recorded TUI (pid + identity) still running? null when it could not be told. */
  readonly tuiAlive: boolean | null;
  readonly leaderAlive: boolean | null;
}

function euid(): number {
  return typeof process.geteuid === "function" ? process.geteuid() : -1;
}

export function checkRecordFile(file: { uid: number; mode: number }): CheckResult {
  const ok = file.uid === euid() && (file.mode & 0o077) === 0;
  return ok
    ? pass("record.file_private", "ours, no group/other bits", octal(file.mode))
    : fail(
        "record.file_private",
        "ours, no group/other bits",
        { uid: file.uid, mode: octal(file.mode) },
        "the record file is not private to us",
      );
}

/**
 * `herdr` defaults to a client of the Herdr server the record names, gated to a server of ours;
 * `kernel` to the real one.
 */
export async function verifyRecord(
  record: SeatRecord,
  herdr?: HerdrClient,
  kernel: KernelPort = systemKernel,
): Promise<RecordVerification> {
  const checks: CheckResult[] = [];

  const client = herdr ?? trustedHerdrClient({ socketPath: record.pane.herdr.socketPath }, kernel);
  const pane = await verifyPane(client, kernel, record.pane);
  checks.push(...pane.checks);
  const tuiRead = readProcess(kernel, record.pane.process.pid);
  const tuiAlive = tuiRead.ok
    ? tuiRead.facts.identity.value === record.pane.process.identity.value
    : tuiRead.error.code === "NO_SUCH_PROCESS" || tuiRead.error.code === "ZOMBIE"
      ? false
      : null;

  const l = record.leader;
  const leaderRead = readProcess(kernel, l.pid);
  checks.push(...checkProcessRead(l.pid, leaderRead, "leader"));
  let leaderAlive: boolean | null = null;
  if (leaderRead.ok) {
    const expectation = {
      identity: l.identity,
      ...(l.executable === null ? {} : { executable: l.executable }),
      ...(l.cwd === null ? {} : { cwd: l.cwd }),
      uid: l.uid,
    };
    const leaderChecks = checkProcess(leaderRead.facts, expectation, "leader");
    checks.push(...leaderChecks);
    leaderAlive = leaderChecks.find((c) => c.check === "leader.identity")?.ok ?? null;
  } else if (leaderRead.error.code === "NO_SUCH_PROCESS" || leaderRead.error.code === "ZOMBIE") {
    leaderAlive = false;
  }

  let sock: SocketFacts | null = null;
  try {
    sock = socketFactsFor(kernel, record.socketPath, l.pid);
  } catch (err) {
    const e = failureOr(err, "ERROR");
    checks.push(
      fail(
        "socket.exists",
        record.socketPath,
        e.code,
        `${record.socketPath} cannot be looked at: ${e.message}`,
      ),
    );
  }
  if (sock !== null) {
    checks.push(...checkPrivateSocket(sock, { uid: euid() }));
    checks.push(
      expectEqual(
        "socket.same_file",
        { device: record.socket.device, inode: record.socket.inode },
        { device: sock.device, inode: sock.inode },
        "the socket path names another file than the one proven at hire",
      ),
      sock.listeners.includes(l.pid)
        ? pass("socket.leader_listens", l.pid, [...sock.listeners])
        : fail(
            "socket.leader_listens",
            l.pid,
            [...sock.listeners],
            `the recorded leader pid ${l.pid} does not listen on the socket`,
          ),
    );
  }

  try {
    const content = (await readSmallFile(record.lockPath, 64)).toString("utf8");
    const lockPid = parseLockPid(content);
    checks.push(
      expectEqual("leader.lock_pid", l.pid, lockPid, `the lock file names ${lockPid ?? "no pid"}`),
    );
  } catch (err) {
    const e = failureOr(err, "ERROR");
    checks.push(
      fail("leader.lock_pid", l.pid, e.code, `the lock file cannot be read: ${e.message}`),
    );
  }
  if (kernel.kernelInfo().platform === "linux") {
    try {
      const holder = await flockHolder(record.lockPath);
      checks.push(
        expectEqual(
          "leader.flock_holder",
          l.pid,
          holder,
          holder === null ? "nobody holds the lock" : `pid ${holder} holds the lock`,
        ),
      );
    } catch (err) {
      const e = failureOr(err, "ERROR");
      checks.push(
        fail(
          "leader.flock_holder",
          l.pid,
          e.code,
          `/proc/locks or the lock file cannot be read: ${e.message}`,
        ),
      );
    }
  }

  const active = await readActiveSessions(record.profile.grokHome);
  checks.push(
    ...checkActiveSession(active, {
      sessionId: record.sessionId,
      tuiPid: record.pane.process.pid,
      tuiCwd: record.cwd,
    }),
  );
  checks.push(...checkAppliedFromDisk(record));
  return { checks, agent: pane.agent, tuiAlive, leaderAlive };
}
