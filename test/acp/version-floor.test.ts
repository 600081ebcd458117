// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The version floor end to end: `grok --version`, the leader's `registered` metadata and the
 * agent's `initialize._meta.agentVersion` (the ACP layer's part) must agree (lib/grok/version.ts,
 * `admitVersion`). The simulator's version switches make the agent disagree.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { allPassed, firstFailure } from "../../lib/check.js";
import { admitVersion, probeGrokVersion } from "../../lib/grok/version.js";
import { ensureGrokSim, simEnv } from "../helpers/grok-sim.js";
import { attachSeat, newSeatDir, removeSeatDir, startSim } from "./sim-seat.js";

const grok = await ensureGrokSim();

async function floorWith(env: Record<string, string>) {
  const sim = await startSim({ env });
  const seatDir = newSeatDir();
  try {
    const a = await attachSeat(sim, seatDir);
    try {
      const cli = await probeGrokVersion(grok, { env: simEnv(sim.home.dir, env) });
      return {
        agentVersion: a.seat.agentVersion,
        checks: admitVersion({
          cli,
          leaderRegistered: a.conn.registered,
          agent: { agentVersion: a.seat.agentVersion },
        }),
      };
    } finally {
      await a.close();
    }
  } finally {
    await sim.stop();
    removeSeatDir(seatDir);
  }
}

test("CLI, leader and agent report one version: admitted", async () => {
  const { agentVersion, checks } = await floorWith({});
  assert.is(agentVersion, "1.0.48");
  assert.ok(allPassed(checks), JSON.stringify(firstFailure(checks)));
  assert.ok(checks.some((c) => c.check === "version.agent_agrees" && c.ok));
});

test("an agent reporting another version refuses with the versions found", async () => {
  const { agentVersion, checks } = await floorWith({ GROK_SIM_AGENT_VERSION: "1.0.47" });
  assert.is(agentVersion, "1.0.47");
  const bad = firstFailure(checks);
  assert.is(bad?.check, "version.agent_agrees");
  assert.is(bad?.expected, "1.0.48");
  assert.is(bad?.received, "1.0.47");
});

test.run();
