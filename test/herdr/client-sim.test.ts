// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
/**
 * The client against the Herdr simulator's connection faults and its real error bodies: every
 * failure is a typed error with a stable code, and nothing hangs.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError, WireError } from "../../lib/errors.js";
import { HerdrClient } from "../../lib/herdr/client.js";
import { type HerdrSimHandle, herdrPreset, startHerdrSim } from "../helpers/herdr-sim.js";
import { versionPreset } from "../sim/herdr/switches.js";

let sim: HerdrSimHandle;
test.before(async () => {
  sim = await startHerdrSim({});
});
test.after(async () => {
  await sim.stop();
});

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof GrokSeatError) return err.code;
    throw err;
  }
  throw new Error("expected a rejection");
}

/**
 * What each preset's `ping` answers (test/sim/herdr/README.md, Presets); 0.9.3's capabilities are
 * the preset's own list (what a local 0.9.3 server answered), which the client must keep whole.
 */
const PONGS: Record<string, unknown[]> = {
  "0.8.0": ["0.8.0", 19, { live_handoff: true, detached_server_daemon: true }],
  "0.9.3": ["0.9.3", 22, versionPreset("0.9.3").capabilities],
};

test("ping: version, protocol and capabilities (a newer server's capabilities are kept)", async () => {
  const pong = await new HerdrClient({ socketPath: sim.socketPath }).request("ping", {});
  assert.equal([pong.version, pong.protocol, pong.capabilities], PONGS[herdrPreset()]);
});

test("unknown pane: Herdr's pane_not_found as a WireError", async () => {
  const client = new HerdrClient({ socketPath: sim.socketPath });
  try {
    await client.request("pane.get", { pane_id: "w9:p9" });
    assert.unreachable();
  } catch (err) {
    assert.ok(err instanceof WireError);
    assert.is(err.peer, "herdr");
    assert.is(err.code, "pane_not_found");
  }
  assert.is(
    await codeOf(client.request("pane.process_info", { pane_id: "w9:p9" })),
    "pane_not_found",
  );
  assert.is(
    await codeOf(client.subscribe([{ type: "pane.agent_status_changed", pane_id: "w9:p9" }])),
    "pane_not_found",
  );
});

test("connection faults: early close, malformed, oversized, slow", async () => {
  const client = new HerdrClient({
    socketPath: sim.socketPath,
    timeoutMs: 500,
    maxLineBytes: 64 * 1024,
  });
  const ping = (): Promise<unknown> => client.request("ping", {});
  const list = (): Promise<unknown> => client.request("pane.list", {});
  try {
    await sim.configure({ closeBeforeReply: true, faultMethods: ["pane.list"] });
    assert.is(await codeOf(list()), "HERDR_CLOSED_EARLY");
    await sim.configure({ closeBeforeReply: false, malformedReply: true });
    assert.is(await codeOf(list()), "HERDR_REPLY_MALFORMED");
    await sim.configure({ malformedReply: false, oversizedReplyBytes: 256 * 1024 });
    assert.is(await codeOf(list()), "HERDR_REPLY_TOO_LARGE");
    await sim.configure({ oversizedReplyBytes: 0, replyDelayMs: 2000 });
    assert.is(await codeOf(list()), "HERDR_TIMEOUT");
    // Faults were scoped to pane.list: ping still answers.
    await ping();
  } finally {
    await sim.configure({
      closeBeforeReply: false,
      malformedReply: false,
      oversizedReplyBytes: 0,
      replyDelayMs: 0,
      faultMethods: null,
    });
  }
  assert.is((await client.request("pane.list", {})).type, "pane_list");
});

test.run();
