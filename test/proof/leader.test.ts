// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The leader proof: pure checks from recorded facts (every tampering fails by its own name), then
 * the whole flow (connect, register, get_leader_info, kernel facts) against a real leader process.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import type { CheckResult } from "../../lib/check.js";
import { checkActiveSession, readActiveSessions } from "../../lib/grok/active-sessions.js";
import { processFacts, socketFacts } from "../../lib/kernel/index.js";
import { checkLeader, type LeaderProofInput, parseLockPid } from "../../lib/proof/leader.js";
import {
  ensureGrokSim,
  type GrokTui,
  grokHomeFixture,
  pidAlive,
  readLockPid,
  simEnv,
  startGrokTui,
  waitFor,
} from "../helpers/grok-sim.js";

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
  for (const name of [
    "leader.peer_pid",
    "leader.peer_identity",
    "leader.listens_on_socket",
    "leader.lock_pid",
    "leader.flock_holder",
    "leader.ppid",
  ]) {
    assert.ok(f.includes(name), `${name} fails: ${f.join(", ")}`);
  }
});

test("each single tampering fails by its own name", () => {
  const h = healthy();
  const cases: [string, LeaderProofInput, string[]][] = [
    [
      "dead pid",
      { ...h, leader: { ok: false, error: { code: "NO_SUCH_PROCESS", message: "gone" } } },
      [
        "leader.pid_alive",
        "leader.executable",
        "leader.uid",
        "leader.cwd",
        "leader.ppid",
        "leader.peer_identity",
      ],
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
      {
        ...h,
        peer: {
          ok: true,
          value: {
            pid: 777,
            uid: 1000,
            gid: 1000,
            identity: { kind: "linux-pidfs", value: "x:1" },
            method: "SO_PEERPIDFD",
          },
        },
      },
      ["leader.peer_pid", "leader.peer_identity"],
    ],
    [
      "peer pid recycled",
      {
        ...h,
        peer: {
          ok: true,
          value: {
            pid: LEADER_PID,
            uid: 1000,
            gid: 1000,
            identity: { kind: "linux-pidfs", value: "x:1" },
            method: "SO_PEERPIDFD",
          },
        },
      },
      ["leader.peer_identity"],
    ],
    [
      "peer of another uid",
      {
        ...h,
        peer: {
          ok: true,
          value: {
            pid: LEADER_PID,
            uid: 65534,
            gid: 65534,
            identity: h.peer.ok ? h.peer.value.identity : null,
            method: "SO_PEERPIDFD",
          },
        },
      },
      ["leader.peer_uid"],
    ],
    [
      "no peer identity",
      {
        ...h,
        peer: {
          ok: true,
          value: { pid: LEADER_PID, uid: 1000, gid: 1000, identity: null, method: "SO_PEERCRED" },
        },
      },
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
      [
        "leader.pid_alive",
        "leader.executable",
        "leader.uid",
        "leader.cwd",
        "leader.ppid",
        "leader.peer_identity",
      ],
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

// ---------------------------------------------------------------------------------------------
// Against the grok simulator (a real TUI on a tmux pty, its detached leader): through the CLI,
// `verify-proof socket <path> --leader --tui-pid <tui> --json`, as a user would run it.

const LeaderJson = v.object({
  registered: v.nullable(
    v.object({ client_id: v.number(), leader_protocol_version: v.nullable(v.number()) }),
  ),
  leaderInfo: v.nullable(v.object({ pid: v.number(), socket_path: v.string() })),
  peer: v.nullable(
    v.object({
      pid: v.number(),
      uid: v.number(),
      identity: v.nullable(v.object({ kind: v.string(), value: v.string() })),
    }),
  ),
});

const Report = v.object({
  ok: v.boolean(),
  facts: v.nullable(
    v.object({
      uid: v.number(),
      listeners: v.array(v.number()),
      leader: v.optional(LeaderJson),
    }),
  ),
  checks: v.array(v.object({ check: v.string(), ok: v.boolean(), reason: v.nullable(v.string()) })),
  /** The contract names the leader object at the top level too (it also stays in facts). */
  leader: v.optional(LeaderJson),
});

function verify(
  socketPath: string,
  tuiPid: number,
  extra: string[] = [],
): { status: number | null; report: v.InferOutput<typeof Report> } {
  const r = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "lib/cli/verify-proof.ts",
      "socket",
      socketPath,
      "--leader",
      "--tui-pid",
      String(tuiPid),
      "--json",
      ...extra,
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  const parsed = v.safeParse(Report, JSON.parse(r.stdout));
  if (!parsed.success) throw new Error(`unexpected report: ${r.stdout} ${r.stderr}`);
  return { status: r.status, report: parsed.output };
}

function failing(report: v.InferOutput<typeof Report>): string[] {
  return report.checks.filter((c) => !c.ok).map((c) => c.check);
}

function ok(report: v.InferOutput<typeof Report>, name: string): boolean | undefined {
  return report.checks.find((c) => c.check === name)?.ok;
}

/** Start a TUI (and so its leader) in a fresh GROK_HOME; run `body`; always clean up. */
async function withTui(
  env: Record<string, string>,
  body: (
    tui: GrokTui,
    leaderPid: number,
    home: ReturnType<typeof grokHomeFixture>,
  ) => Promise<void>,
): Promise<void> {
  const home = grokHomeFixture();
  let tui: GrokTui | null = null;
  try {
    tui = await startGrokTui({ grokHome: home.dir, cwd: home.cwd, env });
    const leaderPid = await tui.leaderPid();
    await body(tui, leaderPid, home);
  } finally {
    await tui?.stop();
    home.remove();
  }
}

test("simulator: the leader a real TUI spawned passes the socket and leader proofs", async () => {
  await ensureGrokSim();
  await withTui({}, async (tui, leaderPid, home) => {
    const { status, report } = verify(tui.paths.socketPath, tui.tuiPid);
    assert.equal(failing(report), []);
    assert.is(status, 0);
    const leader = report.facts?.leader;
    assert.is(leader?.leaderInfo?.pid, leaderPid);
    assert.equal(report.leader, leader, "the top-level leader object is facts.leader");
    assert.is(leader?.registered?.leader_protocol_version, 1);
    // Independent oracles: the lock file, /proc/<pid>/stat's ppid, and the kernel identity.
    assert.is(readLockPid(tui.paths.lockPath), leaderPid);
    const stat = readFileSync(`/proc/${leaderPid}/stat`, "utf8");
    assert.is(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]), tui.tuiPid);
    assert.equal(leader?.peer?.identity, { ...processFacts(leaderPid).identity });
    // active_sessions.json names the TUI (not the leader): evidence beside the proof.
    const evidence = checkActiveSession(await readActiveSessions(home.dir), {
      sessionId: tui.sessionId,
      tuiPid: tui.tuiPid,
      tuiCwd: processFacts(tui.tuiPid).cwd ?? "",
    });
    assert.equal(
      evidence.filter((c) => !c.ok).map((c) => c.check),
      [],
    );
  });
});

test("simulator: a wrong reported pid (GROK_SIM_WRONG_PID) fails leader.peer_pid and leader.lock_pid", async () => {
  await withTui({ GROK_SIM_WRONG_PID: String(process.pid) }, async (tui) => {
    const { status, report } = verify(tui.paths.socketPath, tui.tuiPid);
    assert.is(status, 1);
    const f = failing(report);
    for (const n of [
      "leader.peer_pid",
      "leader.peer_identity",
      "leader.lock_pid",
      "leader.flock_holder",
      "leader.listens_on_socket",
    ]) {
      assert.ok(f.includes(n), `${n} in ${f.join(", ")}`);
    }
    assert.ok(
      f.every((n) => n.startsWith("leader.")),
      "the socket itself is fine",
    );
  });
});

test("simulator: socket directory mode 0755 fails socket.dir_mode and is not connected to", async () => {
  await withTui({}, async (tui, _pid, home) => {
    chmodSync(home.dir, 0o755);
    const { status, report } = verify(tui.paths.socketPath, tui.tuiPid);
    assert.is(status, 1);
    assert.equal(failing(report), ["socket.dir_mode", "leader.connect"]);
  });
});

test("simulator: a socket file of another uid fails socket.owner (chown, and a setpriv listener)", async (ctx) => {
  if (process.getuid?.() !== 0) {
    console.log("SKIP: needs root for chown and setpriv");
    return;
  }
  await withTui({}, async (tui, _pid, home) => {
    const sock = tui.paths.socketPath;
    chownSync(sock, 65534, 65534);
    const first = verify(sock, tui.tuiPid);
    assert.is(first.status, 1);
    assert.equal(failing(first.report), ["socket.owner", "leader.connect"]);
    chownSync(sock, 0, 0);

    // Another user's process replaces the socket while the directory is briefly open to it.
    chmodSync(dirname(home.dir), 0o711);
    chmodSync(home.dir, 0o777);
    const other = spawn(
      "setpriv",
      [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        process.execPath,
        "-e",
        `const fs=require("fs");fs.unlinkSync(${JSON.stringify(sock)});require("net").createServer().listen(${JSON.stringify(sock)},()=>console.log("ready"));`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise((resolve, reject) => {
        other.stdout?.once("data", resolve);
        other.once("exit", (code) => reject(new Error(`the uid-65534 listener exited (${code})`)));
      });
      chmodSync(home.dir, 0o700);
      const second = verify(sock, tui.tuiPid);
      assert.is(second.status, 1);
      assert.is(second.report.facts?.uid, 65534);
      assert.equal(failing(second.report), ["socket.owner", "leader.connect"]);
    } finally {
      other.kill("SIGKILL");
    }
  });
  void ctx;
});

test("simulator: a symlinked socket directory fails socket.dir_symlink", async () => {
  await withTui({}, async (tui, _pid, home) => {
    const link = join(mkdtempSync(join(tmpdir(), "grok-seat-link-")), "dir");
    try {
      symlinkSync(home.dir, link);
      const { status, report } = verify(join(link, basename(tui.paths.socketPath)), tui.tuiPid);
      assert.is(status, 1);
      assert.is(ok(report, "socket.dir_symlink"), false);
      assert.is(ok(report, "leader.connect"), false);
    } finally {
      rmSync(join(link, ".."), { recursive: true, force: true });
    }
  });
});

test("simulator: an imposter listening on the path (GROK_SIM_IMPOSTER) gets no frame: refused as connect.peer_parent", async () => {
  const logDir = mkdtempSync(join(tmpdir(), "grok-seat-imposter-"));
  const log = join(logDir, "sim.log");
  try {
    await withTui({ GROK_SIM_IMPOSTER: "1", GROK_SIM_LOG: log }, async (tui, leaderPid) => {
      // The imposter unlinks the leader's socket and binds its own at the same path.
      await waitFor("the imposter to listen", () => {
        const l = socketFacts(tui.paths.socketPath).listeners;
        return l.length > 0 && !l.includes(leaderPid);
      });
      const { status, report } = verify(tui.paths.socketPath, tui.tuiPid);
      assert.is(status, 1);
      // It listens on the very file, as our uid, with a kernel identity; but it is the leader's
      // child, not the TUI's, so the CLI refuses before `register` (lib/leader/connect-proven.ts).
      assert.equal(failing(report), ["connect.peer_parent", "leader.connect"]);
      assert.is(ok(report, "socket.listener"), true, "the socket proof alone cannot tell");
      assert.is(report.facts?.leader?.registered, null);
      const trace = readFileSync(log, "utf8").split("\n");
      assert.ok(
        trace.some((l) => l.includes('"imposter_listening"')),
        "the imposter traces",
      );
      const imposterFrames = trace.filter((l) => l.includes('"imposter_frame_in"'));
      assert.equal(imposterFrames, [], "no frame of ours reached the imposter");
    });
  } finally {
    rmSync(logDir, { recursive: true, force: true });
  }
});

test("simulator: a lock file naming another pid fails leader.lock_pid only", async () => {
  await withTui({}, async (tui, leaderPid) => {
    writeFileSync(tui.paths.lockPath, "1");
    try {
      const { status, report } = verify(tui.paths.socketPath, tui.tuiPid);
      assert.is(status, 1);
      assert.equal(failing(report), ["leader.lock_pid"]);
    } finally {
      writeFileSync(tui.paths.lockPath, String(leaderPid));
    }
  });
});

test("simulator: a leader of another uid (setpriv) is refused before register as connect.peer_uid", async () => {
  if (process.getuid?.() !== 0) {
    console.log("SKIP: needs root to start a leader as uid 65534 with setpriv");
    return;
  }
  const grok = await ensureGrokSim();
  const root = mkdtempSync(join(tmpdir(), "grok-seat-uid-"));
  const dir = join(root, "home");
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(root, 0o755);
  chownSync(dir, 65534, 65534);
  const sock = join(dir, "leader.sock");
  // This test process plays the TUI: the leader is its direct child in its cwd, as a TUI's is.
  const leader = spawn(
    "setpriv",
    [
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      grok,
      "agent",
      "leader",
      "--no-exit-on-disconnect",
      "--relay-on-demand",
    ],
    {
      cwd: process.cwd(),
      env: simEnv(dir, { GROK_LEADER_SOCKET: sock }),
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  try {
    await waitFor(
      "the uid-65534 leader",
      () => existsSync(sock) && readLockPid(join(dir, "leader.lock")) === leader.pid,
    );
    // Hand the directory and files back to us: the socket proof passes, only the process differs.
    for (const p of [dir, sock, join(dir, "leader.lock")]) chownSync(p, 0, 0);
    const { status, report } = verify(sock, process.pid, ["--grok", grok]);
    assert.is(status, 1);
    assert.equal(failing(report), ["connect.peer_uid", "leader.connect"]);
    assert.is(
      report.checks.find((c) => c.check === "connect.peer_uid")?.reason?.includes("65534"),
      true,
    );
    assert.is(report.facts?.leader?.registered, null, "nothing registered with it");
  } finally {
    leader.kill("SIGKILL");
    await waitFor(
      "leader exit",
      () => leader.pid === undefined || !pidAlive(leader.pid),
      10_000,
    ).catch(() => {});
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
