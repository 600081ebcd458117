// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * Exit observation end to end: a whole launch + proof + exit against the Herdr simulator. The
 * exit is established by the kernel handle on the bound identity and corroborated by the
 * simulator's live `pane_exited`; history and other panes' exits are ignored; nothing is ever
 * typed into a pane.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { systemKernel } from "../../lib/kernel/index.js";
import { verifyPane } from "../../lib/observe/pane.js";
import { watchPaneExit } from "../../lib/observe/pane-exit.js";
import { startHerdrSim } from "../helpers/herdr-sim.js";
import { failedNames, kill, launchAndBind, newClient, waitGone } from "../herdr/sim-support.js";

test("launch, prove, watch, exit: kernel evidence + live pane_exited; injection log empty", async () => {
  const sim = await startHerdrSim({ switches: { detectMs: 100 } });
  const pids: number[] = [];
  try {
    const client = newClient(sim.socketPath);
    // History: a pane that exited before the watch starts (replayed to every new subscription).
    const old = await launchAndBind(client, sim.sessionName);
    pids.push(old.record.process.pid);
    kill(old.record.process.pid);
    await waitGone(old.record.process.pid);

    const ours = await launchAndBind(client, sim.sessionName);
    const other = await launchAndBind(client, sim.sessionName);
    pids.push(ours.record.process.pid, other.record.process.pid);
    assert.equal(failedNames((await verifyPane(client, systemKernel, ours.record)).checks), []);

    const watch = await watchPaneExit(client, systemKernel, ours.record);
    assert.is(watch.anchored, true);
    kill(other.record.process.pid); // another pane exits first: not ours
    await waitGone(other.record.process.pid);
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
    assert.ok(verdict.ignored.otherPanes >= 1, "the earlier exits were seen and ignored");

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
