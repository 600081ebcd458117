/**
 * Exit observation with a real child process (kernel handle on its pidfs identity) and an in-test
 * Herdr that replays history, pushes other panes' events and answers the anchor `pane.get`.
 * The end-to-end version against the Herdr simulator is in test/herdr/pane-proof.test.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { HerdrClient } from "../../lib/herdr/client.js";
import { processFacts, systemKernel } from "../../lib/kernel/index.js";
import { watchPaneExit } from "../../lib/observe/pane-exit.js";
import type { PaneProofRecord } from "../../lib/proof/pane.js";
import { type FakeConn, startFakeHerdr, until } from "../herdr/fake-server.js";

const PANE = "w1:p2";
const TERMINAL = "term_64a1f3c2b9e0d5";

function recordFor(pid: number): PaneProofRecord {
  const f = processFacts(pid);
  return {
    version: 1,
    boundAt: new Date().toISOString(),
    pane: { paneId: PANE, terminalId: TERMINAL, workspaceId: "w1", tabId: "w1:t2" },
    launch: null,
    process: {
      pid,
      identity: f.identity,
      startTimeUs: f.startTimeUs,
      startTimePrecisionUs: f.startTimePrecisionUs,
      executable: f.executable,
      cwd: f.cwd,
      uid: f.uid,
      tty: "/dev/pts/0",
    },
    herdr: {
      socketPath: "/x",
      sessionName: null,
      version: "0.8.0",
      protocol: 19,
      capabilities: null,
      socketFile: { device: "1", inode: "2", uid: 0, mode: 0o600 },
      server: { pid: 1, uid: 0, identity: null, method: "SO_PEERCRED" },
    },
    nativeSessionId: null,
    expectedAgent: null,
  };
}

const paneInfo = {
  pane_id: PANE,
  terminal_id: TERMINAL,
  workspace_id: "w1",
  tab_id: "w1:t2",
  focused: true,
  agent_status: "unknown",
  revision: 0,
};
const exitedLine = (pane: string): string =>
  `${JSON.stringify({ event: "pane_exited", data: { type: "pane_exited", pane_id: pane, workspace_id: "w1" } })}\n`;

interface World {
  child: ChildProcess;
  streams: FakeConn[];
  paneAlive: boolean;
}

/** A fake Herdr whose pane w1:p2 "runs" `world.child`, with a replayed history on subscribe. */
async function fakeFor(world: World, opts: { liveEvent: boolean; refuseSubscribe?: boolean }) {
  return startFakeHerdr((conn) => {
    const method = conn.request?.method;
    if (method === "events.subscribe") {
      if (opts.refuseSubscribe === true) {
        conn.socket.destroy();
        return;
      }
      world.streams.push(conn);
      // Ack, then history: our own pane id (impossible while alive, so must be ignored) and others.
      conn.writeRaw(
        `${JSON.stringify({ id: conn.request?.id, result: { type: "subscription_started" } })}\n${exitedLine(PANE)}${exitedLine("w1:p1")}`,
      );
      return;
    }
    if (method === "pane.get") {
      if (world.paneAlive)
        conn.reply({ id: conn.request?.id, result: { type: "pane_info", pane: paneInfo } });
      else
        conn.reply({
          id: conn.request?.id,
          error: { code: "pane_not_found", message: `pane ${PANE} not found` },
        });
    }
  }).then((fake) => {
    world.child.once("exit", () => {
      world.paneAlive = false;
      if (opts.liveEvent)
        for (const s of world.streams) s.writeRaw(exitedLine("w1:p5") + exitedLine(PANE));
    });
    return fake;
  });
}

function sleeper(): ChildProcess {
  return spawn("sleep", ["1000"], { stdio: "ignore" });
}

test("kernel exit on the bound identity, corroborated by a live pane_exited; history ignored", async () => {
  const world: World = { child: sleeper(), streams: [], paneAlive: true };
  const fake = await fakeFor(world, { liveEvent: true });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const watch = await watchPaneExit(client, systemKernel, recordFor(world.child.pid ?? 0));
    assert.is(watch.anchored, true);
    world.child.kill("SIGTERM");
    const verdict = await watch.verdict;
    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, true);
    assert.is(verdict.kernel.kind, "exited");
    if (verdict.kernel.kind === "exited") assert.is(verdict.kernel.pid, world.child.pid);
    assert.is(verdict.herdr.kind, "pane_exited");
    assert.is(verdict.ignored.beforeAnchor, 1);
    assert.ok(verdict.ignored.otherPanes >= 1);
    // The stream was closed by destroying it, never written to.
    await until(
      () => world.streams.every((s) => s.socket.destroyed || s.sawEof()),
      2000,
      "stream close",
    );
    assert.ok(world.streams.every((s) => s.extraBytes() === 0));
  } finally {
    world.child.kill("SIGKILL");
    await fake.stop();
  }
});

test("a Herdr exit event alone establishes nothing while the process lives", async () => {
  const world: World = { child: sleeper(), streams: [], paneAlive: true };
  const fake = await fakeFor(world, { liveEvent: false });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const watch = await watchPaneExit(client, systemKernel, recordFor(world.child.pid ?? 0), {
      timeoutMs: 300,
    });
    for (const s of world.streams) s.writeRaw(exitedLine(PANE)); // a lying or confused server
    const verdict = await watch.verdict;
    assert.is(verdict.exited, false);
    assert.is(verdict.corroborated, false);
    assert.equal(verdict.kernel, { kind: "pending", reason: "timeout" });
    assert.is(verdict.herdr.kind, "pane_exited");
    assert.ok(world.child.exitCode === null && world.child.signalCode === null, "child still runs");
  } finally {
    world.child.kill("SIGKILL");
    await fake.stop();
  }
});

test("a pid whose identity differs from the record is never watched", async () => {
  const world: World = { child: sleeper(), streams: [], paneAlive: true };
  const fake = await fakeFor(world, { liveEvent: false });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const rec = recordFor(world.child.pid ?? 0);
    const forged = {
      ...rec,
      process: {
        ...rec.process,
        identity: { ...rec.process.identity, value: `${rec.process.identity.value}0` },
      },
    };
    const watch = await watchPaneExit(client, systemKernel, forged);
    const verdict = await watch.verdict;
    assert.is(verdict.exited, false);
    assert.is(verdict.kernel.kind, "unavailable");
    if (verdict.kernel.kind === "unavailable") assert.is(verdict.kernel.code, "NO_SUCH_PROCESS");
  } finally {
    world.child.kill("SIGKILL");
    await fake.stop();
  }
});

test("no event and a failed subscription: the kernel still establishes the exit; pane_gone noted", async () => {
  const world: World = { child: sleeper(), streams: [], paneAlive: true };
  const fake = await fakeFor(world, { liveEvent: false, refuseSubscribe: true });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const watch = await watchPaneExit(client, systemKernel, recordFor(world.child.pid ?? 0));
    world.child.kill("SIGTERM");
    const verdict = await watch.verdict;
    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, false);
    assert.equal(verdict.herdr, {
      kind: "none",
      reason: "subscribe_failed",
      code: "HERDR_CLOSED_EARLY",
    });
  } finally {
    world.child.kill("SIGKILL");
    await fake.stop();
  }
});

test("no live event within the grace period: pane.get pane_not_found is recorded as pane_gone", async () => {
  const world: World = { child: sleeper(), streams: [], paneAlive: true };
  const fake = await fakeFor(world, { liveEvent: false });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const watch = await watchPaneExit(client, systemKernel, recordFor(world.child.pid ?? 0), {
      corroborationTimeoutMs: 100,
    });
    world.child.kill("SIGTERM");
    const verdict = await watch.verdict;
    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, false);
    assert.equal(verdict.herdr, { kind: "pane_gone" });
  } finally {
    world.child.kill("SIGKILL");
    await fake.stop();
  }
});

test("close() cancels a pending watch", async () => {
  const world: World = { child: sleeper(), streams: [], paneAlive: true };
  const fake = await fakeFor(world, { liveEvent: false });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const watch = await watchPaneExit(client, systemKernel, recordFor(world.child.pid ?? 0));
    watch.close();
    const verdict = await watch.verdict;
    assert.equal(verdict.kernel, { kind: "pending", reason: "cancelled" });
    assert.is(verdict.exited, false);
  } finally {
    world.child.kill("SIGKILL");
    await fake.stop();
  }
});

test.run();
