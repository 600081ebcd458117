// @platform linux: uses the Herdr simulator, whose panes read /proc
// Agent reports against live panes: the reserved `herdr:grok` source stores only the session id,
// custom sources never yield agent_session, every report answers `ok`; process detection names
// grok after the configured delay, so the window with only the nested agent is real; and the
// 0.9.3 switch hides the top-level agent after pane.report_agent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type HerdrSimHandle, startHerdrSim } from "../../../helpers/herdr-sim.js";
import {
  at,
  call,
  fakeGrokDir,
  type Json,
  reportFor,
  reservedSession,
  rpc,
  waitFor,
} from "./support.js";

const SESSION = "0198c2d4-7f3a-7b21-9e55-3c1d2a4b5e6f";
let grok: ReturnType<typeof fakeGrokDir>;
let work: string;

test.before(() => {
  grok = fakeGrokDir();
  work = mkdtempSync(join(tmpdir(), "herdr-sim-rep-"));
});

test.after(() => {
  grok.cleanup();
  rmSync(work, { recursive: true, force: true });
});

async function withSim(
  options: Parameters<typeof startHerdrSim>[0],
  fn: (sim: HerdrSimHandle) => Promise<void>,
) {
  const sim = await startHerdrSim({
    version: "0.8.0",
    env: { PATH: `${grok.dir}:${process.env.PATH}` },
    ...options,
  });
  try {
    await call(sim.socketPath, "workspace.create", { cwd: work });
    await fn(sim);
  } finally {
    await sim.stop();
  }
}

async function launchGrok(sim: HerdrSimHandle): Promise<string> {
  const r = await call(sim.socketPath, "layout.apply", {
    workspace_id: "w1",
    root: { type: "pane", label: "grok leader", cwd: work, command: ["grok", "--leader"] },
  });
  return String(at(r, "result.layout.root.pane_id"));
}

async function pane(sim: HerdrSimHandle, paneId: string): Promise<{ [k: string]: Json }> {
  return at(await call(sim.socketPath, "pane.get", { pane_id: paneId }), "result.pane") as {
    [k: string]: Json;
  };
}

const grokSession = (paneId: string) => ({
  pane_id: paneId,
  source: "herdr:grok",
  agent: "grok",
  state: "working",
  agent_session_id: SESSION,
});

test("herdr:grok before detection: only agent_session, state discarded; detection then adds agent", async () => {
  await withSim({ switches: { detectMs: 1500 } }, async (sim) => {
    const paneId = await launchGrok(sim);
    assert.is(
      await rpc(sim.socketPath, "req_ok", "pane.report_agent", grokSession(paneId)),
      `{"id":"req_ok","result":{"type":"ok"}}`,
    );
    const early = await pane(sim, paneId);
    assert.is(early.agent, undefined, "top-level agent absent before detection");
    assert.equal(early.agent_session, reservedSession("grok", "id", SESSION));
    assert.is(early.agent_status, "unknown", "the reported `working` was discarded");
    await waitFor(async () => (await pane(sim, paneId)).agent === "grok", 15000, "detection");
    const late = await pane(sim, paneId);
    assert.equal(late.agent_session, reservedSession("grok", "id", SESSION));
    assert.is(late.agent_status, "idle");
    // A second, different session id from the same owner is ignored (no replacement for grok).
    await call(sim.socketPath, "pane.report_agent_session", {
      pane_id: paneId,
      source: "herdr:grok",
      agent: "Grok",
      agent_session_id: "other",
    });
    assert.is(at(await pane(sim, paneId), "agent_session.value"), SESSION);
    // Official pairs cannot be released; the reply is still ok.
    assert.is(
      await rpc(sim.socketPath, "r", "pane.release_agent", {
        pane_id: paneId,
        source: "herdr:grok",
        agent: "grok",
      }),
      `{"id":"r","result":{"type":"ok"}}`,
    );
    assert.is((await pane(sim, paneId)).agent, "grok");
  });
});

test("custom sources: label and state, never agent_session; ignored while an official session is stored", async () => {
  await withSim({ switches: { detectMs: -1 } }, async (sim) => {
    const paneId = await launchGrok(sim);
    await call(sim.socketPath, "pane.report_agent", {
      pane_id: paneId,
      source: "custom:grok-leader",
      agent: "grok-leader",
      state: "working",
      agent_session_id: SESSION,
    });
    const p = await pane(sim, paneId);
    assert.is(p.agent, "grok-leader");
    assert.is(p.agent_status, "working");
    assert.is(p.agent_session, undefined, "custom session ids are dropped");
    // The official session still lands (no owner conflict: the custom authority has no ref): G5.
    await reportFor(sim, "pane.report_agent_session", paneId, "grok", {
      agent_session_id: SESSION,
    });
    const both = await pane(sim, paneId);
    assert.is(both.agent, "grok-leader");
    assert.is(at(both, "agent_session.agent"), "grok");
    // release by the custom owner: released event and the label goes away.
    await call(sim.socketPath, "pane.release_agent", {
      pane_id: paneId,
      source: "custom:grok-leader",
      agent: "grok-leader",
    });
    const after = await pane(sim, paneId);
    assert.is(after.agent, undefined);
    assert.is(
      at(after, "agent_session.value"),
      SESSION,
      "a foreign persisted session survives the release",
    );
    // A custom report is now ignored: an official session is stored.
    await call(sim.socketPath, "pane.report_agent", {
      pane_id: paneId,
      source: "custom:other",
      agent: "x",
      state: "blocked",
    });
    assert.is((await pane(sim, paneId)).agent, undefined);
    // clear_agent_authority does nothing to session-only state.
    await call(sim.socketPath, "pane.clear_agent_authority", { pane_id: paneId });
    assert.is(at(await pane(sim, paneId), "agent_session.value"), SESSION);
  });
});

test("report errors: empty agent label, unknown pane; sequence numbers gate reports", async () => {
  await withSim({ switches: { detectMs: -1 } }, async (sim) => {
    const paneId = await launchGrok(sim);
    assert.is(
      await rpc(sim.socketPath, "e", "pane.report_agent", {
        pane_id: paneId,
        source: "s",
        agent: "  ",
        state: "idle",
      }),
      `{"id":"e","error":{"code":"invalid_agent","message":"agent label must not be empty"}}`,
    );
    assert.is(
      await rpc(sim.socketPath, "e", "pane.report_agent", {
        pane_id: "w1:p9",
        source: "s",
        agent: "a",
        state: "idle",
      }),
      `{"id":"e","error":{"code":"pane_not_found","message":"pane w1:p9 not found"}}`,
    );
    const report = (seq: number, state: string) =>
      call(sim.socketPath, "pane.report_agent", {
        pane_id: paneId,
        source: "custom:s",
        agent: "bot",
        state,
        seq,
      });
    await report(5, "working");
    await report(4, "blocked");
    assert.is((await pane(sim, paneId)).agent_status, "working", "an older seq is ignored");
    await report(6, "blocked");
    assert.is((await pane(sim, paneId)).agent_status, "blocked");
    await call(sim.socketPath, "pane.report_agent", {
      pane_id: paneId,
      source: "custom:s",
      agent: "bot",
      state: "idle",
    });
    assert.is(
      (await pane(sim, paneId)).agent_status,
      "blocked",
      "no seq after sequenced reports is ignored",
    );
  });
});

test("detection delay: no agent right after launch, grok once the probe has run", async () => {
  await withSim({ switches: { detectMs: 800 } }, async (sim) => {
    const paneId = await launchGrok(sim);
    assert.is((await pane(sim, paneId)).agent, undefined);
    await waitFor(async () => (await pane(sim, paneId)).agent === "grok", 15000, "detection");
  });
});

test("0.9.3: after pane.report_agent the top-level agent is omitted, agent_session kept", async () => {
  await withSim({ version: "0.9.3", switches: { detectMs: 100 } }, async (sim) => {
    const pong = await call(sim.socketPath, "ping", {});
    assert.is(at(pong, "result.version"), "0.9.3");
    const paneId = await launchGrok(sim);
    await waitFor(async () => (await pane(sim, paneId)).agent === "grok", 15000, "detection");
    await call(sim.socketPath, "pane.report_agent", grokSession(paneId));
    const p = await pane(sim, paneId);
    assert.is(p.agent, undefined);
    assert.equal(p.agent_session, reservedSession("grok", "id", SESSION));
  });
});

test("runtime switches: G6 and G7 faults on live panes", async () => {
  await withSim({ switches: { detectMs: 100 } }, async (sim) => {
    const paneId = await launchGrok(sim);
    await reportFor(sim, "pane.report_agent_session", paneId, "grok", {
      agent_session_id: SESSION,
    });
    await waitFor(async () => (await pane(sim, paneId)).agent === "grok", 15000, "detection");
    await sim.configure({ agentNull: true, faultPane: paneId });
    const line = await rpc(sim.socketPath, "g6", "pane.get", { pane_id: paneId });
    assert.match(line, /"label":"grok leader","agent":null,"terminal_title"/);
    await sim.configure({ agentNull: false, sessionFault: "id_instead_of_value" });
    assert.match(
      await rpc(sim.socketPath, "g7c", "pane.get", { pane_id: paneId }),
      `"agent_session":{"source":"herdr:grok","agent":"grok","kind":"id","id":"${SESSION}"}`,
    );
  });
});

test.run();
