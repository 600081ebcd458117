// @platform linux: uses the Herdr simulator, whose panes read /proc
// events.subscribe / events.wait over raw sockets: pane_exited when the argv exits (after the
// release of an identified agent, before layout_updated when the tab survives, never
// pane_closed), replay from sequence 0 out of the 512-event ring, the stream ending when the
// client writes or half-closes, and the dotted pane-scoped events without data.type.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { at, call, LineStream, rpc, simPerFile, subscribeStream, waitFor } from "./support.js";

const herdr = simPerFile(test, {
  tmpPrefix: "herdr-sim-ev-",
  version: "0.8.0",
  switches: { detectMs: 150 },
});

async function launch(
  exitFile: string,
  extra: object = {},
): Promise<{ paneId: string; pid: number }> {
  const r = await call(herdr.sim.socketPath, "layout.apply", {
    workspace_id: "w1",
    root: {
      type: "pane",
      cwd: herdr.work,
      command: ["grok", "--leader"],
      env: { GROK_EXIT_FILE: exitFile },
    },
    ...extra,
  });
  const paneId = String(at(r, "result.layout.root.pane_id"));
  const info = await call(herdr.sim.socketPath, "pane.process_info", { pane_id: paneId });
  return { paneId, pid: Number(at(info, "result.process_info.shell_pid")) };
}

async function agentOf(paneId: string) {
  return at(await call(herdr.sim.socketPath, "pane.get", { pane_id: paneId }), "result.pane.agent");
}

test("argv exit: released agent, pane_exited, pane removed, no pane_closed, no layout_updated for a lone tab", async () => {
  const exitFile = join(herdr.work, "exit-1");
  const { paneId } = await launch(exitFile);
  await waitFor(async () => (await agentOf(paneId)) === "grok", 10000, "detection");
  const stream = subscribeStream(herdr.sim.socketPath, "sub1", [
    { type: "pane.exited" },
    { type: "pane.agent_detected" },
    { type: "pane.closed" },
  ]);
  assert.is(
    await stream.waitLine(() => true),
    `{"id":"sub1","result":{"type":"subscription_started"}}`,
  );
  const before = stream.lines.length;
  writeFileSync(exitFile, "");
  const exited = await stream.waitLine(
    (l) => l.includes('"pane_exited"') && l.includes(`"${paneId}"`),
    15000,
    before,
  );
  assert.is(
    exited,
    `{"data":{"pane_id":"${paneId}","type":"pane_exited","workspace_id":"w1"},"event":"pane_exited"}`,
  );
  const released = await stream.waitLine(
    (l) => l.includes('"released":true') && l.includes(`"${paneId}"`),
    15000,
    before,
  );
  assert.is(
    released,
    `{"data":{"agent":"grok","final_status":"idle","pane_id":"${paneId}","released":true,"type":"pane_agent_detected","workspace_id":"w1"},"event":"pane_agent_detected"}`,
  );
  assert.is(
    await rpc(herdr.sim.socketPath, "g", "pane.get", { pane_id: paneId }),
    `{"id":"g","error":{"code":"pane_not_found","message":"pane ${paneId} not found"}}`,
  );
  // Let the stream run a few more ticks: nothing about this pane may say "closed".
  await new Promise((r) => setTimeout(r, 500));
  assert.not.ok(stream.lines.some((l) => l.includes("pane_closed") && l.includes(`"${paneId}"`)));
  stream.close();
  // In the hub, the release precedes the exit (src/app/api.rs handle_internal_event).
  const replay = subscribeStream(herdr.sim.socketPath, "sub1b", [{ type: "pane.exited" }]);
  await replay.waitLine((l) => l.includes(`"${paneId}"`));
  replay.close();
});

test("argv exit in a split: pane_exited then layout_updated for the surviving tab", async () => {
  const exitFile = join(herdr.work, "exit-2");
  const r = await call(herdr.sim.socketPath, "layout.apply", {
    workspace_id: "w1",
    root: {
      type: "split",
      direction: "down",
      ratio: 0.5,
      first: {
        type: "pane",
        cwd: herdr.work,
        command: ["grok"],
        env: { GROK_EXIT_FILE: exitFile },
      },
      second: { type: "pane", cwd: herdr.work, command: ["sleep", "600"] },
    },
  });
  const dying = String(at(r, "result.layout.root.first.pane_id"));
  const tab = String(at(r, "result.layout.tab_id"));
  const stream = subscribeStream(herdr.sim.socketPath, "sub2", [
    { type: "pane.exited" },
    { type: "layout.updated" },
  ]);
  await stream.waitLine((l) => l.includes("subscription_started"));
  await waitFor(
    () => stream.lines.some((l) => l.includes(`"${tab}"`)),
    15000,
    "replayed layout of the new tab",
  );
  const from = stream.lines.length;
  writeFileSync(exitFile, "");
  await stream.waitLine((l) => l.includes("pane_exited") && l.includes(`"${dying}"`), 15000, from);
  const layout = await stream.waitLine(
    (l) => l.includes("layout_updated") && l.includes(`"${tab}"`),
    15000,
    from,
  );
  assert.not.ok(
    layout.includes(`"${dying}"`),
    "the survivor's layout no longer holds the dead pane",
  );
  stream.close();
});

test("a new subscriber replays history from sequence 0; pane-scoped subscriptions do not", async () => {
  const stream = subscribeStream(herdr.sim.socketPath, "sub3", [{ type: "workspace.created" }]);
  const first = await stream.waitLine((l) => l.includes("workspace_created"));
  assert.ok(first.includes(`"workspace_id":"w1"`), "w1 was created long before this subscription");
  stream.close();
});

test("the stream ends when the client writes anything, or half-closes", async () => {
  for (const how of ["write", "half-close"] as const) {
    const stream = subscribeStream(herdr.sim.socketPath, `sub-${how}`, [{ type: "pane.exited" }]);
    await stream.waitLine((l) => l.includes("subscription_started"));
    assert.not.ok(stream.closed);
    if (how === "write") stream.socket.write("x");
    else stream.socket.end();
    await waitFor(() => stream.closed, 5000, `server closing after ${how}`);
    stream.close();
  }
});

test("pane.agent_status_changed: dotted name, no data.type, initial event when the filter matches", async () => {
  const exitFile = join(herdr.work, "exit-3");
  const { paneId } = await launch(exitFile);
  await waitFor(async () => (await agentOf(paneId)) === "grok", 10000, "detection");
  const stream = subscribeStream(herdr.sim.socketPath, "sub4", [
    { type: "pane.agent_status_changed", pane_id: paneId, agent_status: "idle" },
  ]);
  await stream.waitLine((l) => l.includes("subscription_started"));
  const initial = await stream.waitLine((l) => l.includes("pane.agent_status_changed"));
  assert.is(
    initial,
    `{"data":{"agent":"grok","agent_status":"idle","pane_id":"${paneId}","workspace_id":"w1"},"event":"pane.agent_status_changed"}`,
  );
  stream.close();
  // Unfiltered: working, then idle that nobody has looked at yet, which Herdr calls "done".
  const all = subscribeStream(herdr.sim.socketPath, "sub4b", [
    { type: "pane.agent_status_changed", pane_id: paneId },
  ]);
  await all.waitLine((l) => l.includes("subscription_started"));
  await call(herdr.sim.socketPath, "pane.report_agent", {
    pane_id: paneId,
    source: "custom:t",
    agent: "grok",
    state: "working",
  });
  const working = await all.waitLine((l) => l.includes('"agent_status":"working"'));
  assert.is(
    working,
    `{"data":{"agent":"grok","agent_status":"working","pane_id":"${paneId}","workspace_id":"w1"},"event":"pane.agent_status_changed"}`,
  );
  await call(herdr.sim.socketPath, "pane.report_agent", {
    pane_id: paneId,
    source: "custom:t",
    agent: "grok",
    state: "idle",
  });
  await all.waitLine((l) => l.includes('"agent_status":"done"'));
  all.close();
  writeFileSync(exitFile, "");
});

test("a pane-scoped probe failure answers one error line with the probe's id", async () => {
  const stream = new LineStream(
    herdr.sim.socketPath,
    JSON.stringify({
      id: "sub5",
      method: "events.subscribe",
      params: {
        subscriptions: [
          { type: "pane.exited" },
          { type: "pane.agent_status_changed", pane_id: "w1:p99" },
        ],
      },
    }),
  );
  const line = await stream.waitLine(() => true);
  assert.is(
    line,
    `{"id":"sub5:sub:1:probe","error":{"code":"pane_not_found","message":"pane w1:p99 not found"}}`,
  );
  await waitFor(() => stream.closed, 5000, "close after the error");
});

test("events.wait: only the agent-status match; timeout; match answers wait_matched in struct order", async () => {
  assert.is(
    await rpc(herdr.sim.socketPath, "w1", "events.wait", {
      match_event: { event: "pane_exited", pane_id: "w1:p1" },
    }),
    `{"id":"w1","error":{"code":"unsupported_event_wait_match","message":"events.wait currently supports pane agent status matches"}}`,
  );
  assert.is(
    await rpc(herdr.sim.socketPath, "w2", "events.wait", {
      match_event: {
        event: "pane_agent_status_changed",
        pane_id: "w1:p1",
        agent_status: "blocked",
      },
      timeout_ms: 300,
    }),
    `{"id":"w2","error":{"code":"timeout","message":"timed out waiting for event match"}}`,
  );
  assert.is(
    await rpc(herdr.sim.socketPath, "w3", "events.wait", {
      match_event: {
        event: "pane_agent_status_changed",
        pane_id: "w1:p1",
        agent_status: "unknown",
      },
      timeout_ms: 5000,
    }),
    `{"id":"w3","result":{"type":"wait_matched","event":{"event":"pane_agent_status_changed","data":{"type":"pane_agent_status_changed","pane_id":"w1:p1","workspace_id":"w1","agent_status":"unknown"}}}}`,
  );
});

test("focus changes publish workspace_focused, tab_focused, pane_focused once, after the request's own events", async () => {
  const stream = subscribeStream(herdr.sim.socketPath, "focus", [
    { type: "workspace.focused" },
    { type: "tab.focused" },
    { type: "pane.focused" },
  ]);
  // w1's creation focused it first (0.8 replays that): one of each, w1:p1.
  await stream.waitLine((l) => l.includes('"event":"pane_focused"'));
  assert.ok(
    stream.lines.some(
      (l) => l.includes('"event":"workspace_focused"') && l.includes('"workspace_id":"w1"'),
    ),
  );
  const r = await call(herdr.sim.socketPath, "layout.apply", {
    workspace_id: "w1",
    root: { type: "pane", cwd: herdr.work, command: ["sleep", "60"] },
  });
  const target = String(at(r, "result.layout.root.pane_id"));
  const ring = await herdr.sim.eventRing();
  // layout.apply without focus changed nothing: no focus event was pushed for it.
  await call(herdr.sim.socketPath, "pane.focus", { pane_id: target });
  const pf = await stream.waitLine(
    (l) => l.includes('"event":"pane_focused"') && l.includes(`"pane_id":"${target}"`),
  );
  const kinds = (await herdr.sim.eventRing()).kinds;
  assert.is(kinds.pane_focused, (ring.kinds.pane_focused ?? 0) + 1);
  assert.is(kinds.tab_focused, (ring.kinds.tab_focused ?? 0) + 1);
  assert.ok(pf.includes('"workspace_id":"w1"'));
  // Focusing the focused pane again publishes nothing.
  await call(herdr.sim.socketPath, "pane.focus", { pane_id: target });
  assert.is((await herdr.sim.eventRing()).kinds.pane_focused, kinds.pane_focused);
  await call(herdr.sim.socketPath, "pane.close", { pane_id: target });
  stream.close();
});

test("the ring keeps the newest 512 events: older ones no longer replay", async () => {
  // Two alternating custom labels make one pane_agent_detected per report.
  for (let i = 0; i < 600; i++)
    await call(herdr.sim.socketPath, "pane.report_agent", {
      pane_id: "w1:p1",
      source: "custom:ring",
      agent: i % 2 ? "a" : "b",
      state: "idle",
      seq: i + 1,
    });
  const made = await call(herdr.sim.socketPath, "workspace.create", { cwd: herdr.work });
  const fresh = String(at(made, "result.workspace.workspace_id"));
  const stream = subscribeStream(herdr.sim.socketPath, "sub6", [{ type: "workspace.created" }]);
  const first = await stream.waitLine((l) => l.includes("workspace_created"));
  assert.ok(first.includes(`"workspace_id":"${fresh}"`), "w1's creation fell out of the ring");
  stream.close();
  await call(herdr.sim.socketPath, "pane.clear_agent_authority", { pane_id: "w1:p1", seq: 601 });
});

test.run();
