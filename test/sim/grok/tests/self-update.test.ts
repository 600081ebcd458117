// @platform linux: uses the grok simulator and /proc, not yet verified on macOS
/**
 * Self-update, on by default as in the real program (pager-bin main.rs
 * `should_check_for_updates`, agent/app.rs `run_auto_update_checker`, xai-grok-update
 * auto_update.rs `ensure_latest_on_disk` / `check_update_background`): without
 * GROK_DISABLE_AUTOUPDATER the leader installs the newer build into GROK_HOME and shuts down for
 * `auto_update` after its interval, the TUI respawns a leader; a busy leader defers at most 24
 * times; the TUI's own startup check writes version.json or downloads the build. The test knobs
 * only shorten the interval (GROK_SIM_AUTO_UPDATE_INTERVAL_MS) or force the shutdown
 * (GROK_SIM_AUTO_UPDATE_AFTER_MS).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  grokHomeFixture,
  pidAlive,
  simEnv,
  startGrokLeader,
  waitFor,
} from "../../../helpers/grok-sim.js";
import {
  acpClient,
  traceEvents,
  withSimLeader,
  withSimTui,
} from "../../../helpers/grok-sim-clients.js";
import { stat } from "../../kernel-oracles.js";
import { get, registeredUntilClosed } from "./raw.js";

const PLATFORM = `${process.platform === "darwin" ? "macos" : "linux"}-${process.arch === "arm64" ? "aarch64" : "x86_64"}`;

/** The leader's update checker on (GROK_DISABLE_AUTOUPDATER=0) every `intervalMs`, plus `env`. */
function checkerEvery(
  intervalMs: number,
  env: Record<string, string> = {},
): Record<string, string> {
  return {
    GROK_DISABLE_AUTOUPDATER: "0",
    GROK_SIM_AUTO_UPDATE_INTERVAL_MS: String(intervalMs),
    ...env,
  };
}

/** config.toml switching updates off ([cli] auto_update, re-read at every check). */
const UPDATES_OFF = { extraToml: "[cli]\nauto_update = false\n" };

/** A client registered on the leader sees it close with the auto_update shutdown frame. */
async function closedForAutoUpdate(socketPath: string): Promise<void> {
  const c = await registeredUntilClosed(socketPath, "my-lib", 10_000);
  assert.is(c.frames.at(-2)?.text, '{"type":"shutting_down","reason":"auto_update","delay_ms":0}');
}

test.before(async () => {
  await ensureGrokSim();
});

test("by default the leader installs the newer build, shuts down for auto_update, and the TUI respawns a leader", async () => {
  // An empty GROK_DISABLE_AUTOUPDATER is no opt-out (env_flag_enabled("") is false).
  const env = { GROK_DISABLE_AUTOUPDATER: "", GROK_SIM_AUTO_UPDATE_INTERVAL_MS: "1500" };
  await withSimTui({ env }, async ({ tui, home, log }) => {
    await tui.sessionReady();
    const first = await tui.leaderPid();
    const c = await registeredUntilClosed(tui.paths.socketPath, "my-lib", 15_000);
    assert.equal(
      c.frames.slice(-2).map((f) => f.text),
      ['{"type":"shutting_down","reason":"auto_update","delay_ms":0}', '{"type":"shutdown"}'],
    );
    await waitFor("the first leader to exit", () => !pidAlive(first));
    // The build the leader (or the TUI's own download) put on disk, as install_internal does.
    const link = readlinkSync(join(home.dir, "bin", "grok"));
    assert.is(link, join("..", "downloads", `grok-1.0.49-${PLATFORM}`));
    const version = JSON.parse(readFileSync(join(home.dir, "version.json"), "utf8"));
    assert.is(version.version, "1.0.49");
    assert.match(readFileSync(join(home.dir, "config.toml"), "utf8"), /installer = "internal"/);
    const installed = spawnSync(join(home.dir, "bin", "grok"), ["--version"], {
      env: simEnv(home.dir),
      encoding: "utf8",
    });
    assert.match(installed.stdout, /^grok 1\.0\.49 /, "the downloaded build runs as 1.0.49");
    // The TUI reconnects through connect_or_spawn: a new leader, again its child.
    const second = await waitFor("a respawned leader", async () => {
      const pid = await tui.leaderPid();
      return pid !== first ? pid : undefined;
    });
    assert.is(stat(second).ppid, tui.tuiPid);
    await tui.sessionReady();
    await tui.waitForScreen("Update: v1.0.49 available");
    const shutdown = traceEvents(log).find((e) => e.event === "auto_update_shutdown");
    assert.is(shutdown?.pid, first);
    assert.is(shutdown?.busy, false);
  });
});

test("GROK_DISABLE_AUTOUPDATER is read by value, in the leader's own environment", async () => {
  const home = grokHomeFixture();
  try {
    for (const [value, disabled] of [
      ["1", true],
      ["yes", true],
      [" TRUE ", true],
      ["0", false],
      ["false", false],
      ["Off", false],
    ] as const) {
      const log = join(home.dir, "..", `trace-${value.trim()}.log`);
      const leader = await startGrokLeader({
        grokHome: home.dir,
        cwd: home.cwd,
        env: {
          GROK_DISABLE_AUTOUPDATER: value,
          GROK_SIM_AUTO_UPDATE_INTERVAL_MS: "30",
          GROK_SIM_LATEST_VERSION: "1.0.48",
          GROK_SIM_LOG: log,
        },
      });
      try {
        if (disabled) {
          await waitFor(`"${value}" disables`, () =>
            leader.stderr().includes("Leader auto-update disabled"),
          );
        } else {
          await waitFor(`"${value}" leaves the check on`, () =>
            traceEvents(log).some((e) => e.event === "auto_update_check"),
          );
          assert.not.match(leader.stderr(), /auto-update disabled/);
        }
      } finally {
        await leader.stop();
      }
    }
  } finally {
    home.remove();
  }
});

test("with the variable set nothing is installed; the force knob still shuts the leader down", async () => {
  await withSimLeader(
    {
      env: {
        GROK_DISABLE_AUTOUPDATER: "1",
        GROK_SIM_AUTO_UPDATE_INTERVAL_MS: "50",
        GROK_SIM_AUTO_UPDATE_AFTER_MS: "1500",
      },
    },
    async ({ leader, home, log }) => {
      await closedForAutoUpdate(leader.paths.socketPath);
      assert.ok(!existsSync(join(home.dir, "bin", "grok")), "no build installed");
      assert.ok(!existsSync(join(home.dir, "downloads")));
      assert.equal(
        traceEvents(log).filter((e) => String(e.event).startsWith("auto_update_")),
        [],
        "the checker never ran",
      );
    },
  );
});

test("a busy leader defers the update shutdown at most 24 times, then shuts down mid-turn", async () => {
  // Updates start switched off in config.toml, so the turn is running
  // before the first check can find the newer build.
  await withSimLeader(
    { env: checkerEvery(40), home: UPDATES_OFF },
    async ({ leader, home, log }) => {
      const c = await acpClient(leader.paths.socketPath, "my-lib");
      const created = await c.request("session/new", { cwd: home.cwd, mcpServers: [] });
      const sessionId = String(get(created, "result", "sessionId"));
      c.sendPrompt("turn", sessionId, "[[sim:sleep=60000]] a long turn");
      await c.nextAcp(
        (m) =>
          m.method === "session/update" &&
          get(m, "params", "update", "sessionUpdate") === "agent_message_chunk",
      );
      home.writeConfig("");
      await c.waitClosed(20_000);
      const events = traceEvents(log);
      const deferred = events.filter((e) => e.event === "auto_update_deferred");
      assert.is(deferred.length, 24);
      assert.equal(
        deferred.map((e) => e.busy_deferrals),
        Array.from({ length: 24 }, (_, i) => i + 1),
      );
      const shutdown = events.find((e) => e.event === "auto_update_shutdown");
      assert.is(shutdown?.busy, true, "shut down while the turn still ran");
      assert.is(shutdown?.busy_deferrals, 24);
      assert.ok(
        !c.acp().some((m) => m.id === "turn"),
        "the prompt never got its answer: the leader left mid-turn",
      );
    },
  );
});

test("an npm install updates outside GROK_HOME; the leader relaunches all the same", async () => {
  await withSimLeader(
    { env: checkerEvery(100, { GROK_INSTALLER: "npm" }) },
    async ({ leader, home, log }) => {
      await closedForAutoUpdate(leader.paths.socketPath);
      const installed = traceEvents(log).find((e) => e.event === "update_installed");
      assert.is(installed?.installer, "npm");
      assert.not.ok(existsSync(join(home.dir, "bin", "grok")), "npm installs globally");
      assert.not.ok(existsSync(join(home.dir, "downloads")));
    },
  );
});

test("[cli] auto_update = false keeps the leader's check from installing anything", async () => {
  await withSimLeader(
    { env: checkerEvery(30), home: UPDATES_OFF },
    async ({ leader, home, log }) => {
      await waitFor(
        "three checks",
        () => traceEvents(log).filter((e) => e.event === "auto_update_check").length >= 3,
      );
      assert.ok(pidAlive(leader.pid));
      assert.ok(!existsSync(join(home.dir, "bin", "grok")));
    },
  );
});

test("the TUI's startup check: current → version.json; behind → a detached `grok update` downloads it", async () => {
  const currentEnv = { GROK_DISABLE_AUTOUPDATER: "", GROK_SIM_LATEST_VERSION: "1.0.48" };
  await withSimTui({ env: currentEnv }, async ({ tui, home: current }) => {
    await tui.sessionReady();
    const doc = await waitFor("version.json", () => {
      const p = join(current.dir, "version.json");
      return existsSync(p) ? JSON.parse(readFileSync(p, "utf8")) : undefined;
    });
    assert.is(doc.version, "1.0.48");
    assert.is(doc.stable_version, "1.0.48");
    assert.ok(!existsSync(join(current.dir, "bin", "grok")), "nothing to download");
  });
  await withSimTui(
    { env: { GROK_DISABLE_AUTOUPDATER: "" } },
    async ({ tui: tui2, home: behind, log: log2 }) => {
      await tui2.sessionReady();
      await tui2.waitForScreen("Update: v1.0.49 available — press ctrl+u to restart");
      const spawned = await waitFor("the download child", () =>
        traceEvents(log2).find((e) => e.event === "update_download_spawned"),
      );
      assert.is(spawned.pid === tui2.tuiPid, false);
      const installed = await waitFor("the download's install", () =>
        traceEvents(log2).find((e) => e.event === "update_installed"),
      );
      assert.is(installed.pid, spawned.pid, "the `grok update` child installed it");
      assert.is(installed.role, "update");
      assert.is(
        readlinkSync(join(behind.dir, "bin", "grok")),
        join("..", "downloads", `grok-1.0.49-${PLATFORM}`),
      );
    },
  );
});

test.run();
