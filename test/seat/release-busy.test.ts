// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * Release on a busy Herdr 0.8 server: the seat's exit watch was armed at the pane proof on a full
 * 512-event ring, so when the owner quits at once Herdr is still replaying history (one event per
 * 100 ms) ahead of the TUI's own `pane_exited`. The kernel has seen the exit; release must not
 * wait for Herdr's replay to take it: it stops the proven leader on the kernel's sighting.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import { quitTuiAsOwner } from "../../scripts/lib/owner.js";
import { fillEventRing, rawRequest } from "../helpers/herdr-sim.js";
import { startStack, waitDead } from "./stack.js";

test("owner quits while Herdr still replays a full ring: release stops the leader on the kernel's exit", async () => {
  const stack = await startStack({ herdrVersion: "0.8.0" });
  const filler = mkdtempSync(join(tmpdir(), "gs-busy-fill-"));
  try {
    await rawRequest(
      stack.herdr.socketPath,
      JSON.stringify({ id: "ws", method: "workspace.create", params: { cwd: filler } }),
    );
    const ring = await fillEventRing(stack.herdr, { cwd: filler, minExits: 120 });
    assert.ok((ring.kinds.pane_exited ?? 0) >= 120, JSON.stringify(ring.kinds));
    const seat = await hire(stack.options());
    const r = seat.record;
    quitTuiAsOwner(stack.herdr.tmuxSocket, r.pane.process.pid);
    await waitDead(r.pane.process.pid);
    const report = await seat.release();
    assert.is(report.tuiExit?.exited, true, JSON.stringify(report.tuiExit));
    assert.is(report.leader.action, "stopped", JSON.stringify(report.leader));
    assert.equal(report.leader.reasons, []);
    await waitDead(r.leader.pid);
    assert.equal(await stack.herdr.injectionLog(), []);
  } finally {
    await stack.cleanup();
    rmSync(filler, { recursive: true, force: true });
  }
});

test.run();
