// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * A resume whose session takes long to load (issue 13 point 2: "resuming a large session can
 * also take minutes"). `grok --resume <uuid>` records the session in active_sessions.json only
 * after its `session/load` answers; the grok simulator holds that answer (GROK_SIM_LOAD_DELAY_MS)
 * past the seat's `activeSessionMs`. The seat then waits the owner's bound, saying the TUI may
 * still be loading, instead of refusing the late entry; the resumed seat is live.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import { resume } from "../../lib/seat/resume.js";
import { readSeatRecord } from "../../lib/seat/seat-record.js";
import { quitTuiAsOwner } from "../../scripts/lib/owner.js";
import { onlyWait, waitDead, withStack } from "./stack.js";

test("a resume still loading after activeSessionMs: the seat waits (gate unknown, 'loading') and goes on", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options({ conversationId: "conv-slow" }));
    const first = seat.record;
    quitTuiAsOwner(stack.herdr.tmuxSocket, first.pane.process.pid);
    assert.is((await seat.tuiExit).exited, true);
    await seat.release();
    await waitDead(first.leader.pid);
    const released = readSeatRecord(seat.recordPath).record;

    stack.events.length = 0;
    const base = stack.options();
    const resumed = await resume({
      ...base,
      record: released,
      grokHome: stack.home.dir,
      sessionId: released.sessionId,
      conversationId: "conv-slow",
      // The new TUI's leader inherits it: every session/load answer waits 5 s.
      env: { ...base.env, GROK_SIM_LOAD_DELAY_MS: "5000" },
      timeouts: { ...base.timeouts, activeSessionMs: 1_500 },
    });
    const w = onlyWait(stack);
    assert.is(w.step, "active_sessions");
    assert.is(w.gate, "unknown");
    assert.is(w.paneId, resumed.paneId);
    assert.match(w.ownerStep, "still be loading the session");
    assert.is(resumed.record.sessionId, first.sessionId);
    assert.ok(resumed.live);
    await resumed.release();
  }));

test.run();
