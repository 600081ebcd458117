// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * Grok's self-update around a seat (issue 13 point 1). The grok simulator updates itself by
 * default, as real Grok does: its leader checks for a newer build every interval
 * (GROK_SIM_AUTO_UPDATE_INTERVAL_MS shortens the real hour) and shuts down with `auto_update`
 * unless GROK_DISABLE_AUTOUPDATER is set in its own environment. The stack sets no such variable:
 * what the leader gets is what the seat put into the pane.
 * (a) the seat sets it: the leader's environment carries it (kernel oracle), the leader says its
 *     update loop is off, outlives many intervals and keeps serving the seat; the record says so.
 * (b) the force knob shuts the leader down anyway: the seat ends by name (`leader-shutting-down`),
 *     the unsettled delivery is `uncertain`, later deliveries refuse LEADER_SHUTTING_DOWN, and the
 *     leader the TUI respawns never sees a frame of ours.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import type { SeatEvent } from "../../lib/seat/seat.js";
import { pidAlive, waitFor } from "../helpers/grok-sim.js";
import { framesToOthers, nextLeaderAt, refusalOf, startStack, withStack } from "./stack.js";

function environ(pid: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const kv of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const eq = kv.indexOf("=");
    if (eq > 0) out.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  return out;
}

test("(a) the seat's pane carries GROK_DISABLE_AUTOUPDATER=1: the leader's update loop stays off", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options({ env: { GROK_SIM_AUTO_UPDATE_INTERVAL_MS: "100" } }));
    const { record } = seat;
    assert.is(environ(record.pane.process.pid).get("GROK_DISABLE_AUTOUPDATER"), "1", "TUI env");
    assert.is(environ(record.leader.pid).get("GROK_DISABLE_AUTOUPDATER"), "1", "leader env");
    assert.equal(record.launch?.env, {
      GROK_DISABLE_AUTOUPDATER: "1",
      GROK_HOME: record.profile.grokHome,
    });
    assert.equal(record.launch?.callerEnv, ["GROK_SIM_AUTO_UPDATE_INTERVAL_MS", "GROK_SIM_LOG"]);
    assert.equal(record.launch?.argv, record.pane.launch?.argv);
    await waitFor(
      "the leader to log that its update loop is off",
      () =>
        readFileSync(join(record.profile.grokHome, "leader.log"), "utf8").includes(
          "Leader auto-update disabled",
        ) || undefined,
      10_000,
    );
    // Many intervals later (a turn of ~40 of them) the proven leader still serves the seat.
    const d = await seat.deliver("[[sim:sleep=4000]] outlive the update interval");
    assert.is((await d.completed).state, "completed");
    assert.ok(pidAlive(record.leader.pid), "the leader did not shut down for an update");
    assert.ok(seat.live);
    assert.is(
      stack.log().filter((l) => l.event === "auto_update_check").length,
      0,
      "the leader never ran an update check",
    );
    await seat.release();
  }));

test("(b) a forced auto_update shutdown ends the seat by name and nothing follows the respawned leader", async () => {
  // The knob forces the real shutdown whatever GROK_DISABLE_AUTOUPDATER says, 8 s after each
  // leader starts (long enough for the hire); queue acks are held back, so a prompt queued behind
  // our running turn has no consumption evidence when the leader goes.
  const stack = await startStack({
    env: { GROK_SIM_AUTO_UPDATE_AFTER_MS: "8000", GROK_SIM_ACK_DELAY_MS: "60000" },
  });
  try {
    const seat = await hire(stack.options());
    const { record } = seat;
    const events: SeatEvent[] = [];
    seat.on((e) => events.push(e));
    const running = await seat.deliver("[[sim:sleep=60000]] a long turn");
    await running.consumed;
    running.completed.catch(() => {});
    const d = await seat.deliver("queued when the leader updates itself");
    assert.is(d.receipt.state, "dispatched");
    d.consumed.catch(() => {});
    d.completed.catch(() => {});
    const down = await waitFor(
      "the seat's leader-shutting-down event",
      () => events.find((e) => e.type === "leader-shutting-down"),
      30_000,
    );
    assert.equal(down, { type: "leader-shutting-down", reason: "auto_update", delayMs: 0 });
    assert.is(seat.receipt(d.promptId)?.state, "uncertain");
    assert.ok(
      events.some((e) => e.type === "uncertain" && e.receipt.promptId === d.promptId),
      "the uncertain receipt was reported",
    );
    assert.not.ok(seat.live);
    // The TUI respawns a leader at the seat's socket; the seat never connects to it.
    const respawned = await nextLeaderAt(record, "the TUI's respawned leader", 30_000);
    const r = await refusalOf(seat.deliver("must not reach the respawned leader"));
    assert.is(r.code, "LEADER_SHUTTING_DOWN");
    assert.is(r.step, "deliver");
    assert.is(r.check, "deliver.leader_running");
    const report = await seat.release();
    assert.not.equal(report.leader.action, "stopped");
    assert.ok(pidAlive(respawned), "the respawned leader was not signalled");
    assert.is(
      framesToOthers(stack, record.leader.pid),
      0,
      "no frame of ours reached the respawned leader",
    );
    const prompts = stack
      .framesFromUs()
      .filter((l) => JSON.stringify(l.frame ?? "").includes("session/prompt"));
    assert.is(prompts.length, 2, "no prompt was resent");
  } finally {
    await stack.cleanup();
  }
});

test.run();
