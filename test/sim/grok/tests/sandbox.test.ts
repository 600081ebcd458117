// @platform linux: /proc is the oracle
/**
 * A requested sandbox profile turns leader mode off (pager app/mod.rs `resolve_leader_mode`:
 * `requested_confinement` vetoes even `--leader`; xai-grok-sandbox `requested_confinement_profile`;
 * agent/config.rs `resolve_profile`: `--sandbox` > `GROK_SANDBOX` > `[sandbox] profile`, "off"
 * and "none" confine nothing). The TUI then runs its agent in-process: no socket, no lock, no
 * leader child, yet the session exists and the TUI registers it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim, pidAlive, waitFor } from "../../../helpers/grok-sim.js";
import { encodeCwd, traceEvents, withSimTui } from "../../../helpers/grok-sim-clients.js";
import { stat } from "../../kernel-oracles.js";

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (stat(Number(name)).ppid === pid) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

test.before(async () => {
  await ensureGrokSim();
});

const PROFILE_SOURCES: Array<[string, Parameters<typeof withSimTui>[0]]> = [
  ["--sandbox", { tui: { extraArgs: ["--sandbox", "workspace"] } }],
  ["GROK_SANDBOX", { env: { GROK_SANDBOX: " read-only " } }],
  ["[sandbox] profile", { home: { extraToml: '[sandbox]\nprofile = "strict"\n' } }],
];

for (const [source, opts] of PROFILE_SOURCES) {
  test(`a sandbox profile from ${source} runs the TUI without a leader`, async () => {
    await withSimTui(opts, async ({ tui, log }) => {
      await tui.sessionReady();
      await tui.waitForScreen("no leader (sandbox)");
      const mode = traceEvents(log).find((e) => e.event === "tui_leader_mode");
      assert.is(mode?.use_leader, false);
      assert.ok(typeof mode?.sandbox === "string" && mode.sandbox !== "off");
      assert.not.ok(existsSync(tui.paths.socketPath), "no leader socket");
      assert.not.ok(existsSync(tui.paths.lockPath), "no leader lock");
      assert.equal(childrenOf(tui.tuiPid), [], "no leader child");
      const entry = await waitFor("the active_sessions.json entry", () => {
        try {
          const list: Array<{ session_id: string; pid: number }> = JSON.parse(
            readFileSync(tui.paths.activeSessions, "utf8"),
          );
          return list.find((e) => e.session_id === tui.sessionId);
        } catch {
          return undefined;
        }
      });
      assert.is(entry.pid, tui.tuiPid);
      // The in-process agent answers prompts.
      await tui.typeIntoTui("hello from the owner");
      await tui.waitForScreen('Simulated reply to "hello from the owner"');
    });
  });
}

test('"off" and "none" confine nothing: the leader runs', async () => {
  for (const value of ["off", "none"]) {
    await withSimTui({ env: { GROK_SANDBOX: value } }, async ({ tui }) => {
      const leader = await tui.leaderPid();
      assert.is(stat(leader).ppid, tui.tuiPid);
      await tui.sessionReady();
    });
  }
});

test("quitting the leaderless TUI mid-turn flushes the session: the streamed chunk reaches updates.jsonl", async () => {
  const opts = {
    // The second chunk never comes before the quit: the first one waits in the merge buffer.
    env: { GROK_SIM_CHUNK_DELAY_MS: "60000" },
    tui: { extraArgs: ["--sandbox", "workspace"] },
  };
  await withSimTui(opts, async ({ tui, home }) => {
    await tui.sessionReady();
    await tui.waitForScreen("no leader (sandbox)");
    await tui.typeIntoTui("[[sim:chunks=3]] stream slowly");
    await tui.waitForScreen("Simulated reply");
    await tui.typeIntoTui("/quit");
    await waitFor("the TUI to exit", () => !pidAlive(tui.tuiPid));
    const updates = join(home.dir, "sessions", encodeCwd(home.cwd), tui.sessionId, "updates.jsonl");
    const kinds = readFileSync(updates, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l)?.params?.update?.sessionUpdate);
    // agent_ops.rs flush_all_sessions: a non-leader quit drains every session's persistence.
    assert.ok(kinds.includes("agent_message_chunk"), `updates.jsonl holds ${kinds.join(", ")}`);
  });
});

test.run();
