// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * The proven leader is replaced at the same socket path: the seat never follows. Two ways:
 * (a) the leader dies while the TUI lives and the TUI, as real Grok does, spawns a new leader at
 *     the same path (docs/design/grok-leader-protocol.md §13): delivery refuses LEADER_REPLACED, nothing
 *     reaches the new leader, release leaves it running;
 * (b) the owner quits the TUI (its exit observed), then the leader dies and an imposter listens at
 *     the same path: release does not stop it (LEADER_REPLACED) although the TUI exit was seen.
 * The kernel handle taken at proof time is what tells the proven leader from its replacement.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import { quitTuiAsOwner } from "../../scripts/lib/owner.js";
import { pidAlive, startGrokLeader } from "../helpers/grok-sim.js";
import {
  framesToOthers,
  nextLeaderAt,
  refusalOf,
  socketListeners,
  startStack,
  waitDead,
  withStack,
} from "./stack.js";

test("(a) leader killed, the TUI respawns one at the same path: deliver refuses, no follow", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options());
    const { record } = seat;
    process.kill(record.leader.pid, "SIGKILL");
    await waitDead(record.leader.pid);
    await seat.acp.closed;
    const replacement = await nextLeaderAt(record, "the TUI's replacement leader", 20_000);
    const r = await refusalOf(seat.deliver("must not reach the replacement"));
    assert.is(r.code, "LEADER_REPLACED");
    assert.is(r.step, "deliver");
    const report = await seat.release();
    assert.is(report.leader.action, "left_running");
    assert.ok(report.leader.reasons.includes("LEADER_REPLACED"), report.leader.reasons.join());
    assert.ok(report.leader.reasons.includes("TUI_ALIVE"));
    assert.ok(pidAlive(replacement), "the replacement was not signalled");
    assert.is(framesToOthers(stack, record.leader.pid), 0, "nothing was sent to the replacement");
    assert.is(stack.promptsFromUs(), 0);
    assert.equal(await stack.herdr.injectionLog(), []);
  }));

test("(b) TUI exit observed, then an imposter at the same path: release does not stop it", async () => {
  const stack = await startStack();
  let imposter: Awaited<ReturnType<typeof startGrokLeader>> | null = null;
  try {
    const seat = await hire(stack.options());
    const { record } = seat;
    quitTuiAsOwner(stack.herdr.tmuxSocket, record.pane.process.pid);
    assert.is((await seat.tuiExit).exited, true);
    process.kill(record.leader.pid, "SIGKILL");
    await waitDead(record.leader.pid);
    imposter = await startGrokLeader({
      grokHome: stack.home.dir,
      cwd: stack.cwd,
      socketPath: record.socketPath,
      env: { GROK_SIM_LOG: stack.logPath },
    });
    assert.ok(socketListeners(record.socketPath).includes(imposter.pid));
    const report = await seat.release();
    assert.is(report.leader.action, "left_running");
    assert.equal(report.leader.reasons, ["LEADER_REPLACED"]);
    assert.is(report.tuiExit?.exited, true, "the TUI exit alone does not permit a stop");
    assert.ok(pidAlive(imposter.pid), "the imposter was not signalled");
    assert.equal(report.leader.removed, [], "the imposter's socket was left alone");
    assert.is(framesToOthers(stack, record.leader.pid), 0, "nothing was sent to the imposter");
    assert.equal(await stack.herdr.injectionLog(), []);
  } finally {
    await imposter?.stop();
    await stack.cleanup();
  }
});

test.run();
