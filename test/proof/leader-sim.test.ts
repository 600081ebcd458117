// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The leader proof's whole flow (connect, register, get_leader_info, kernel facts) against a real
 * leader process: the grok simulator's TUI (a real TUI on a tmux pty, its detached leader), through
 * the CLI, `verify-proof socket <path> --leader --tui-pid <tui> --json`, as a user would run it. The
 * pure checks are test/proof/leader.test.ts.
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
import { checkActiveSession, readActiveSessions } from "../../lib/grok/active-sessions.js";
import { processFacts, socketFacts } from "../../lib/kernel/index.js";
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
