/**
 * The leader proof's pure checks from recorded facts: every tampering fails by its own name. The
 * whole flow against a real leader process is test/proof/leader-sim.test.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { CheckResult } from "../../lib/check.js";
import { checkLeader, type LeaderProofInput, parseLockPid } from "../../lib/proof/leader.js";
import { NO_LEADER_FACTS_FAILS, WRONG_PID_FAILS } from "./leader-checks.js";

// Recorded facts of a healthy TUI-spawned leader (shapes as lib/kernel returns them on Linux);
// each tampering test changes one fact of this record.
const BOOT = "9bad3862-bb05-467b-a8a3-6fe92c4b9c0d";

const TUI_PID = 41234;
const LEADER_PID = 41300;

function healthy(): LeaderProofInput {
  const leaderIdentity = { kind: "linux-pidfs" as const, value: `${BOOT}:41301` };
  const tuiIdentity = { kind: "linux-pidfs" as const, value: `${BOOT}:41235` };
  return {
    platform: "linux",
    uid: 1000,
    tui: { pid: TUI_PID, identity: tuiIdentity, cwd: "/home/u/proj" },
    tuiNow: {
      ok: true,
      facts: {
        pid: TUI_PID,
        ppid: 900,
        uid: 1000,
        euid: 1000,
        executable: "/opt/grok/bin/grok",
        executableDeleted: false,
        cwd: "/home/u/proj",
        tty: "/dev/pts/3",
        startTimeUs: 1_795_982_000_000_000,
        startTimePrecisionUs: 10_000,
        identity: tuiIdentity,
      },
    },
    grokExecutable: "/opt/grok/bin/grok",
    socketPath: "/run/user/1000/grok-seat/s1/leader.sock",
    lockPath: "/run/user/1000/grok-seat/s1/leader.lock",
    leaderInfo: {
      pid: LEADER_PID,
      socket_path: "/run/user/1000/grok-seat/s1/leader.sock",
      lock_path: "/run/user/1000/grok-seat/s1/leader.lock",
    },
    leader: {
      ok: true,
      facts: {
        pid: LEADER_PID,
        ppid: TUI_PID,
        uid: 1000,
        euid: 1000,
        executable: "/opt/grok/bin/grok",
        executableDeleted: false,
        cwd: "/home/u/proj",
        tty: null,
        startTimeUs: 1_795_982_000_500_000,
        startTimePrecisionUs: 10_000,
        identity: leaderIdentity,
      },
    },
    socket: {
      ok: true,
      value: {
        path: "/run/user/1000/grok-seat/s1/leader.sock",
        type: "socket",
        inode: "4294967297", // > 2^32: only the low 32 bits (1) reach sock_diag
        device: "65024",
        uid: 1000,
        mode: 0o755,
        dir: {
          path: "/run/user/1000/grok-seat/s1",
          type: "directory",
          uid: 1000,
          mode: 0o700,
          isSymlink: false,
        },
        listeners: [LEADER_PID],
        listeningSockets: 1,
      },
    },
    peer: {
      ok: true,
      value: {
        pid: LEADER_PID,
        uid: 1000,
        gid: 1000,
        identity: leaderIdentity,
        method: "SO_PEERPIDFD",
      },
    },
    peerSocketFile: { ok: true, value: { device: "65024", inode32: 1 } },
    lockContent: { ok: true, value: String(LEADER_PID) },
    flockHolder: { ok: true, value: LEADER_PID },
  };
}

const ALL = [
  "leader.pid_alive",
  "leader.executable",
  "leader.uid",
  "leader.cwd",
  "leader.ppid",
  "leader.socket_path",
  "leader.listens_on_socket",
  "leader.peer_pid",
  "leader.peer_identity",
  "leader.peer_uid",
  "leader.peer_socket_file",
  "leader.lock_path",
  "leader.lock_pid",
  "leader.flock_holder",
];

function failed(checks: readonly CheckResult[]): string[] {
  return checks.filter((c) => !c.ok).map((c) => c.check);
}

/** The healthy input with the peer credentials `patch` changes (pid, uid, identity, method). */
function withPeer(i: LeaderProofInput, patch: Record<string, unknown>): LeaderProofInput {
  if (!i.peer.ok) throw new Error("healthy peer expected");
  return { ...i, peer: { ok: true, value: { ...i.peer.value, ...patch } } };
}

function withLeader(i: LeaderProofInput, patch: Record<string, unknown>): LeaderProofInput {
  if (!i.leader.ok) throw new Error("healthy leader expected");
  return { ...i, leader: { ok: true, facts: { ...i.leader.facts, ...patch } } };
}

test("healthy facts pass every check, in a fixed order", () => {
  const checks = checkLeader(healthy());
  assert.equal(
    checks.map((c) => c.check),
    ALL,
  );
  assert.equal(failed(checks), []);
});

test("macOS has no peer-socket-file and no /proc/locks checks", () => {
  const checks = checkLeader({
    ...healthy(),
    platform: "darwin",
    peerSocketFile: null,
    flockHolder: null,
  });
  assert.equal(
    checks.map((c) => c.check),
    ALL.filter((c) => c !== "leader.peer_socket_file" && c !== "leader.flock_holder"),
  );
  assert.equal(failed(checks), []);
});

test("a wrong reported pid fails peer_pid and every kernel cross-check", () => {
  const h = healthy();
  const other = { ...h.leader };
  const input: LeaderProofInput = {
    ...h,
    leaderInfo: { ...h.leaderInfo, pid: TUI_PID },
    // the facts of the pid it named (the TUI itself)
    leader: h.tuiNow ?? other,
  };
  const f = failed(checkLeader(input));
  for (const name of WRONG_PID_FAILS) {
    assert.ok(f.includes(name), `${name} fails: ${f.join(", ")}`);
  }
});

test("each single tampering fails by its own name", () => {
  const h = healthy();
  const cases: [string, LeaderProofInput, string[]][] = [
    [
      "dead pid",
      { ...h, leader: { ok: false, error: { code: "NO_SUCH_PROCESS", message: "gone" } } },
      NO_LEADER_FACTS_FAILS,
    ],
    ["another binary", withLeader(h, { executable: "/usr/bin/python3" }), ["leader.executable"]],
    ["replaced binary", withLeader(h, { executableDeleted: true }), ["leader.executable"]],
    ["another uid", withLeader(h, { uid: 65534, euid: 65534 }), ["leader.uid"]],
    ["setuid", withLeader(h, { euid: 0 }), ["leader.uid"]],
    ["another cwd", withLeader(h, { cwd: "/tmp" }), ["leader.cwd"]],
    ["not the TUI's child", withLeader(h, { ppid: 1 }), ["leader.ppid"]],
    [
      "another socket path",
      { ...h, leaderInfo: { ...h.leaderInfo, socket_path: "/home/u/.grok/leader.sock" } },
      ["leader.socket_path"],
    ],
    [
      "not listening on our file",
      {
        ...h,
        socket: h.socket.ok
          ? { ok: true, value: { ...h.socket.value, listeners: [777] } }
          : h.socket,
      },
      ["leader.listens_on_socket"],
    ],
    [
      "peer is an imposter",
      withPeer(h, { pid: 777, identity: { kind: "linux-pidfs", value: "x:1" } }),
      ["leader.peer_pid", "leader.peer_identity"],
    ],
    [
      "peer pid recycled",
      withPeer(h, { identity: { kind: "linux-pidfs", value: "x:1" } }),
      ["leader.peer_identity"],
    ],
    ["peer of another uid", withPeer(h, { uid: 65534, gid: 65534 }), ["leader.peer_uid"]],
    [
      "no peer identity",
      withPeer(h, { identity: null, method: "SO_PEERCRED" }),
      ["leader.peer_identity"],
    ],
    [
      "swapped socket file",
      { ...h, peerSocketFile: { ok: true, value: { device: "65024", inode32: 2 } } },
      ["leader.peer_socket_file"],
    ],
    [
      "peer not bound",
      { ...h, peerSocketFile: { ok: true, value: null } },
      ["leader.peer_socket_file"],
    ],
    [
      "another lock path",
      { ...h, leaderInfo: { ...h.leaderInfo, lock_path: "/x.lock" } },
      ["leader.lock_path"],
    ],
    ["lock pid mismatch", { ...h, lockContent: { ok: true, value: "4242" } }, ["leader.lock_pid"]],
    ["lock garbage", { ...h, lockContent: { ok: true, value: "pid=41300" } }, ["leader.lock_pid"]],
    [
      "lock missing",
      { ...h, lockContent: { ok: false, error: { code: "ENOENT", message: "no file" } } },
      ["leader.lock_pid"],
    ],
    [
      "flock held by another",
      { ...h, flockHolder: { ok: true, value: 4242 } },
      ["leader.flock_holder"],
    ],
    ["flock not held", { ...h, flockHolder: { ok: true, value: null } }, ["leader.flock_holder"]],
    ["no TUI recorded", { ...h, tui: null, tuiNow: null }, ["leader.cwd", "leader.ppid"]],
    ["no grok executable", { ...h, grokExecutable: null }, ["leader.executable"]],
    [
      "denied leader facts",
      { ...h, leader: { ok: false, error: { code: "ACCESS_DENIED", message: "EACCES" } } },
      NO_LEADER_FACTS_FAILS,
    ],
  ];
  for (const [name, input, expected] of cases) {
    assert.equal(failed(checkLeader(input)), expected, name);
  }
});

test("once the TUI has exited, the leader may have another parent", () => {
  const h = healthy();
  const exited = withLeader(
    { ...h, tuiNow: { ok: false, error: { code: "NO_SUCH_PROCESS", message: "gone" } } },
    { ppid: 1 },
  );
  const ppid = checkLeader(exited).find((c) => c.check === "leader.ppid");
  assert.ok(ppid?.ok);
  assert.equal(ppid?.received, { ppid: 1, tuiAlive: false });
  // A recycled TUI pid (other identity) is not "the TUI still lives" either.
  if (!h.tuiNow?.ok) throw new Error("healthy tui expected");
  const recycled = withLeader(
    {
      ...h,
      tuiNow: {
        ok: true,
        facts: { ...h.tuiNow.facts, identity: { kind: "linux-pidfs", value: "x:9" } },
      },
    },
    { ppid: 1 },
  );
  assert.ok(checkLeader(recycled).find((c) => c.check === "leader.ppid")?.ok);
});

test("lock content: decimal u32 with optional whitespace, as trim().parse::<u32>()", () => {
  assert.is(parseLockPid("4242"), 4242);
  assert.is(parseLockPid("4242\n"), 4242);
  assert.is(parseLockPid(" 4242 "), 4242);
  assert.is(parseLockPid(""), null);
  assert.is(parseLockPid("-1"), null);
  assert.is(parseLockPid("42a"), null);
  assert.is(parseLockPid("4294967296"), null);
});

test.run();
