// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * Exit observation on a busy Herdr 0.8 server: a full 512-event ring replayed, one event per
 * 100 ms poll, ahead of our own exit (src/api/subscriptions.rs ActiveEventSubscription, 0.8 only:
 * 0.9 starts lifecycle subscriptions live); the exit still corroborates. With Herdr's proposed
 * `events_lost` (PR #4225, a simulator switch) the watch names it and the kernel alone decides.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { HerdrClient } from "../../lib/herdr/client.js";
import { systemKernel } from "../../lib/kernel/index.js";
import { watchPaneExit } from "../../lib/observe/pane-exit.js";
import {
  fillEventRing,
  type HerdrSimHandle,
  rawRequest,
  startHerdrSim,
} from "../helpers/herdr-sim.js";
import { kill, launchAndBind, newClient } from "../herdr/sim-support.js";

interface BusyServer {
  /** A scratch directory for the panes that fill the event ring. */
  readonly work: string;
  readonly sim: HerdrSimHandle;
  readonly client: HerdrClient;
  /** Our own pane, launched and bound before the ring is filled. */
  readonly ours: Awaited<ReturnType<typeof launchAndBind>>;
}

/** A 0.8 Herdr simulator (no agent detection) with our pane bound; everything is removed after `body`. */
async function withBusyServer(
  prefix: string,
  body: (b: BusyServer) => Promise<void>,
): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const sim = await startHerdrSim({ version: "0.8.0", switches: { detectMs: -1 } });
  const pids: number[] = [];
  try {
    const client = newClient(sim.socketPath);
    const ours = await launchAndBind(client, sim.sessionName, { expectedAgent: null });
    pids.push(ours.record.process.pid);
    await body({ work, sim, client, ours });
  } finally {
    for (const pid of pids) kill(pid);
    await sim.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

test("busy 0.8 server: a full 512-event ring replayed ahead of our exit; the exit corroborates", () =>
  withBusyServer("gs-exit-busy-", async ({ work, sim, client, ours }) => {
    const ring = await fillEventRing(sim, { cwd: work, minExits: 60 });
    assert.is(ring.retained, 512);
    const retainedExits = ring.kinds.pane_exited ?? 0;
    assert.ok(retainedExits >= 60, JSON.stringify(ring.kinds));

    // Armed on the busy server, and our process exits at once: our live pane_exited comes only
    // after every retained one (about 100 ms each), far beyond a fixed 3 s window.
    const watch = await watchPaneExit(client, systemKernel, ours.record);
    assert.is(watch.anchored, true);
    process.kill(ours.record.process.pid, "SIGTERM");
    const verdict = await watch.verdict;
    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, true, JSON.stringify(verdict));
    assert.is(verdict.herdr.kind, "pane_exited");
    // Every replayed exit was seen first, and ignored (our own launch may have evicted a few).
    assert.ok(
      verdict.ignored.otherPanes > retainedExits - 10,
      `${verdict.ignored.otherPanes} of ${retainedExits}`,
    );
  }));

test("events_lost (proposal switch) during the watch is named: no exit while the process lives, the kernel decides after", () =>
  withBusyServer("gs-exit-lost-", async ({ work, sim, client, ours }) => {
    // A ring that has wrapped: a 0.8 subscription starting at 0 has lost its first events.
    await fillEventRing(sim, { cwd: work, minExits: 1 });
    const scratch = { type: "pane", cwd: work, command: ["sh", "-c", "exit 0"] };
    await rawRequest(
      sim.socketPath,
      JSON.stringify({ id: "wrap", method: "layout.apply", params: { root: scratch } }),
    );
    const deadline = Date.now() + 15_000;
    while (((await sim.eventRing()).oldest_sequence ?? 0) <= 1) {
      if (Date.now() > deadline) throw new Error("the ring did not wrap");
      await new Promise((r) => setTimeout(r, 20));
    }
    await sim.configure({ eventsLost: true });

    // While the process lives, Herdr's error is no exit, and nothing hangs.
    const early = await watchPaneExit(client, systemKernel, ours.record, { timeoutMs: 1000 });
    const pending = await early.verdict;
    assert.is(pending.exited, false);
    assert.equal(pending.kernel, { kind: "pending", reason: "timeout" });
    assert.equal(pending.herdr, { kind: "none", reason: "events_lost", code: "events_lost" });

    const watch = await watchPaneExit(client, systemKernel, ours.record);
    process.kill(ours.record.process.pid, "SIGTERM");
    const verdict = await watch.verdict;
    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, false);
    assert.equal(verdict.herdr, { kind: "none", reason: "events_lost", code: "events_lost" });
  }));

test.run();
