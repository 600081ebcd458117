// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The simulated TUI on a real pty (a private tmux server) and the leader it spawns, checked
 * against the kernel (docs/design/grok-leader-protocol.md §1, §8, §13; fixture 21): the leader is a direct
 * child of the TUI in its own process group with /dev/null stdio and stderr in leader.log, its
 * exe is the single-executable grok, it holds the flock and wrote its pid in the lock file,
 * active_sessions.json names the TUI, the TUI owns permission modals, and the leader outlives
 * the TUI.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  type GrokTui,
  grokHomeFixture,
  LEADER_ARGV,
  pidAlive,
  simEnv,
  startGrokLeader,
  startGrokTui,
  waitFor,
} from "../../../helpers/grok-sim.js";
import { acpClient, withSimTui } from "../../../helpers/grok-sim-clients.js";
import { cmdline, environ, exe, fdTarget, flockHolder, stat } from "../../kernel-oracles.js";
import { get, promptParams, type RawClient } from "./raw.js";

const linux = process.platform === "linux";

function activeSessions(path: string): Array<Record<string, unknown>> {
  return JSON.parse(readFileSync(path, "utf8"));
}

async function attach(tui: GrokTui): Promise<RawClient> {
  const c = await acpClient(tui.paths.socketPath, "my-lib");
  const res = await c.request("session/resume", {
    sessionId: tui.sessionId,
    cwd: tui.paths.cwd,
    mcpServers: [],
  });
  assert.is(res.error, undefined, JSON.stringify(res.error));
  return c;
}

async function sessionReady(tui: GrokTui): Promise<void> {
  await tui.sessionReady();
  await waitFor("active_sessions.json entry", () => {
    try {
      return activeSessions(tui.paths.activeSessions).some((e) => e.session_id === tui.sessionId);
    } catch {
      return false;
    }
  });
}

test.before(async () => {
  await ensureGrokSim();
});

test("the TUI spawns the leader as §1 says, and the kernel agrees", async () => {
  if (!linux) {
    console.log("SKIP: /proc oracles are Linux-only");
    return;
  }
  const grok = realpathSync(await ensureGrokSim());
  await withSimTui({}, async ({ tui }) => {
    const leader = await tui.leaderPid();
    await sessionReady(tui);
    assert.is.not(leader, tui.tuiPid);
    assert.is(stat(leader).ppid, tui.tuiPid, "the leader is a direct child of the TUI");
    assert.is(stat(leader).pgrp, leader, "in a new process group");
    assert.is.not(stat(tui.tuiPid).pgrp, leader);
    assert.is(exe(leader), grok);
    assert.is(exe(tui.tuiPid), grok);
    assert.equal(cmdline(leader), [grok, ...LEADER_ARGV]);
    assert.is(fdTarget(leader, 0), "/dev/null");
    assert.is(fdTarget(leader, 1), "/dev/null");
    assert.is(fdTarget(leader, 2), tui.paths.leaderLog);
    assert.is(environ(leader).get("GROK_LEADER_SOCKET"), tui.paths.socketPath);
    assert.ok(environ(leader).has("RUST_LOG"));
    assert.is(
      readFileSync(tui.paths.lockPath, "utf8"),
      String(leader),
      "lock file: the pid, no newline",
    );
    assert.is(
      flockHolder(tui.paths.lockPath),
      leader,
      "/proc/locks names the leader as the flock holder",
    );
    const entries = activeSessions(tui.paths.activeSessions);
    const mine = entries.find((e) => e.session_id === tui.sessionId);
    assert.equal(Object.keys(mine ?? {}), ["session_id", "pid", "cwd", "opened_at"]);
    assert.is(mine?.pid, tui.tuiPid, "active_sessions.json names the TUI, not the leader");
    assert.is(mine?.cwd, tui.paths.cwd);
    assert.match(
      String(mine?.opened_at),
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6}|\.\d{9})?Z$/,
    );
    assert.ok(
      readFileSync(tui.paths.activeSessions, "utf8").startsWith('[\n  {\n    "session_id"'),
    );
    const screen = await tui.waitForScreen(`leader pid ${leader}`);
    assert.ok(screen.includes(tui.sessionId));
  });
});

test("the leader outlives the TUI: /quit unregisters, the leader keeps serving and is reparented", async () => {
  await withSimTui({}, async ({ tui }) => {
    const leader = await tui.leaderPid();
    await sessionReady(tui);
    await tui.typeIntoTui("/quit");
    await waitFor("TUI exit", () => !pidAlive(tui.tuiPid));
    assert.ok(pidAlive(leader), "the leader is still running");
    const entries = activeSessions(tui.paths.activeSessions);
    assert.ok(!entries.some((e) => e.session_id === tui.sessionId), "the entry was removed");
    // Reparenting completes when the TUI's last thread is gone, a moment after its main thread.
    if (linux) await waitFor("leader reparented", () => stat(leader).ppid !== tui.tuiPid);
    assert.ok(existsSync(tui.paths.socketPath));
    const c = await acpClient(tui.paths.socketPath, "after");
    const res = await c.request("session/load", {
      sessionId: tui.sessionId,
      cwd: tui.paths.cwd,
      mcpServers: [],
    });
    assert.is(get(res, "result", "_meta", "sessionId"), tui.sessionId);
    c.destroy();
  });
});

test("SIGTERM to the TUI also unregisters its active_sessions.json entry", async () => {
  await withSimTui({}, async ({ tui }) => {
    await tui.leaderPid();
    await sessionReady(tui);
    process.kill(tui.tuiPid, "SIGTERM");
    await waitFor("TUI exit", () => !pidAlive(tui.tuiPid));
    assert.ok(
      !activeSessions(tui.paths.activeSessions).some((e) => e.session_id === tui.sessionId),
    );
  });
});

test("the TUI is the owner: it shows other clients' prompts and the permission modal, and answers it", async () => {
  await withSimTui({ env: { GROK_SIM_OWNER: "manual" } }, async ({ tui }) => {
    await tui.leaderPid();
    await sessionReady(tui);
    const c = await attach(tui);
    c.sendPrompt(1, tui.sessionId, "from the library [[sim:permission]]", { promptId: "P-lib" });
    const req = await c.nextAcp((m) => m.method === "session/request_permission");
    await tui.waitForScreen("from the library");
    await tui.waitForScreen("Permission requested: Run simulated command");
    // The library stays silent; the owner presses y.
    await tui.typeIntoTui("y", { enter: false });
    await c.nextAcp((m) => get(m, "params", "update", "sessionUpdate") === "interaction_resolved");
    const done = await c.nextAcp((m) => m.id === 1);
    assert.is(get(done, "result", "stopReason"), "end_turn");
    await tui.waitForScreen("Permission was granted");
    assert.ok(req.id !== undefined);
    c.destroy();
  });
});

test("GROK_SIM_OWNER=deny: the TUI denies permission requests itself after the delay", async () => {
  await withSimTui(
    { env: { GROK_SIM_OWNER: "deny", GROK_SIM_OWNER_DELAY_MS: "200" } },
    async ({ tui }) => {
      await tui.leaderPid();
      await sessionReady(tui);
      const c = await attach(tui);
      const res = await c.request(
        "session/prompt",
        promptParams(tui.sessionId, "[[sim:permission]] [[sim:ask]] please", {
          promptId: "P-deny",
        }),
      );
      assert.is(get(res, "result", "stopReason"), "end_turn");
      const text = c
        .updates("agent_message_chunk")
        .map((m) => String(get(m, "params", "update", "content", "text")))
        .join("");
      assert.match(text, /Permission was denied\. The question was cancelled\./);
      c.destroy();
    },
  );
});

test("queueing behind a TUI turn: the owner's prompt runs, ours waits in entries, cancel moves on", async () => {
  await withSimTui({}, async ({ tui }) => {
    await tui.leaderPid();
    await sessionReady(tui);
    const c = await attach(tui);
    await tui.typeIntoTui("[[sim:sleep=20000]] the owner's long turn");
    const running = await c.nextAcp(
      (m) =>
        m.method === "_x.ai/queue/changed" && get(m, "params", "runningPromptId") !== undefined,
    );
    const tuiPrompt = String(get(running, "params", "runningPromptId"));
    assert.match(tuiPrompt, /^[0-9a-f-]{36}$/, "the TUI uses a UUID promptId");
    c.sendPrompt(5, tui.sessionId, "ours", { promptId: "P-ours", clientIdentifier: "my-lib" });
    const q = await c.nextAcp(
      (m) => m.method === "_x.ai/queue/changed" && JSON.stringify(m).includes("P-ours"),
    );
    assert.equal(get(q, "params", "entries"), [
      { id: "P-ours", version: 0, owner: "my-lib", kind: "prompt", text: "ours", position: 0 },
    ]);
    assert.is(get(q, "params", "runningPromptId"), tuiPrompt);
    await tui.waitForScreen("ours (my-lib)");
    c.notify("session/cancel", { sessionId: tui.sessionId });
    const tc = await c.nextAcp(
      (m) => get(m, "params", "update", "sessionUpdate") === "turn_completed",
    );
    assert.equal(
      [get(tc, "params", "update", "prompt_id"), get(tc, "params", "update", "stop_reason")],
      [tuiPrompt, "cancelled"],
    );
    const ours = await c.nextAcp((m) => m.id === 5);
    assert.is(get(ours, "result", "stopReason"), "end_turn");
    c.destroy();
  });
});

test("a second TUI on the same socket adopts the live leader", async () => {
  await withSimTui({}, async ({ tui: first, home }) => {
    const leader = await first.leaderPid();
    await sessionReady(first);
    const second = await startGrokTui({
      grokHome: home.dir,
      cwd: home.cwd,
      socketPath: first.paths.socketPath,
    });
    try {
      await sessionReady(second);
      assert.is(await second.leaderPid(), leader);
      const entries = activeSessions(join(home.dir, "active_sessions.json"));
      assert.equal(entries.map((e) => e.pid).sort(), [first.tuiPid, second.tuiPid].sort());
    } finally {
      await second.stop();
    }
  });
});

test("a TUI newer than the live leader evicts it (relaunch_for_update) and spawns its own", async () => {
  const home = grokHomeFixture();
  const socketPath = join(home.dir, "evict.sock");
  const old = await startGrokLeader({
    grokHome: home.dir,
    cwd: home.cwd,
    socketPath,
    env: { GROK_SIM_LEADER_VERSION: "1.0.47" },
  });
  const tui = await startGrokTui({ grokHome: home.dir, cwd: home.cwd, socketPath });
  try {
    await waitFor("old leader exit", () => old.child.exitCode !== null);
    assert.is(old.child.exitCode, 0, "a relaunch is a graceful auto_update exit");
    const fresh = await tui.leaderPid();
    assert.is.not(fresh, old.pid);
    if (linux) assert.is(stat(fresh).ppid, tui.tuiPid);
    await tui.sessionReady();
  } finally {
    await tui.stop();
    await old.stop();
    home.remove();
  }
});

test("--leader-socket relative to the launch dir; session id must be a new UUID", async () => {
  const grok = await ensureGrokSim();
  const home = grokHomeFixture();
  try {
    const env = simEnv(home.dir);
    const bad = spawnSync(grok, ["--leader", "--session-id", "not-a-uuid"], {
      cwd: home.cwd,
      env,
      encoding: "utf8",
    });
    assert.is(bad.status, 1);
    assert.is(bad.stderr, "Error: Error: --session-id must be a valid UUID (got 'not-a-uuid').\n");
    const taken = randomUUID();
    const dir = join(home.dir, "sessions", encodeURIComponent(home.cwd), taken);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "summary.json"), "{}");
    const used = spawnSync(grok, ["--leader", "--session-id", taken], {
      cwd: home.cwd,
      env,
      encoding: "utf8",
    });
    assert.is(used.status, 1);
    assert.is(used.stderr, `Error: Error: Session ID ${taken} is already in use.\n`);
    // grok never creates the directory of a custom socket; the caller does.
    mkdirSync(join(home.cwd, "rel"), { recursive: true });
    const tui = await startGrokTui({
      grokHome: home.dir,
      cwd: home.cwd,
      socketPath: "rel/leader.sock",
    });
    try {
      const leader = await waitFor(
        "leader",
        () => {
          const p = join(home.cwd, "rel", "leader.lock");
          return existsSync(p) && /^\d+$/.test(readFileSync(p, "utf8"))
            ? Number(readFileSync(p, "utf8"))
            : undefined;
        },
        20_000,
      );
      if (linux)
        assert.is(environ(leader).get("GROK_LEADER_SOCKET"), `${home.cwd}/rel/leader.sock`);
      await waitFor("socket", () => existsSync(join(home.cwd, "rel", "leader.sock")));
      try {
        process.kill(leader, "SIGKILL");
      } catch {
        // gone
      }
    } finally {
      await tui.stop();
    }
  } finally {
    home.remove();
  }
});

test.run();
