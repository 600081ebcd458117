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
import { type ExitWatchOptions, watchPaneExit } from "../../lib/observe/pane-exit.js";
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
  stop?: () => void;
}

interface FakeOptions {
  liveEvent: boolean;
  refuseSubscribe?: boolean;
  /** Answer the subscribe with this Herdr error instead of `subscription_started`. */
  subscribeError?: string;
  /** After the ack and history, push this Herdr error line on the stream, then close. */
  streamError?: string;
  /**
   * After the child exits: push this many other panes' exits, one per 100 ms (Herdr's pacing),
   * before ours (a busy 0.8 server replaying its ring); `Infinity` never gets to ours.
   */
  replayAfterExit?: number;
}

const errorLine = (id: unknown, code: string): string =>
  `${JSON.stringify({ id, error: { code, message: `${code} (test)` } })}\n`;

/** A fake Herdr whose pane w1:p2 "runs" `world.child`, with a replayed history on subscribe. */
async function fakeFor(world: World, opts: FakeOptions) {
  return startFakeHerdr((conn) => {
    const method = conn.request?.method;
    if (method === "events.subscribe") {
      if (opts.refuseSubscribe === true) {
        conn.socket.destroy();
        return;
      }
      if (opts.subscribeError !== undefined) {
        conn.writeRaw(errorLine(conn.request?.id, opts.subscribeError));
        conn.socket.destroy();
        return;
      }
      world.streams.push(conn);
      // Ack, then history: our own pane id (impossible while alive, so must be ignored) and others.
      conn.writeRaw(
        `${JSON.stringify({ id: conn.request?.id, result: { type: "subscription_started" } })}\n${exitedLine(PANE)}${exitedLine("w1:p1")}`,
      );
      if (opts.streamError !== undefined) {
        conn.writeRaw(errorLine(conn.request?.id, opts.streamError));
        conn.socket.destroy();
      }
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
      const replay = opts.replayAfterExit ?? 0;
      if (replay > 0) {
        let sent = 0;
        const tick = setInterval(() => {
          for (const s of world.streams) {
            if (sent < replay) s.writeRaw(exitedLine(`w3:p${sent + 10}`));
            else s.writeRaw(exitedLine(PANE));
          }
          if (sent++ >= replay) clearInterval(tick);
        }, 100);
        world.stop = () => clearInterval(tick);
        return;
      }
      if (opts.liveEvent)
        for (const s of world.streams) s.writeRaw(exitedLine("w1:p5") + exitedLine(PANE));
    });
    return fake;
  });
}

function sleeper(): ChildProcess {
  return spawn("sleep", ["1000"], { stdio: "ignore" });
}

/** Watch the world's child under the record its pid gives now. */
const watchChild = (world: World, client: HerdrClient, options?: ExitWatchOptions) =>
  watchPaneExit(client, systemKernel, recordFor(world.child.pid ?? 0), options);

/** Arm the watch, end the child (SIGTERM), and return the watch's verdict on that exit. */
async function exitVerdict(
  world: World,
  client: HerdrClient,
  options?: ExitWatchOptions,
): Promise<Awaited<ReturnType<typeof watchChild>>["verdict"]> {
  const watch = await watchChild(world, client, options);
  world.child.kill("SIGTERM");
  return watch.verdict;
}

/** A sleeping child in pane w1:p2 of a fake Herdr and a client on it; all ended after `body`. */
async function inWorld(
  opts: FakeOptions,
  body: (world: World, client: HerdrClient) => Promise<void>,
): Promise<void> {
  const world: World = { child: sleeper(), streams: [], paneAlive: true };
  const fake = await fakeFor(world, opts);
  try {
    await body(world, new HerdrClient({ socketPath: fake.socketPath }));
  } finally {
    world.stop?.();
    world.child.kill("SIGKILL");
    await fake.stop();
  }
}

test("kernel exit on the bound identity, corroborated by a live pane_exited; history ignored", async () => {
  await inWorld({ liveEvent: true }, async (world, client) => {
    const watch = await watchChild(world, client);
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
  });
});

test("a Herdr exit event alone establishes nothing while the process lives", async () => {
  await inWorld({ liveEvent: false }, async (world, client) => {
    const watch = await watchChild(world, client, {
      timeoutMs: 300,
    });
    for (const s of world.streams) s.writeRaw(exitedLine(PANE)); // a lying or confused server
    const verdict = await watch.verdict;
    assert.is(verdict.exited, false);
    assert.is(verdict.corroborated, false);
    assert.equal(verdict.kernel, { kind: "pending", reason: "timeout" });
    assert.is(verdict.herdr.kind, "pane_exited");
    assert.ok(world.child.exitCode === null && world.child.signalCode === null, "child still runs");
  });
});

test("a pid whose identity differs from the record is never watched", async () => {
  await inWorld({ liveEvent: false }, async (world, client) => {
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
  });
});

test("no event and a failed subscription: the kernel still establishes the exit; pane_gone noted", async () => {
  await inWorld({ liveEvent: false, refuseSubscribe: true }, async (world, client) => {
    const verdict = await exitVerdict(world, client);
    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, false);
    assert.equal(verdict.herdr, {
      kind: "none",
      reason: "subscribe_failed",
      code: "HERDR_CLOSED_EARLY",
    });
  });
});

test("no live event within the grace period: pane.get pane_not_found is recorded as pane_gone", async () => {
  await inWorld({ liveEvent: false }, async (world, client) => {
    const verdict = await exitVerdict(world, client, {
      corroborationTimeoutMs: 100,
    });
    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, false);
    assert.equal(verdict.herdr, { kind: "pane_gone" });
  });
});

test("a replay longer than the quiet window: the wait follows the stream, and the exit corroborates", async () => {
  // 40 other exits at Herdr's 100 ms pacing (about 4 s) before ours; the stream is never quiet
  // for 1.5 s, so the watch keeps waiting (a fixed 1.5 s window would give up at 1.5 s).
  await inWorld({ liveEvent: false, replayAfterExit: 40 }, async (world, client) => {
    const verdict = await exitVerdict(world, client, {
      corroborationTimeoutMs: 1500,
    });
    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, true, JSON.stringify(verdict.herdr));
    assert.ok(verdict.ignored.otherPanes >= 41, JSON.stringify(verdict.ignored));
  });
});

test("a stream that never reaches our exit: the wait ends at its limit, the kernel's exit stands", async () => {
  await inWorld({ liveEvent: false, replayAfterExit: Infinity }, async (world, client) => {
    const verdict = await exitVerdict(world, client, {
      corroborationTimeoutMs: 1000,
      corroborationLimitMs: 1500,
    });
    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, false);
    assert.equal(verdict.herdr, { kind: "pane_gone" });
  });
});

for (const [code, reason] of [
  ["events_lost", "events_lost"],
  ["cursor_evicted_v2", "herdr_error"],
] as const) {
  test(`a Herdr ${code} on the stream is named (${reason}): never an exit, never a hang`, async () => {
    await inWorld({ liveEvent: true, streamError: code }, async (world, client) => {
      const alive = await watchChild(world, client, {
        timeoutMs: 500,
      });
      const pending = await alive.verdict;
      assert.is(pending.exited, false);
      assert.equal(pending.kernel, { kind: "pending", reason: "timeout" });
      assert.equal(pending.herdr, { kind: "none", reason, code });

      const verdict = await exitVerdict(world, client);
      assert.is(verdict.exited, true);
      assert.is(verdict.corroborated, false);
      assert.equal(verdict.herdr, { kind: "none", reason, code });
    });
  });
}

test("events_lost answering the subscribe itself is named too", async () => {
  await inWorld({ liveEvent: false, subscribeError: "events_lost" }, async (world, client) => {
    const verdict = await exitVerdict(world, client);
    assert.is(verdict.exited, true);
    assert.equal(verdict.herdr, { kind: "none", reason: "events_lost", code: "events_lost" });
  });
});

test("close() cancels a pending watch", async () => {
  await inWorld({ liveEvent: false }, async (world, client) => {
    const watch = await watchChild(world, client);
    watch.close();
    const verdict = await watch.verdict;
    assert.equal(verdict.kernel, { kind: "pending", reason: "cancelled" });
    assert.is(verdict.exited, false);
  });
});

test.run();
