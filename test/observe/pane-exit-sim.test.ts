// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
/**
 * Exit observation end to end: a whole launch + proof + exit against the Herdr simulator. The
 * exit is established by the kernel handle on the bound identity and corroborated by the
 * simulator's live `pane_exited`; history (replayed by 0.8, not by 0.9) and other panes' exits
 * are ignored; nothing is ever typed into a pane. A busy server: pane-exit-busy.test.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { systemKernel } from "../../lib/kernel/index.js";
import { verifyPane } from "../../lib/observe/pane.js";
import { watchPaneExit } from "../../lib/observe/pane-exit.js";
import { herdrPreset, startHerdrSim } from "../helpers/herdr-sim.js";
import { failedNames, kill, launchAndBind, newClient, waitGone } from "../herdr/sim-support.js";

/** Until Herdr no longer knows the pane (its pane_exited is then in the ring). */
async function waitPaneGone(client: ReturnType<typeof newClient>, paneId: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await client.request("pane.get", { pane_id: paneId });
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`Herdr still shows ${paneId}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("launch, prove, watch, exit: kernel evidence + live pane_exited; injection log empty", async () => {
  const preset = herdrPreset();
  const sim = await startHerdrSim({ switches: { detectMs: 100 } });
  const pids: number[] = [];
  try {
    const client = newClient(sim.socketPath);
    // History: a pane that exited before the watch starts (replayed by 0.8, not by 0.9).
    const old = await launchAndBind(client, sim.sessionName);
    pids.push(old.record.process.pid);
    kill(old.record.process.pid);
    await waitGone(old.record.process.pid);
    await waitPaneGone(client, old.record.pane.paneId);

    const ours = await launchAndBind(client, sim.sessionName);
    const other = await launchAndBind(client, sim.sessionName);
    pids.push(ours.record.process.pid, other.record.process.pid);
    assert.equal(failedNames((await verifyPane(client, systemKernel, ours.record)).checks), []);

    const watch = await watchPaneExit(client, systemKernel, ours.record);
    assert.is(watch.anchored, true);
    kill(other.record.process.pid); // another pane exits first, live: not ours
    await waitGone(other.record.process.pid);
    await waitPaneGone(client, other.record.pane.paneId);
    process.kill(ours.record.process.pid, "SIGTERM");
    const verdict = await watch.verdict;

    assert.is(verdict.exited, true);
    assert.is(verdict.corroborated, true);
    assert.equal(
      verdict.kernel.kind === "exited" && verdict.kernel.identity,
      ours.record.process.identity,
    );
    assert.is(verdict.herdr.kind, "pane_exited");
    if (verdict.herdr.kind === "pane_exited") {
      assert.is(verdict.herdr.paneId, ours.record.pane.paneId);
      assert.is(verdict.herdr.workspaceId, ours.record.pane.workspaceId);
    }
    // 0.8 replays the old exit too; 0.9 starts live and sees only the other pane's.
    const seen = preset === "0.9.3" ? 1 : 2;
    assert.ok(verdict.ignored.otherPanes >= seen, JSON.stringify(verdict.ignored));

    // After the exit, the proof no longer holds.
    const after = await verifyPane(client, systemKernel, ours.record);
    assert.ok(failedNames(after.checks).includes("pane.present"));
    assert.ok(failedNames(after.checks).includes("pane.process_identity"));

    assert.equal(await sim.injectionLog(), []);
  } finally {
    for (const pid of pids) kill(pid);
    await sim.stop();
  }
});

test.run();
