// @platform linux: uses the Herdr simulator, whose panes read /proc
// The version presets over raw sockets. 0.9.3: protocol 22 and 0.9's pong capabilities, the 0.9
// Method enum (src/api/schema.rs; the 11 added methods are not "unknown"), lifecycle
// subscriptions that start at the request boundary instead of replaying the ring (herdrdev/herdr
// PR #3134, 0.9.0 release notes), and 120x40 headless panes. The off-by-default proposal of
// PR #4225 (events_lost, batch drain) behind its switches. And one exit watch that holds under
// every preset.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { forEachHerdrPreset, HERDR_PRESETS, startHerdrSim } from "../../../helpers/herdr-sim.js";
import { applyOnePane, at, call, rpc, subscribeStream, untilFile, waitFor } from "./support.js";

let work: string;

test.before(() => {
  work = mkdtempSync(join(tmpdir(), "herdr-sim-presets-"));
});

test.after(() => {
  rmSync(work, { recursive: true, force: true });
});

test("0.9.3 ping: protocol 22 and the capabilities a 0.9.3 server answers, in wire order", async () => {
  const sim = await startHerdrSim({ version: "0.9.3" });
  try {
    assert.is(
      await rpc(sim.socketPath, "p", "ping", {}),
      `{"id":"p","result":{"type":"pong","version":"0.9.3","protocol":22,"capabilities":{"live_handoff":true,"detached_server_daemon":true,"endpoint_protocol_generation":1,"surface_interest":true,"health_check":true,"ssh_agent_registration":true}}}`,
    );
  } finally {
    await sim.stop();
  }
});

test("methods 0.9 added: unknown to 0.8, known to 0.9.3", async () => {
  const old = await startHerdrSim({ version: "0.8.0" });
  try {
    const r = await rpc(old.socketPath, "m", "pane.scroll", { pane_id: "w1:p1" });
    assert.ok(
      r.startsWith(
        `{"id":"","error":{"code":"invalid_request","message":"invalid request: unknown variant \`pane.scroll\``,
      ),
      r,
    );
  } finally {
    await old.stop();
  }
  const sim = await startHerdrSim({ version: "0.9.3" });
  try {
    assert.is(
      await rpc(sim.socketPath, "c", "client_shell.surface.set", {}),
      `{"id":"c","error":{"code":"connection_local_only","message":"client_shell.surface.set is only available through a client shell endpoint"}}`,
    );
    assert.is(
      await rpc(sim.socketPath, "s", "pane.scroll", { pane_id: "w1:p1" }),
      `{"id":"s","error":{"code":"not_simulated","message":"herdr-sim does not simulate pane.scroll"}}`,
    );
  } finally {
    await sim.stop();
  }
});

test("0.9.3: a lifecycle subscription starts live; 0.8.0 replays the ring first", async () => {
  for (const version of ["0.9.3", "0.8.0"]) {
    const sim = await startHerdrSim({ version });
    try {
      await call(sim.socketPath, "workspace.create", { cwd: work });
      const stream = subscribeStream(sim.socketPath, "live", [{ type: "workspace.created" }]);
      await stream.waitLine((l) => l.includes("subscription_started"));
      const made = await call(sim.socketPath, "workspace.create", { cwd: work });
      const w2 = String(at(made, "result.workspace.workspace_id"));
      await stream.waitLine((l) => l.includes(`"workspace_id":"${w2}"`));
      const created = stream.lines.filter((l) => l.includes('"event":"workspace_created"'));
      if (version === "0.9.3") assert.is(created.length, 1, "w1 was created before: not replayed");
      else assert.ok(created[0]?.includes('"workspace_id":"w1"'), "0.8 replays w1 first");
      stream.close();
    } finally {
      await sim.stop();
    }
  }
});

test("headless geometry: every pane, split or not, has the headless size; layout rects are zero", async () => {
  for (const [version, cols, rows] of [
    ["0.8.0", 80, 24],
    ["0.9.3", 120, 40],
  ] as const) {
    const sim = await startHerdrSim({ version });
    try {
      await call(sim.socketPath, "workspace.create", { cwd: work });
      const size = (n: number) => join(work, `size-${version}-${n}`);
      const pane = (n: number) => ({
        type: "pane",
        cwd: work,
        command: [
          "sh",
          "-c",
          'stty size > "$1.tmp" && mv "$1.tmp" "$1"; exec sleep 30',
          "sh",
          size(n),
        ],
      });
      const stream = subscribeStream(sim.socketPath, "geo", [{ type: "layout.updated" }]);
      await stream.waitLine((l) => l.includes("subscription_started"));
      const r = await call(sim.socketPath, "layout.apply", {
        root: { type: "split", direction: "right", ratio: 0.5, first: pane(1), second: pane(2) },
      });
      const first = String(at(r, "result.layout.root.first.pane_id"));
      for (const n of [1, 2]) {
        await waitFor(
          async () => {
            try {
              return readFileSync(size(n), "utf8") === `${rows} ${cols}\n`;
            } catch {
              return false;
            }
          },
          10000,
          `pane ${n} of ${version} reporting ${rows} ${cols}`,
        );
      }
      const info = await call(sim.socketPath, "pane.get", { pane_id: first });
      assert.is(at(info, "result.pane.scroll.viewport_rows"), rows);
      const layout = await stream.waitLine(
        (l) => l.includes('"event":"layout_updated"') && l.includes(first),
      );
      assert.ok(layout.includes(`"area":{"height":0,"width":0,"x":0,"y":0}`), layout);
      assert.not.ok(/"width":[1-9]/.test(layout), "no rect has a width");
      stream.close();
      // A headless size changed at runtime applies to the next pane from its first instruction.
      await sim.configure({ headlessSize: { cols: 100, rows: 30 } });
      await call(sim.socketPath, "layout.apply", { root: pane(3) });
      await waitFor(
        async () => {
          try {
            return readFileSync(size(3), "utf8") === "30 100\n";
          } catch {
            return false;
          }
        },
        10000,
        `pane 3 of ${version} reporting 30 100`,
      );
    } finally {
      await sim.stop();
    }
  }
});

test("proposal (PR #4225, off by default): a subscription that fell out of the ring gets events_lost and is closed", async () => {
  const sim = await startHerdrSim({ version: "0.9.3", switches: { eventsLost: true } });
  try {
    await call(sim.socketPath, "workspace.create", { cwd: work });
    const stream = subscribeStream(sim.socketPath, "flood", [{ type: "pane.agent_detected" }]);
    await stream.waitLine((l) => l.includes("subscription_started"));
    // One pane_agent_detected per report (a new label each time), sent 50 at a time: far
    // faster than one delivery per 100 ms tick, so the cursor falls out of the 512-event ring.
    for (let i = 0; i < 3000 && !stream.closed; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          call(sim.socketPath, "pane.report_agent", {
            pane_id: "w1:p1",
            source: "custom:flood",
            agent: `flood-${i + k}`,
            state: "idle",
          }),
        ),
      );
    const lost = await stream.waitLine((l) => l.includes('"error"'));
    assert.is(
      lost,
      `{"id":"flood","error":{"code":"events_lost","message":"event subscription fell behind retained history; resubscribe and resync with session.snapshot"}}`,
    );
    await waitFor(() => stream.closed, 5000, "the server closing the subscription");
    const delivered = stream.lines.filter((l) => l.includes('"event":"pane_agent_detected"'));
    assert.ok(delivered.length > 0, "events were delivered until the cursor was evicted");
  } finally {
    await sim.stop();
  }
});

test("proposal (PR #4225, off by default): batch drain sends every retained matching event in one tick", async () => {
  const sim = await startHerdrSim({ version: "0.8.0", switches: { subscriptionDrain: "batch" } });
  try {
    await call(sim.socketPath, "workspace.create", { cwd: work });
    for (let i = 1; i <= 30; i++)
      await call(sim.socketPath, "pane.report_agent", {
        pane_id: "w1:p1",
        source: "custom:batch",
        agent: i % 2 ? "a" : "b",
        state: "idle",
        seq: i,
      });
    // A second subscription on the same connection is polled right after the first in the same
    // tick: its (replayed) workspace_created line marks where the first tick ended.
    const stream = subscribeStream(sim.socketPath, "b", [
      { type: "pane.agent_detected" },
      { type: "workspace.created" },
    ]);
    const marker = await stream.waitLine((l) => l.includes('"event":"workspace_created"'));
    const before = stream.lines.slice(0, stream.lines.indexOf(marker));
    assert.is(before.filter((l) => l.includes('"event":"pane_agent_detected"')).length, 30);
    stream.close();
  } finally {
    await sim.stop();
  }
});

test("the same exit watch holds under every preset", async () => {
  assert.equal([...HERDR_PRESETS], ["0.8.0", "head", "0.9.3"]);
  await forEachHerdrPreset(async (sim, preset) => {
    await call(sim.socketPath, "workspace.create", { cwd: work });
    const exitFile = join(work, `exit-${preset}`);
    const paneId = await applyOnePane(sim.socketPath, work, untilFile(exitFile));
    const stream = subscribeStream(sim.socketPath, "watch", [
      { type: "pane.exited" },
      { type: "pane.closed" },
    ]);
    await stream.waitLine((l) => l.includes("subscription_started"));
    writeFileSync(exitFile, "");
    await stream.waitLine((l) => l.includes('"event":"pane_exited"') && l.includes(paneId));
    stream.close();
  });
});

test.run();
