// @platform linux: uses the Herdr simulator, whose panes read /proc
// A busy Herdr 0.8 server (src/api/subscriptions.rs ActiveEventSubscription, src/api/server.rs
// stream_subscriptions, src/api/event_hub.rs): a new lifecycle subscription starts at sequence 0,
// so it first replays every retained matching event, one per 100 ms poll tick, the first one in
// the poll right after `subscription_started`, and a live event comes only after all of them.
// The ring is filled by real activity (fillEventRing: panes that exit at once).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  type EventRing,
  fillEventRing,
  type HerdrSimHandle,
  startHerdrSim,
} from "../../../helpers/herdr-sim.js";
import { applyOnePane, at, call, subscribeStream, untilFile, waitFor } from "./support.js";

let sim: HerdrSimHandle;
let work: string;
let ring: EventRing;

test.before(async () => {
  work = mkdtempSync(join(tmpdir(), "herdr-sim-replay-"));
  sim = await startHerdrSim({ version: "0.8.0", switches: { detectMs: -1 } });
  await call(sim.socketPath, "workspace.create", { cwd: work });
  ring = await fillEventRing(sim, { cwd: work, minExits: 60 });
});

test.after(async () => {
  await sim.stop();
  rmSync(work, { recursive: true, force: true });
});

test("fillEventRing: 512 retained events of real activity, among them at least 60 pane_exited", () => {
  assert.is(ring.retained, 512);
  assert.ok((ring.kinds.pane_exited ?? 0) >= 60, JSON.stringify(ring.kinds));
  for (const kind of ["pane_created", "layout_updated", "tab_created", "pane_agent_detected"])
    assert.ok((ring.kinds[kind] ?? 0) > 0, `${kind} in ${JSON.stringify(ring.kinds)}`);
});

test("a new pane.exited subscription replays every retained pane_exited, one per tick, then the live one", async () => {
  const retainedExits = ring.kinds.pane_exited ?? 0;
  // A retained workspace_created, matched by a second subscription polled right after the first
  // in every tick, marks where the first tick ended.
  await call(sim.socketPath, "workspace.create", { cwd: work, focus: false });
  const stream = subscribeStream(sim.socketPath, "busy", [
    { type: "pane.exited" },
    { type: "workspace.created" },
  ]);
  const first = await stream.waitLine((l) => l.includes("subscription_started"));
  assert.is(stream.lines.indexOf(first), 0);
  // The first poll, right after subscription_started, sends one replayed pane_exited only.
  const tick = await stream.waitLine((l) => l.includes('"event":"workspace_created"'));
  const firstTick = stream.lines.slice(1, stream.lines.indexOf(tick));
  assert.is(firstTick.filter((l) => l.includes('"event":"pane_exited"')).length, 1);

  // Our own pane exits now, while the replay is still running.
  const exitFile = join(work, "live-exit");
  const live = await applyOnePane(sim.socketPath, work, untilFile(exitFile));
  writeFileSync(exitFile, "");
  const liveLine = await stream.waitLine(
    (l) => l.includes('"event":"pane_exited"') && l.includes(`"pane_id":"${live}"`),
    120_000,
  );
  const exits = stream.lines.filter((l) => l.includes('"event":"pane_exited"'));
  assert.is(exits[exits.length - 1], liveLine, "the live exit came after every replayed one");
  // Our own launch pushed a few events, which may have evicted the oldest exits meanwhile.
  assert.ok(exits.length - 1 > retainedExits - 10, `${exits.length - 1} of ${retainedExits}`);
  stream.close();
});

test("the replay is per subscription: a pane.closed subscription on the same connection is not delayed", async () => {
  const r = await call(sim.socketPath, "layout.apply", {
    root: { type: "pane", cwd: work, command: ["sleep", "30"] },
  });
  const target = String(at(r, "result.layout.root.pane_id"));
  const stream = subscribeStream(sim.socketPath, "two", [
    { type: "pane.exited" },
    { type: "pane.closed" },
  ]);
  await stream.waitLine((l) => l.includes("subscription_started"));
  await waitFor(() => stream.lines.length > 1, 10000, "the replay to start");
  await call(sim.socketPath, "pane.close", { pane_id: target });
  await stream.waitLine((l) => l.includes('"event":"pane_closed"') && l.includes(target));
  const exitsBefore = stream.lines.filter((l) => l.includes('"event":"pane_exited"')).length;
  assert.ok(exitsBefore < (ring.kinds.pane_exited ?? 0), "pane.closed did not wait for the exits");
  stream.close();
});

test.run();
