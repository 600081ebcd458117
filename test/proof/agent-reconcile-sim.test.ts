// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
/**
 * Agent reconciliation end to end: the simulator produces the real-world states (the window where
 * only `agent_session` exists, Herdr 0.9.3 omitting the top-level agent after `pane.report_agent`)
 * and the fault switches produce G5-G7c on the wire. Each reaches the reconciler through the
 * real client and pane proof, and is accepted or refused by name, never as a parse error.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { systemKernel } from "../../lib/kernel/index.js";
import { bindPane, verifyPane } from "../../lib/observe/pane.js";
import { startHerdrSim } from "../helpers/herdr-sim.js";
import { poll } from "../helpers/poll.js";
import {
  agentReason,
  failedNames,
  kill,
  launchAndBind,
  newClient,
  reportAs,
} from "../herdr/sim-support.js";
import type { PartialSwitches } from "../sim/herdr/switches.js";

const SESSION = "0198c2d4-7f3a-7b21-9e55-3c1d2a4b5e6f";

const until = <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 10_000) =>
  poll(what, fn, timeoutMs, 20);

test("G3 window: a herdr:grok session before detection is accepted from the nested agent", async () => {
  const sim = await startHerdrSim({ switches: { detectMs: -1 } });
  const pids: number[] = [];
  try {
    const client = newClient(sim.socketPath);
    // Bind without an agent claim first (nothing is detected with detection off).
    const plain = await launchAndBind(client, sim.sessionName, { expectedAgent: null });
    pids.push(plain.record.process.pid);
    await reportAs(sim.socketPath, "pane.report_agent_session", {
      pane_id: plain.record.pane.paneId,
      source: "herdr:grok",
      agent: "grok",
      agent_session_id: SESSION,
    });
    const { pane } = await client.request("pane.get", { pane_id: plain.record.pane.paneId });
    assert.not.ok(Object.hasOwn(pane, "agent"), "top-level agent must be absent before detection");
    const bound = await bindPane(client, systemKernel, {
      paneId: plain.record.pane.paneId,
      launch: plain.record.launch,
      sessionName: sim.sessionName,
      nativeSessionId: SESSION,
      expectedAgent: "grok",
    });
    assert.equal(failedNames(bound.checks), []);
    const record = bound.record;
    if (record === null) throw new Error("not bound");
    const v = await verifyPane(client, systemKernel, record);
    assert.equal(failedNames(v.checks), []);
    assert.equal(v.agent, {
      ok: true,
      agent: "grok",
      agentFrom: "nested",
      nativeSessionId: SESSION,
      nativeSessionKind: "id",
      sessionSource: "herdr:grok",
    });
  } finally {
    for (const pid of pids) kill(pid);
    await sim.stop();
  }
});

test("Herdr 0.9.3 omits the top-level agent after pane.report_agent: nested agent accepted", async () => {
  const sim = await startHerdrSim({ version: "0.9.3", switches: { detectMs: 100 } });
  const pids: number[] = [];
  try {
    const client = newClient(sim.socketPath);
    const { record } = await launchAndBind(client, sim.sessionName, { nativeSessionId: SESSION });
    pids.push(record.process.pid);
    assert.is(record.herdr.version, "0.9.3");
    await reportAs(sim.socketPath, "pane.report_agent", {
      pane_id: record.pane.paneId,
      source: "herdr:grok",
      agent: "grok",
      state: "working",
      agent_session_id: SESSION,
    });
    const pane = await until("agent_session to appear", async () => {
      const r = await client.request("pane.get", { pane_id: record.pane.paneId });
      return Object.hasOwn(r.pane, "agent_session") ? r.pane : undefined;
    });
    assert.not.ok(Object.hasOwn(pane, "agent"), "0.9.3 omits the top-level agent");
    const v = await verifyPane(client, systemKernel, record);
    assert.equal(failedNames(v.checks), []);
    assert.is(v.agent?.ok && v.agent.agentFrom, "nested");
  } finally {
    for (const pid of pids) kill(pid);
    await sim.stop();
  }
});

const faults: [string, PartialSwitches, string, string[]][] = [
  [
    "G5 contradictory agent",
    { agentOverride: "grok-leader" },
    "agent_contradiction",
    ["pane.agent"],
  ],
  ["G6 agent null", { agentNull: true }, "agent_null", ["pane.agent"]],
  [
    "G7a session without source",
    { sessionFault: "missing_source" },
    "agent_session_missing_source",
    ["pane.agent", "pane.native_session"],
  ],
  [
    "G7b session without value",
    { sessionFault: "missing_value" },
    "agent_session_missing_value",
    ["pane.agent", "pane.native_session"],
  ],
  [
    "G7c session with id instead of value",
    { sessionFault: "id_instead_of_value" },
    "agent_session_missing_value",
    ["pane.agent", "pane.native_session"],
  ],
];

test("G5-G7c from the simulator's fault switches are refused by name, not as parse errors", async () => {
  const sim = await startHerdrSim({ switches: { detectMs: 100 } });
  const pids: number[] = [];
  try {
    const client = newClient(sim.socketPath);
    const { record } = await launchAndBind(client, sim.sessionName, { nativeSessionId: SESSION });
    pids.push(record.process.pid);
    await reportAs(sim.socketPath, "pane.report_agent_session", {
      pane_id: record.pane.paneId,
      source: "herdr:grok",
      agent: "grok",
      agent_session_id: SESSION,
    });
    assert.equal(failedNames((await verifyPane(client, systemKernel, record)).checks), []);
    for (const [name, switches, reason, failing] of faults) {
      await sim.configure({ ...switches, faultPane: record.pane.paneId });
      const v = await verifyPane(client, systemKernel, record);
      assert.equal(failedNames(v.checks), failing, name);
      assert.is(agentReason(v.checks), reason, name);
      await sim.configure({
        agentOverride: null,
        agentNull: false,
        sessionFault: null,
        faultPane: null,
      });
    }
    assert.equal(await sim.injectionLog(), []);
  } finally {
    for (const pid of pids) kill(pid);
    await sim.stop();
  }
});

test.run();
