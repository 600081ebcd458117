// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The `grok` command line as bin/main.rs dispatches it (docs/design/grok-leader-protocol.md §1, §9):
 * version text and channel label from $GROK_HOME/version.json, `version --json`, the refused
 * standalone agent modes, top-level --leader with `agent`, and `leader list|info --json`, which
 * only scan $GROK_HOME.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  grokHomeFixture,
  simEnv,
  startGrokLeader,
} from "../../../helpers/grok-sim.js";

let grok = "";

function run(
  args: string[],
  env: Record<string, string>,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(grok, args, { env, encoding: "utf8", timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test.before(async () => {
  grok = await ensureGrokSim();
});

test("--version, -v, -V: `grok <VERSION> (<commit>)` plus the channel label from version.json", () => {
  const home = grokHomeFixture();
  try {
    const env = simEnv(home.dir);
    for (const flag of ["--version", "-v", "-V"]) {
      const r = run([flag], env);
      assert.is(r.status, 0);
      assert.is(r.stdout, "grok 1.0.48 (abc1234)\n");
    }
    writeFileSync(
      join(home.dir, "version.json"),
      JSON.stringify({ version: "1.0.47", stable_version: "1.0.47", checked_at: "x" }),
    );
    assert.is(run(["--version"], env).stdout, "grok 1.0.48 (abc1234) [alpha]\n");
    writeFileSync(
      join(home.dir, "version.json"),
      JSON.stringify({ version: "1.0.48", stable_version: "1.0.48", checked_at: "x" }),
    );
    assert.is(run(["-V"], env).stdout, "grok 1.0.48 (abc1234) [stable]\n");
    const custom = run(["--version"], {
      ...env,
      GROK_SIM_VERSION: "1.0.50",
      GROK_SIM_COMMIT: "b94d5072c95f",
    });
    assert.is(custom.stdout, "grok 1.0.50 (b94d5072c95f) [alpha]\n");
    const json = run(["version", "--json"], env);
    assert.is(json.stdout, '{"currentVersion":"1.0.48 (abc1234)","channel":"stable"}\n');
  } finally {
    home.remove();
  }
});

test("standalone agent modes are refused loudly; top-level --leader with agent is rejected", () => {
  const home = grokHomeFixture();
  try {
    const env = simEnv(home.dir);
    for (const mode of [["agent", "stdio"], ["agent", "headless"], ["agent"]]) {
      const r = run(mode, env);
      assert.is(r.status, 2);
      assert.match(r.stderr, /not simulated/);
    }
    const both = run(["--leader", "agent", "leader"], env);
    assert.is(both.status, 1);
    assert.is(
      both.stderr,
      "Error: top-level --leader applies to the pager TUI, not the agent subcommand. Use `grok-pager agent --leader` instead.\n",
    );
    const unknown = run(["--frobnicate"], env);
    assert.is(unknown.status, 2);
  } finally {
    home.remove();
  }
});

test("leader list/info --json scan $GROK_HOME only; a private socket elsewhere is invisible", async () => {
  const home = grokHomeFixture();
  const leader = await startGrokLeader({
    grokHome: home.dir,
    cwd: home.cwd,
    socketPath: join(home.dir, "leader.sock"),
  });
  const elsewhere = mkdtempSync(join(tmpdir(), "grok-sim-private-"));
  const hidden = await startGrokLeader({
    grokHome: home.dir,
    cwd: home.cwd,
    socketPath: join(elsewhere, "p.sock"),
  });
  try {
    const env = simEnv(home.dir);
    writeFileSync(join(home.dir, "leader-deadbeef.lock"), "999999");
    const list = run(["leader", "list", "--json"], env);
    assert.is(list.status, 0, list.stderr);
    assert.equal(JSON.parse(list.stdout), [
      {
        pid: leader.pid,
        pidFromLock: leader.pid,
        pidLive: leader.pid,
        classification: "Reachable",
        socketPath: join(home.dir, "leader.sock"),
        lockPath: join(home.dir, "leader.lock"),
        wsUrlSuffix: "",
      },
      {
        pid: 999999,
        pidFromLock: 999999,
        pidLive: null,
        classification: "Stale",
        socketPath: null,
        lockPath: join(home.dir, "leader-deadbeef.lock"),
        wsUrlSuffix: "-deadbeef",
      },
    ]);
    assert.ok(!list.stdout.includes(String(hidden.pid)));
    const info = run(["leader", "info", "--json"], env);
    assert.is(info.status, 0, info.stderr);
    const parsed = JSON.parse(info.stdout);
    assert.is(parsed.pid, leader.pid);
    assert.is(typeof parsed.clientId, "number");
    assert.is(parsed.info.type, "leader_info");
    assert.is(parsed.info.pid, leader.pid);
    assert.equal(Object.keys(parsed), [
      "pid",
      "pidFromLock",
      "pidLive",
      "classification",
      "socketPath",
      "lockPath",
      "wsUrlSuffix",
      "clientId",
      "info",
    ]);
  } finally {
    await hidden.stop();
    await leader.stop();
    rmSync(elsewhere, { recursive: true, force: true });
    home.remove();
  }
});

test("GROK_HOME unset: ~/.grok under the (canonical) home directory", () => {
  const fakeHome = mkdtempSync(join(tmpdir(), "grok-sim-home-"));
  try {
    const env = simEnv("unused");
    delete env.GROK_HOME;
    env.HOME = fakeHome;
    mkdirSync(join(fakeHome, ".grok"));
    writeFileSync(
      join(fakeHome, ".grok", "version.json"),
      JSON.stringify({ version: "9.0.0", stable_version: "9.0.0" }),
    );
    assert.is(run(["--version"], env).stdout, "grok 1.0.48 (abc1234) [stable]\n");
  } finally {
    rmSync(fakeHome, { recursive: true, force: true });
  }
});

test.run();
