// @platform linux: uses the Herdr simulator, whose panes read /proc
// Harness-generic agent identity on live panes (src/terminal/state.rs, src/agent_resume.rs,
// src/detect/mod.rs, src/pane.rs): process detection names OpenCode and Pi from the process (its
// name, a node argv, the HERDR_AGENT hint); a full-lifecycle report (herdr:pi, herdr:opencode, ...)
// is parked until its process is present and a session of the same owner is anchored, and only
// a report that carries a session ref and a seq is kept; pi's session is a path; reserved
// sources (herdr:grok, herdr:claude) only store the session, even on a pane where that agent
// never runs; an agent leaving for the pane's shell is released as a process exit.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type HerdrSimHandle, startHerdrSim } from "../../../helpers/herdr-sim.js";
import {
  at,
  call,
  fakeAgentsDir,
  type Json,
  reportFor,
  reservedSession,
  subscribeStream,
  waitFor,
} from "./support.js";

const PI_SESSION = "/home/dev/.pi/agent/sessions/--home-dev-repo--/2026-09-30T10-00-00_s1.jsonl";
let agents: ReturnType<typeof fakeAgentsDir>;
let work: string;

test.before(() => {
  agents = fakeAgentsDir(["pi", "opencode", "opencode2"]);
  work = mkdtempSync(join(tmpdir(), "herdr-sim-life-"));
});

test.after(() => {
  agents.cleanup();
  rmSync(work, { recursive: true, force: true });
});

async function withSim(fn: (sim: HerdrSimHandle) => Promise<void>) {
  const sim = await startHerdrSim({
    version: "0.8.0",
    env: { PATH: `${agents.dir}:${process.env.PATH}` },
    switches: { detectMs: 150 },
  });
  try {
    await call(sim.socketPath, "workspace.create", { cwd: work });
    await fn(sim);
  } finally {
    await sim.stop();
  }
}

async function launch(
  sim: HerdrSimHandle,
  command: string[],
  env: Record<string, string> = {},
): Promise<string> {
  const r = await call(sim.socketPath, "layout.apply", {
    workspace_id: "w1",
    root: { type: "pane", cwd: work, command, env },
  });
  const id = at(r, "result.layout.root.pane_id");
  if (typeof id !== "string") throw new Error(`layout.apply: ${JSON.stringify(r)}`);
  return id;
}

async function pane(sim: HerdrSimHandle, paneId: string): Promise<{ [k: string]: Json }> {
  return at(await call(sim.socketPath, "pane.get", { pane_id: paneId }), "result.pane") as {
    [k: string]: Json;
  };
}

const agentOf = async (sim: HerdrSimHandle, paneId: string) => (await pane(sim, paneId)).agent;

/** A pane that runs `name` once `gate` exists, so detection sees the agent only then. */
function gated(gate: string, name: string): string[] {
  return ["sh", "-c", 'while [ ! -e "$1" ]; do sleep 0.05; done; exec "$2"', "sh", gate, name];
}

test("detection names OpenCode and Pi from the process: its name, an alias, a node argv, the HERDR_AGENT hint", async () => {
  await withSim(async (sim) => {
    const cases: Array<[string, string[], Record<string, string>]> = [
      ["opencode", ["opencode"], {}],
      ["opencode", ["opencode2"], {}],
      ["pi", ["pi"], {}],
      ["pi", [process.execPath, agents.piCli], {}],
      ["pi", ["sleep", "60"], { HERDR_AGENT: "pi" }],
    ];
    for (const [want, command, env] of cases) {
      const id = await launch(sim, command, env);
      await waitFor(
        async () => (await agentOf(sim, id)) === want,
        15000,
        `${command[0]} → ${want}`,
      );
    }
    // A plain process is no agent, however long it runs.
    const plain = await launch(sim, ["sleep", "60"]);
    await waitFor(async () => (await pane(sim, plain)).agent_status === "unknown", 5000);
    assert.is(await agentOf(sim, plain), undefined);
  });
});

test("herdr:pi: a report before the process is parked; the session claim and then detection apply it", async () => {
  await withSim(async (sim) => {
    const gate = join(work, "pi-gate");
    const id = await launch(sim, gated(gate, "pi"));
    const report = (extra: object) =>
      reportFor(sim, "pane.report_agent", id, "pi", {
        state: "working",
        agent_session_path: PI_SESSION,
        ...extra,
      });
    assert.is(at(await report({ seq: 5 }), "result.type"), "ok");
    let p = await pane(sim, id);
    assert.is(p.agent, undefined, "parked: no agent");
    assert.is(p.agent_session, undefined, "parked: no session");
    assert.is(p.agent_status, "unknown");
    await reportFor(sim, "pane.report_agent_session", id, "pi", {
      agent_session_path: PI_SESSION,
      session_start_source: "startup",
      seq: 3,
    });
    p = await pane(sim, id);
    assert.is(p.agent_session, undefined, "the claim waits for the process too");
    const stream = subscribeStream(sim.socketPath, "pi", [{ type: "pane.agent_detected" }]);
    await stream.waitLine((l) => l.includes("subscription_started"));
    writeFileSync(gate, "");
    await waitFor(async () => (await agentOf(sim, id)) === "pi", 15000, "pi detected");
    p = await pane(sim, id);
    assert.equal(p.agent_session, reservedSession("pi", "path", PI_SESSION));
    assert.is(p.agent_status, "working", "the parked report's state applies");
    await stream.waitLine((l) => l.includes(`"pane_id":"${id}"`) && l.includes('"agent":"pi"'));
    stream.close();
  });
});

test("herdr:pi: without a session claim a parked report never applies; detection alone shows pi", async () => {
  await withSim(async (sim) => {
    const gate = join(work, "pi-gate-2");
    const id = await launch(sim, gated(gate, "pi"));
    await reportFor(sim, "pane.report_agent", id, "pi", {
      state: "working",
      agent_session_path: PI_SESSION,
      seq: 1,
    });
    writeFileSync(gate, "");
    await waitFor(async () => (await agentOf(sim, id)) === "pi", 15000, "pi detected");
    const p = await pane(sim, id);
    assert.is(p.agent_session, undefined);
    assert.is(p.agent_status, "idle", "detection's state, not the parked `working`");
    // Once pi runs, a report with a session but no anchored session is parked again.
    await reportFor(sim, "pane.report_agent", id, "pi", {
      state: "blocked",
      agent_session_path: PI_SESSION,
      seq: 2,
    });
    assert.is((await pane(sim, id)).agent_status, "idle");
  });
});

test("herdr:opencode: a report without a session is dropped while opencode runs; the session claim anchors, then reports apply", async () => {
  await withSim(async (sim) => {
    const id = await launch(sim, ["opencode"]);
    await waitFor(async () => (await agentOf(sim, id)) === "opencode", 15000, "detection");
    const report = (state: string, seq: number, extra: object = {}) =>
      reportFor(sim, "pane.report_agent", id, "opencode", {
        state,
        seq,
        ...extra,
      });
    await report("working", 1);
    let p = await pane(sim, id);
    assert.is(p.agent_status, "idle", "no session ref: dropped");
    assert.is(p.agent_session, undefined);
    // A claim needs a recognized start source: without one it is ignored.
    await reportFor(sim, "pane.report_agent_session", id, "opencode", {
      agent_session_id: "ses_01",
      seq: 2,
    });
    assert.is((await pane(sim, id)).agent_session, undefined);
    await reportFor(sim, "pane.report_agent_session", id, "opencode", {
      agent_session_id: "ses_01",
      session_start_source: "new",
      seq: 3,
    });
    p = await pane(sim, id);
    assert.equal(p.agent_session, reservedSession("opencode", "id", "ses_01"));
    assert.is(p.agent_status, "idle");
    await report("working", 4, { agent_session_id: "ses_01" });
    p = await pane(sim, id);
    assert.is(p.agent, "opencode");
    assert.is(p.agent_status, "working");
    // A different session from the live authority is refused; the first one stays.
    await report("blocked", 5, { agent_session_id: "ses_02" });
    p = await pane(sim, id);
    assert.is(at(p, "agent_session.value"), "ses_01");
    assert.is(p.agent_status, "working");
  });
});

test("pi's session ref: an absolute path is kind path; a relative one is no session at all", async () => {
  await withSim(async (sim) => {
    const id = await launch(sim, ["pi"]);
    await waitFor(async () => (await agentOf(sim, id)) === "pi", 15000, "detection");
    await reportFor(sim, "pane.report_agent_session", id, "pi", {
      agent_session_path: "sessions/relative.jsonl",
      session_start_source: "startup",
      seq: 1,
    });
    assert.is((await pane(sim, id)).agent_session, undefined);
    await reportFor(sim, "pane.report_agent_session", id, "pi", {
      agent_session_path: PI_SESSION,
      agent_session_id: "ignored-when-a-path-is-valid",
      session_start_source: "startup",
      seq: 2,
    });
    assert.equal((await pane(sim, id)).agent_session, reservedSession("pi", "path", PI_SESSION));
  });
});

test("reserved sources only store the session, even where that agent never runs", async () => {
  await withSim(async (sim) => {
    const id = await launch(sim, ["sleep", "60"]);
    for (const [source, agent] of [
      ["herdr:grok", "grok"],
      ["herdr:claude", "claude"],
    ] as const) {
      const other = source === "herdr:grok" ? id : await launch(sim, ["sleep", "60"]);
      await call(sim.socketPath, "pane.report_agent", {
        pane_id: other,
        source,
        agent,
        state: "working",
        agent_session_id: `${agent}-session`,
      });
      // The probe has looked at `sleep` (never the agent) once a pi launched after it is named.
      const witness = await launch(sim, ["pi"]);
      await waitFor(async () => (await agentOf(sim, witness)) === "pi", 15000, "the probe ran");
      const p = await pane(sim, other);
      assert.is(p.agent, undefined, `${source}: no top-level agent`);
      assert.equal(p.agent_session, {
        source,
        agent,
        kind: "id",
        value: `${agent}-session`,
      });
      assert.is(p.agent_status, "unknown", `${source}: the reported state was discarded`);
    }
  });
});

test("an agent leaving for the pane's shell is a process exit: released with its final status, then gone", async () => {
  await withSim(async (sim) => {
    const exitFile = join(work, "pi-exit");
    const id = await launch(sim, ["sh", "-c", "pi; exec sleep 60"], { AGENT_EXIT_FILE: exitFile });
    await waitFor(async () => (await agentOf(sim, id)) === "pi", 15000, "pi detected");
    const stream = subscribeStream(sim.socketPath, "rel", [{ type: "pane.agent_detected" }]);
    await stream.waitLine((l) => l.includes("subscription_started"));
    const from = stream.lines.length;
    writeFileSync(exitFile, "");
    const released = await stream.waitLine(
      (l) => l.includes(`"pane_id":"${id}"`) && l.includes('"released":true'),
      15000,
      from,
    );
    assert.ok(released.includes('"agent":"pi"'), released);
    assert.ok(released.includes('"final_status":'), released);
    await waitFor(async () => (await agentOf(sim, id)) === undefined, 15000, "pi cleared");
    stream.close();
  });
});

test.run();
