// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
/**
 * The pane proof end to end against the Herdr simulator: panes are real tmux terminals, the pane
 * process is the argv command, and the kernel (`ps`, pidfs identity) is the oracle. Every
 * tampering is refused by its check name; the injection log stays empty throughout.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { launchPane } from "../../lib/herdr/launch.js";
import { systemKernel } from "../../lib/kernel/index.js";
import { bindPane, verifyPane } from "../../lib/observe/pane.js";
import { ensureGrokSim, grokHomeFixture, readLockPid } from "../helpers/grok-sim.js";
import { type HerdrSimHandle, herdrPreset, startHerdrSim } from "../helpers/herdr-sim.js";
import { startRewriteProxy } from "../herdr/rewrite-proxy.js";
import {
  agentReason,
  failedNames,
  kill,
  launchAndBind,
  newClient,
  psTty,
  reportAs,
  waitGone,
} from "../herdr/sim-support.js";
import { sessionMembers } from "../sim/herdr/procfs.js";

let sim: HerdrSimHandle;
const launched: number[] = [];

test.before(async () => {
  sim = await startHerdrSim({ switches: { detectMs: 150 } });
});
test.after(async () => {
  for (const pid of launched) kill(pid);
  await sim.stop();
});

/** A launched and bound pane whose process is killed after the test. */
async function boundPane(client: ReturnType<typeof newClient>, nativeSessionId?: string) {
  const bound = await launchAndBind(
    client,
    sim.sessionName,
    nativeSessionId === undefined ? {} : { nativeSessionId },
  );
  launched.push(bound.record.process.pid);
  return bound;
}

/** The Grok hook's report of a native session id on a pane (herdr:grok is session-only). */
function reportGrokSession(paneId: string, sessionId: string) {
  return reportAs(sim.socketPath, "pane.report_agent_session", {
    pane_id: paneId,
    source: "herdr:grok",
    agent: "grok",
    agent_session_id: sessionId,
  });
}

test("launch -> bound record on a real pty; the kernel's terminal is what ps says", async () => {
  const client = newClient(sim.socketPath);
  const { launch, record } = await boundPane(client);
  assert.equal(launch.argv, ["sleep", "600"]);
  assert.is(record.pane.paneId, launch.paneId);
  assert.is(record.process.tty, psTty(record.process.pid));
  assert.ok(record.process.tty.startsWith("/dev/pts/"));
  assert.is(record.process.executable, realpathSync("/usr/bin/sleep"));
  assert.is(record.herdr.server.pid, sim.pid);
  assert.is(record.herdr.sessionName, sim.sessionName);
  // Herdr never fills tty (tests/api_ping.rs); the terminal came from the kernel.
  const info = await client.request("pane.process_info", { pane_id: launch.paneId });
  assert.is(info.process_info.tty, undefined);
  assert.is(info.process_info.shell_pid, record.process.pid);

  const v = await verifyPane(client, systemKernel, record);
  assert.equal(failedNames(v.checks), []);
  assert.is(v.agent?.ok, true);
});

test("pane replaced (its tab re-applied): refused as pane.present", async () => {
  const client = newClient(sim.socketPath);
  const { record } = await boundPane(client);
  const replaced = await client.request("layout.apply", {
    tab_id: record.pane.tabId,
    root: { type: "pane", command: ["sleep", "600"] },
  });
  const root = replaced.layout.root;
  assert.is(root.type, "pane");
  const v = await verifyPane(client, systemKernel, record);
  const failed = failedNames(v.checks);
  assert.ok(failed.includes("pane.present"), failed.join());
  const present = v.checks.find((c) => c.check === "pane.present");
  assert.equal(present?.received, { unavailable: "pane_not_found" });
  if (root.type === "pane" && typeof root.pane_id === "string") {
    const info = await client.request("pane.process_info", { pane_id: root.pane_id });
    if (info.process_info.shell_pid !== undefined && info.process_info.shell_pid !== null) {
      launched.push(info.process_info.shell_pid);
    }
  }
});

test("native session id changed: refused as pane.native_session and native_session_changed", async () => {
  const client = newClient(sim.socketPath);
  const ours = "0198c2d4-0000-7000-8000-000000000001";
  const { record } = await boundPane(client, ours);
  await reportGrokSession(record.pane.paneId, "0198c2d4-0000-7000-8000-0000000000ff");
  const v = await verifyPane(client, systemKernel, record);
  assert.equal(failedNames(v.checks), ["pane.agent", "pane.native_session"]);
  assert.is(agentReason(v.checks), "native_session_changed");
});

test("our own session reported by the hook: accepted, both fields agree", async () => {
  const client = newClient(sim.socketPath);
  const ours = "0198c2d4-0000-7000-8000-000000000002";
  const { record } = await boundPane(client, ours);
  await reportGrokSession(record.pane.paneId, ours);
  const v = await verifyPane(client, systemKernel, record);
  assert.equal(failedNames(v.checks), []);
  assert.equal(v.agent, {
    ok: true,
    agent: "grok",
    agentFrom: "both",
    nativeSessionId: ours,
    nativeSessionKind: "id",
    sessionSource: "herdr:grok",
  });
});

test("contradictory report (custom label, then the official session): agent_contradiction; 0.9.3 omits the label", async () => {
  const client = newClient(sim.socketPath);
  const { record } = await boundPane(client);
  // §5.5 path 1: a custom authority label, then the Grok hook's session report.
  await reportAs(sim.socketPath, "pane.report_agent", {
    pane_id: record.pane.paneId,
    source: "custom:seat",
    agent: "grok-leader",
    state: "working",
  });
  await reportGrokSession(record.pane.paneId, "0198c2d4-0000-7000-8000-000000000003");
  const v = await verifyPane(client, systemKernel, record);
  if (herdrPreset() === "0.9.3") {
    // 0.9.3 omits the top-level agent after pane.report_agent (ADR 0224): only the nested
    // agent_session.agent is left, which is accepted.
    assert.equal(failedNames(v.checks), []);
    assert.equal(v.agent?.ok === true && [v.agent.agent, v.agent.agentFrom], ["grok", "nested"]);
    return;
  }
  assert.equal(failedNames(v.checks), ["pane.agent"]);
  assert.is(agentReason(v.checks), "agent_contradiction");
});

test("process restarted in the same pane (through a rewriting proxy): refused by pid and identity", async () => {
  const proxy = await startRewriteProxy(sim.socketPath);
  try {
    const client = newClient(proxy.socketPath);
    const a = await launchAndBind(client, sim.sessionName);
    const b = await launchAndBind(client, sim.sessionName);
    launched.push(a.record.process.pid, b.record.process.pid);
    kill(a.record.process.pid);
    await waitGone(a.record.process.pid);
    proxy.rewrites.redirect = {
      from: a.record.pane.paneId,
      to: b.record.pane.paneId,
      keepTerminalId: a.record.pane.terminalId,
    };
    const v = await verifyPane(client, systemKernel, a.record);
    const failed = failedNames(v.checks);
    for (const name of ["pane.shell_pid", "pane.process_identity", "pane.agent"]) {
      assert.ok(failed.includes(name), `${name} in ${failed.join()}`);
    }
    assert.not.ok(failed.includes("pane.present"));
    assert.not.ok(failed.includes("pane.terminal_id"));
    assert.is(agentReason(v.checks), "pid_changed");
  } finally {
    await proxy.stop();
  }
});

test("terminal changed (through a rewriting proxy): refused as pane.terminal_id", async () => {
  const proxy = await startRewriteProxy(sim.socketPath);
  try {
    const client = newClient(proxy.socketPath);
    const { record } = await boundPane(client);
    assert.equal(failedNames((await verifyPane(client, systemKernel, record)).checks), []);
    proxy.rewrites.terminal = { paneId: record.pane.paneId, terminalId: "term_0000000000aaaa" };
    const v = await verifyPane(client, systemKernel, record);
    assert.equal(failedNames(v.checks), ["pane.terminal_id", "pane.agent"]);
    assert.is(agentReason(v.checks), "terminal_changed");
  } finally {
    await proxy.stop();
  }
});

test("Herdr upgraded under us: refused as herdr.version", async () => {
  const client = newClient(sim.socketPath);
  const { record } = await boundPane(client);
  await sim.configure({ version: "0.8.1", protocol: 20 });
  try {
    const v = await verifyPane(client, systemKernel, record);
    assert.equal(failedNames(v.checks), ["herdr.version"]);
  } finally {
    await sim.configure({ version: "0.8.0", protocol: 19 });
  }
});

test("descriptor changed (server restarted on the same path, same pane id reused): refused", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-herdr-restart-"));
  const sessionName = `restart-${process.pid}`;
  const first = await startHerdrSim({ dir, sessionName, switches: { detectMs: 100 } });
  let second: HerdrSimHandle | null = null;
  const pids: number[] = [];
  try {
    const client = newClient(first.socketPath);
    const { record } = await launchAndBind(client, sessionName);
    pids.push(record.process.pid);
    await first.stop();
    second = await startHerdrSim({ dir, sessionName, switches: { detectMs: 100 } });
    assert.is(second.socketPath, first.socketPath);
    // A fresh server hands out the same public ids again (w1:p2): only the descriptor, the
    // terminal id and the process tell the panes apart.
    const again = await launchAndBind(client, sessionName);
    pids.push(again.record.process.pid);
    assert.is(again.record.pane.paneId, record.pane.paneId);
    const v = await verifyPane(client, systemKernel, record);
    const failed = failedNames(v.checks);
    for (const name of [
      "herdr.server_pid",
      "herdr.server_identity",
      "pane.terminal_id",
      "pane.shell_pid",
      "pane.process_identity",
    ]) {
      assert.ok(failed.includes(name), `${name} in ${failed.join()}`);
    }
    assert.not.ok(failed.includes("pane.present"));
  } finally {
    for (const pid of pids) kill(pid);
    await second?.stop();
    await first.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the grok simulator's TUI as the pane command: bound, detected and accepted as grok", async () => {
  const grok = await ensureGrokSim();
  const home = grokHomeFixture();
  const sessionId = randomUUID();
  const leaderSocket = join(home.dir, "leader.sock");
  let tuiPid: number | null = null;
  try {
    const client = newClient(sim.socketPath);
    const launch = await launchPane(client, {
      argv: [grok, "--leader", "--leader-socket", leaderSocket, "--session-id", sessionId],
      cwd: home.cwd,
      // Launched here without a seat, so the test sets what a seat would (no self-update).
      env: { GROK_HOME: home.dir, GROK_DISABLE_AUTOUPDATER: "1" },
      label: "grok leader",
      target: { newWorkspace: { label: "grok" } },
    });
    const bound = await bindPane(client, systemKernel, {
      paneId: launch.paneId,
      launch: { argv: launch.argv, cwd: launch.cwd },
      sessionName: sim.sessionName,
      nativeSessionId: sessionId,
      expectedAgent: "grok",
      agentTimeoutMs: 10_000,
    });
    const record = bound.record;
    assert.ok(record, JSON.stringify(bound.checks.filter((c) => !c.ok)));
    if (record === null) return;
    tuiPid = record.process.pid;
    assert.is(record.process.executable, realpathSync(grok));
    assert.is(record.process.cwd, realpathSync(home.cwd));
    assert.is(record.process.tty, psTty(record.process.pid));
    // The official Grok hook reports our session: both fields then agree on it.
    await reportGrokSession(launch.paneId, sessionId);
    const v = await verifyPane(client, systemKernel, record);
    assert.equal(failedNames(v.checks), []);
    assert.is(v.agent?.ok && v.agent.nativeSessionId, sessionId);
  } finally {
    // The simulated TUI and its leader (same session) outlive a killed tmux server: stop them.
    if (tuiPid !== null) for (const pid of [...sessionMembers(tuiPid), tuiPid]) kill(pid);
    const leader = readLockPid(join(home.dir, "leader.lock"));
    if (leader !== undefined) kill(leader);
    home.remove();
  }
});

test("no input was ever injected into a pane", async () => {
  assert.equal(await sim.injectionLog(), []);
});

test.run();
