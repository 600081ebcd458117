// @platform linux: /proc is the oracle
/**
 * `/minimal` and `/fullscreen` replace the TUI's process image in place, as the real TUI does
 * (pager app/screen_mode_relaunch.rs `exec_screen_mode_relaunch`, dispatch/router.rs
 * `RelaunchInScreenMode`): same pid and executable, argv rebuilt with `--resume <id>` and the
 * mode flag (the positional prompt dropped), GROK_SCREEN_MODE in the new environment; the new
 * image reconnects to the same leader (still its child), replays the session with `session/load`
 * and registers its active_sessions.json entry again.
 */
import { readFileSync, realpathSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim, type GrokTui, pidAlive, waitFor } from "../../../helpers/grok-sim.js";
import { traceEvents, withSimTui } from "../../../helpers/grok-sim-clients.js";
import { cmdline, environ, exe, stat } from "../../kernel-oracles.js";
import { get } from "./raw.js";

const linux = process.platform === "linux";

function entryOf(tui: GrokTui): { pid: number; opened_at: string } | undefined {
  try {
    const list: Array<{ session_id: string; pid: number; opened_at: string }> = JSON.parse(
      readFileSync(tui.paths.activeSessions, "utf8"),
    );
    return list.find((e) => e.session_id === tui.sessionId);
  } catch {
    return undefined;
  }
}

/** session/load requests the agent received from the TUI, in order. */
function loads(log: string, sessionId: string): Array<Record<string, unknown>> {
  return traceEvents(log)
    .filter((e) => e.event === "agent_in")
    .map((e) => JSON.parse(String(e.line)))
    .filter((m) => m.method === "session/load" && get(m, "params", "sessionId") === sessionId);
}

test.before(async () => {
  await ensureGrokSim();
});

test("/minimal then /fullscreen: same pid, new argv, session/load replay, entry registered again", async () => {
  if (!linux) {
    console.log("skipped: /proc/<pid>/cmdline is Linux-only");
    return;
  }
  await withSimTui({ tui: { prompt: "the first prompt" } }, async ({ tui, log }) => {
    await tui.sessionReady();
    await tui.waitForScreen("Simulated reply to");
    const leader = await tui.leaderPid();
    const binary = exe(tui.tuiPid);
    const before = cmdline(tui.tuiPid);
    assert.equal(before.slice(1), [
      "--leader",
      "--leader-socket",
      tui.paths.socketPath,
      "--session-id",
      tui.sessionId,
      "the first prompt",
    ]);
    const first = await waitFor("the first entry", () => entryOf(tui));
    assert.is(first.pid, tui.tuiPid);

    await tui.typeIntoTui("/minimal");
    const after = await waitFor("the exec'd argv", () => {
      const argv = cmdline(tui.tuiPid);
      return argv.includes("--minimal") ? argv : undefined;
    });
    assert.equal(after, [
      realpathSync(binary),
      "--leader",
      "--leader-socket",
      tui.paths.socketPath,
      "--resume",
      tui.sessionId,
      "--minimal",
    ]);
    assert.ok(pidAlive(tui.tuiPid), "same process");
    assert.is(exe(tui.tuiPid), binary, "same executable");
    assert.is(environ(tui.tuiPid).get("GROK_SCREEN_MODE"), "minimal");

    // The new image replays the whole session from the same leader, still its child.
    const load = await waitFor("the relaunched session/load", () => loads(log, tui.sessionId)[0]);
    assert.is(get(load, "params", "_meta", "yoloMode"), false);
    assert.is(get(load, "params", "_meta", "autoMode"), false);
    assert.is(get(load, "params", "_meta", "cursor"), undefined, "no cursor: a full replay");
    assert.is(get(load, "params", "cwd"), tui.paths.cwd);
    assert.is(await tui.leaderPid(), leader, "no new leader");
    assert.is(stat(leader).ppid, tui.tuiPid);
    await tui.sessionReady();
    await tui.waitForScreen("· minimal");
    await tui.waitForScreen("the first prompt");
    const second = await waitFor("the entry registered again", () => {
      const e = entryOf(tui);
      return e !== undefined && e.opened_at !== first.opened_at ? e : undefined;
    });
    assert.is(second.pid, tui.tuiPid);
    const relaunch = traceEvents(log).filter((e) => e.event === "tui_relaunch");
    assert.equal(
      relaunch.map((e) => [e.pid, e.minimal]),
      [[tui.tuiPid, true]],
    );
    assert.is(
      traceEvents(log).filter((e) => e.event === "tui_prompt").length,
      1,
      "the positional prompt did not fire again",
    );

    await tui.typeIntoTui("/fullscreen");
    await waitFor("the second exec", () => cmdline(tui.tuiPid).includes("--fullscreen"));
    assert.equal(cmdline(tui.tuiPid).slice(-3), ["--resume", tui.sessionId, "--fullscreen"]);
    await waitFor("the second replay", () => loads(log, tui.sessionId).length === 2);
    await tui.sessionReady();
    assert.is(entryOf(tui)?.pid, tui.tuiPid);
  });
});

test("a relaunch keeps --rules and its value (a value-taking flag), so the new image starts", async () => {
  if (!linux) {
    console.log("skipped: /proc/<pid>/cmdline is Linux-only");
    return;
  }
  await withSimTui(
    { tui: { extraArgs: ["--rules", "Answer in haiku."] } },
    async ({ tui, log }) => {
      await tui.sessionReady();
      await tui.typeIntoTui("/minimal");
      const after = await waitFor("the exec'd argv", () => {
        const argv = cmdline(tui.tuiPid);
        return argv.includes("--minimal") ? argv : undefined;
      });
      // build_screen_mode_relaunch_args keeps a flag clap says takes a value, with that value.
      assert.equal(after.slice(-5), [
        "--rules",
        "Answer in haiku.",
        "--resume",
        tui.sessionId,
        "--minimal",
      ]);
      await waitFor("the relaunched session/load", () => loads(log, tui.sessionId)[0]);
      await tui.waitForScreen("· minimal");
      assert.ok(pidAlive(tui.tuiPid), "the new image runs");
    },
  );
});

test.run();
