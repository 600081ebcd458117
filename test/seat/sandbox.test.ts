// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * A sandbox profile silently turns Grok's leader mode off (issue 13 point 5; the grok simulator
 * then runs its agent in-process: no socket, no lock, no leader). Preflight reads the pane's
 * GROK_SANDBOX and the profile's `[sandbox] profile` and refuses by the cause, before anything is
 * launched, instead of a LEADER_NOT_READY after the leader bound.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import { refusalOf, withStack } from "./stack.js";

const SHORT = { leaderMs: 3_000, activeSessionMs: 3_000, agentMs: 3_000, requestMs: 3_000 };

test("GROK_SANDBOX in the pane's environment refuses SANDBOX_DISABLES_LEADER in preflight", () =>
  withStack(async (stack) => {
    const r = await refusalOf(
      hire(stack.options({ env: { GROK_SANDBOX: " workspace " }, timeouts: SHORT })),
    );
    assert.is(r.step, "preflight");
    assert.is(r.code, "SANDBOX_DISABLES_LEADER");
    assert.is(r.check, "preflight.sandbox");
    assert.equal(r.context.received, { profile: "workspace", source: "GROK_SANDBOX" });
    assert.match(r.ownerNextStep, "GROK_SANDBOX");
    assert.not.ok(
      stack.events.some((e) => e.type === "started" && e.step === "launch"),
      "nothing was launched",
    );
  }));

test("[sandbox] profile in the profile's config.toml refuses too; GROK_SANDBOX=off overrides it", () =>
  withStack({ home: { extraToml: '[sandbox]\nprofile = "read-only"\n' } }, async (stack) => {
    const r = await refusalOf(hire(stack.options({ timeouts: SHORT })));
    assert.is(r.code, "SANDBOX_DISABLES_LEADER");
    assert.equal(r.context.received, {
      profile: "read-only",
      source: "config.toml [sandbox] profile",
    });
    // The environment is asked first, as the TUI does: "off" keeps leader mode on.
    const seat = await hire(stack.options({ env: { GROK_SANDBOX: "off" } }));
    assert.ok(seat.live);
    await seat.release();
  }));

test.run();
