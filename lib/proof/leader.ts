/**
 * The leader proof (pure: recorded facts in, CheckResult values out): the leader's self-report
 * from `get_leader_info` tested against kernel facts gathered independently of it
 * (lib/observe/leader-facts.ts). The checks, each one a fact the self-report alone cannot fake:
 * docs/design/decisions.md §8.
 */
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import type { JsonValue } from "../json.js";
import {
  identityJson,
  type PeerCredentials,
  type ProcessFacts,
  type ProcessIdentity,
  type ProcessRead,
  type SocketFacts,
  sameIdentity,
} from "../kernel/index.js";
import { checkCwd, checkExecutable, checkUid } from "./process.js";

/** One gathered fact, or the typed error its read failed with (a failed read is not a negative fact). */
export type FactRead<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** The file the peer end of our connection is bound to (Linux sock_diag; see lib/kernel/peer-socket.ts). */
export interface PeerBoundFile {
  readonly device: string;
  /** Only the low 32 bits of the inode are known (udiag_vfs_ino is u32). */
  readonly inode32: number;
}

export interface BoundTui {
  readonly pid: number;
  readonly identity: ProcessIdentity;
  readonly cwd: string;
}

export interface LeaderProofInput {
  readonly platform: "linux" | "darwin";
  /** Our real uid. */
  readonly uid: number;
  /**
   * What the TUI proof recorded about the TUI we launched; null when no TUI is known (then
   * `leader.cwd` and `leader.ppid` fail: the leader is not bound to any TUI).
   */
  readonly tui: BoundTui | null;
  /** A fresh read of the TUI pid, to tell whether that very TUI still lives (null without a TUI). */
  readonly tuiNow: ProcessRead | null;
  /** The resolved, canonical grok executable; null when it could not be resolved. */
  readonly grokExecutable: string | null;
  /** Our private socket path, as proven by the socket proof. */
  readonly socketPath: string;
  /** The sibling lock path we computed (`lockPathForSocket`). */
  readonly lockPath: string;
  /** The leader's self-report (`get_leader_info`). */
  readonly leaderInfo: {
    readonly pid: number;
    readonly socket_path: string;
    readonly lock_path: string;
  };
  /** processFacts(leaderInfo.pid). */
  readonly leader: ProcessRead;
  /** socketFacts(socketPath), read after connecting. */
  readonly socket: FactRead<SocketFacts>;
  /** Peer credentials of our own connection to the leader. */
  readonly peer: FactRead<PeerCredentials>;
  /** Linux: the file the peer end of our connection is bound to (null: not bound to a file). */
  readonly peerSocketFile: FactRead<PeerBoundFile | null> | null;
  /** Raw content of the lock file. */
  readonly lockContent: FactRead<string>;
  /** Linux: pid of the FLOCK WRITE holder of the lock file's inode in /proc/locks (null: none). */
  readonly flockHolder: FactRead<number | null> | null;
}

function unread(
  check: string,
  expected: JsonValue,
  what: string,
  error: { message: string },
): CheckResult {
  return fail(check, expected, null, `${what} could not be read: ${error.message}`);
}

/** `write_pid` writes `{pid}`; readers `trim().parse::<u32>()` (`leader/lock.rs`). */
export function parseLockPid(content: string): number | null {
  const t = content.trim();
  if (!/^\d{1,10}$/.test(t)) return null;
  const n = Number(t);
  return n <= 0xffff_ffff ? n : null;
}

export function checkLeader(input: LeaderProofInput): CheckResult[] {
  const pid = input.leaderInfo.pid;
  const checks: CheckResult[] = [];
  const leader = input.leader;

  // The reported pid as a process.
  if (leader.ok) {
    const f = leader.facts;
    const alive = f.identity.value !== "" && f.startTimeUs > 0;
    const received = { pid: f.pid, identity: identityJson(f.identity), startTimeUs: f.startTimeUs };
    checks.push(
      alive
        ? pass("leader.pid_alive", { pid, alive: true }, received)
        : fail(
            "leader.pid_alive",
            { pid, alive: true },
            received,
            "the process has no identity or birth time",
          ),
    );
    checks.push(
      input.grokExecutable === null
        ? fail("leader.executable", null, f.executable, "the grok executable could not be resolved")
        : checkExecutable(f, input.grokExecutable, "leader"),
      checkUid(f, input.uid, "leader"),
      input.tui === null
        ? fail("leader.cwd", null, f.cwd, NO_TUI)
        : checkCwd(f, input.tui.cwd, "leader"),
      checkParent(f, input.tui, input.tuiNow),
    );
  } else {
    const { code, message } = leader.error;
    const why =
      code === "NO_SUCH_PROCESS"
        ? `the reported leader pid ${pid} does not exist`
        : code === "ZOMBIE"
          ? `the reported leader pid ${pid} has exited`
          : `the facts of the reported leader pid ${pid} cannot be read (${code})`;
    checks.push(fail("leader.pid_alive", { pid, alive: true }, code, `${why}: ${message}`));
    for (const [name, expected] of [
      ["leader.executable", input.grokExecutable],
      ["leader.uid", input.uid],
      ["leader.cwd", input.tui?.cwd ?? null],
      ["leader.ppid", input.tui?.pid ?? null],
    ] as const) {
      checks.push(fail(name, expected, null, `no facts of pid ${pid}: ${why}`));
    }
  }

  checks.push(
    expectEqual(
      "leader.socket_path",
      input.socketPath,
      input.leaderInfo.socket_path,
      "the leader reports another socket path",
    ),
  );

  // The socket file and who listens on it.
  const sock = input.socket;
  checks.push(
    !sock.ok
      ? unread("leader.listens_on_socket", pid, "the socket file", sock.error)
      : sock.value.listeners.includes(pid)
        ? pass("leader.listens_on_socket", pid, [...sock.value.listeners])
        : fail(
            "leader.listens_on_socket",
            pid,
            [...sock.value.listeners],
            `pid ${pid} holds no listener bound to ${input.socketPath}`,
          ),
  );

  // The kernel's view of our own connection.
  const peer = input.peer;
  if (peer.ok) {
    const p = peer.value;
    checks.push(
      expectEqual(
        "leader.peer_pid",
        pid,
        p.pid,
        `our connection's peer is pid ${p.pid}, not the reported ${pid}`,
      ),
    );
    const leaderIdentity = leader.ok ? leader.facts.identity : null;
    checks.push(
      sameIdentity(p.identity, leaderIdentity)
        ? pass("leader.peer_identity", identityJson(leaderIdentity), identityJson(p.identity))
        : fail(
            "leader.peer_identity",
            identityJson(leaderIdentity),
            identityJson(p.identity),
            p.identity === null
              ? `the kernel gives no identity for our peer (${p.method})`
              : "our connection's peer is another process than the reported leader",
          ),
    );
    checks.push(
      expectEqual(
        "leader.peer_uid",
        input.uid,
        p.uid,
        `our connection's peer runs as uid ${p.uid}`,
      ),
    );
  } else {
    checks.push(
      unread("leader.peer_pid", pid, "the peer credentials", peer.error),
      unread("leader.peer_identity", null, "the peer credentials", peer.error),
      unread("leader.peer_uid", input.uid, "the peer credentials", peer.error),
    );
  }
  if (input.platform === "linux") checks.push(checkPeerSocketFile(input));

  // The sibling lock file.
  checks.push(
    expectEqual(
      "leader.lock_path",
      input.lockPath,
      input.leaderInfo.lock_path,
      "the leader reports another lock path",
    ),
  );
  const lock = input.lockContent;
  if (!lock.ok)
    checks.push(unread("leader.lock_pid", pid, `the lock file ${input.lockPath}`, lock.error));
  else {
    const lockPid = parseLockPid(lock.value);
    checks.push(
      lockPid === pid
        ? pass("leader.lock_pid", pid, lockPid)
        : fail(
            "leader.lock_pid",
            pid,
            lockPid ?? lock.value.slice(0, 40),
            lockPid === null
              ? "the lock file does not hold a pid"
              : `the lock file names pid ${lockPid}`,
          ),
    );
  }
  if (input.platform === "linux") {
    const holder = input.flockHolder;
    if (holder === null || !holder.ok) {
      checks.push(
        holder === null
          ? fail("leader.flock_holder", pid, null, "no /proc/locks reading was taken")
          : unread("leader.flock_holder", pid, "/proc/locks", holder.error),
      );
    } else {
      checks.push(
        expectEqual(
          "leader.flock_holder",
          pid,
          holder.value,
          holder.value === null
            ? "nobody holds an exclusive flock on the lock file"
            : `pid ${holder.value} holds the lock`,
        ),
      );
    }
  }
  return checks;
}

const NO_TUI = "no TUI was recorded, so the leader cannot be bound to one";

/** While the very TUI we launched lives, the leader it spawned is its direct child (§1, §13). */
function checkParent(f: ProcessFacts, tui: BoundTui | null, now: ProcessRead | null): CheckResult {
  if (tui === null) return fail("leader.ppid", null, f.ppid, NO_TUI);
  const tuiAlive = now?.ok === true && sameIdentity(now.facts.identity, tui.identity);
  if (!tuiAlive) {
    // The leader outlives its TUI and is reparented; nothing to compare once the TUI is gone.
    return pass(
      "leader.ppid",
      { ppid: tui.pid, whileTuiAlive: true },
      { ppid: f.ppid, tuiAlive: false },
    );
  }
  return expectEqual(
    "leader.ppid",
    tui.pid,
    f.ppid,
    `the leader's parent is pid ${f.ppid}, not the TUI (pid ${tui.pid}) that is still running`,
  );
}

function checkPeerSocketFile(input: LeaderProofInput): CheckResult {
  const name = "leader.peer_socket_file";
  const peerFile = input.peerSocketFile;
  const sock = input.socket;
  if (!sock.ok) return unread(name, null, "the socket file", sock.error);
  const expected = {
    device: sock.value.device,
    inode32: Number(BigInt(sock.value.inode) & 0xffff_ffffn),
  };
  if (peerFile === null) return fail(name, expected, null, "no peer socket reading was taken");
  if (!peerFile.ok) return unread(name, expected, "the peer socket", peerFile.error);
  const got = peerFile.value;
  if (got === null)
    return fail(name, expected, null, "the peer end of our connection is not bound to a file");
  return expectEqual(
    name,
    expected,
    { device: got.device, inode32: got.inode32 },
    "our connection reached a socket bound to another file than the one we checked",
  );
}
