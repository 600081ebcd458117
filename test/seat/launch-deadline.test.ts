// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * A slow Herdr answering `layout.apply`: the pane exists as soon as Herdr has run the request,
 * whenever its answer arrives. Giving up at the client's read deadline (5 s) would refuse the
 * hire and leave a TUI no proof covers; the launch waits as long as the hire waits for any
 * request (`timeouts.requestMs`), so the hire completes.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DEFAULT_TIMEOUT_MS } from "../../lib/herdr/client.js";
import { hire } from "../../lib/seat/hire.js";
import { startStack } from "./stack.js";

test("layout.apply answered after the client's read deadline: the hire waits for it (requestMs)", async () => {
  const delay = DEFAULT_TIMEOUT_MS + 1500;
  const stack = await startStack({
    switches: { faultMethods: ["layout.apply"], replyDelayMs: delay },
  });
  try {
    const base = stack.options();
    const seat = await hire({
      ...base,
      timeouts: { ...base.timeouts, requestMs: delay + 10_000 },
    });
    assert.is(seat.record.pane.expectedAgent, "grok");
    const launch = stack.events.find((e) => e.type === "proven" && e.step === "launch");
    assert.ok(launch !== undefined, "the launch step was proven");
    await seat.release();
  } finally {
    await stack.cleanup();
  }
});

test.run();
