// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The owner's startup screens hold the session as in the real TUI (pager app/app_view.rs
 * `session_startup_allowed`, event_loop.rs `seed_trust_state` / `seed_consent_state_from_gate`;
 * xai-grok-workspace folder_trust.rs, trust.rs; pager app/consent.rs; acp/mod.rs
 * `startup_auth_metadata`): the leader runs and is initialized, but neither `session/new` nor an
 * active_sessions.json entry exists until the owner (this test, typing into the tmux pane)
 * answers sign-in, consent and folder trust, in that order.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  type GrokHomeFixture,
  type GrokTui,
  pidAlive,
  type RepoLocalConfig,
  trustFolder,
  waitFor,
  writeRepoLocalConfig,
} from "../../../helpers/grok-sim.js";
import {
  traceEvents,
  withSimHome,
  withSimTui,
  withTuiIn,
} from "../../../helpers/grok-sim-clients.js";

const TRUST_QUESTION = "Do you trust the contents of this directory?";

/** ACP methods the in-process agent received (after the leader's id rewriting). */
function agentMethods(log: string): string[] {
  return traceEvents(log)
    .filter((e) => e.event === "agent_in")
    .map((e) => String(JSON.parse(String(e.line)).method ?? ""));
}

function activeSessionIds(tui: GrokTui): string[] {
  try {
    const list: Array<{ session_id: string }> = JSON.parse(
      readFileSync(tui.paths.activeSessions, "utf8"),
    );
    return list.map((e) => e.session_id);
  } catch {
    return [];
  }
}

/** The gate is up, the leader initialized us, and still no session exists. */
async function heldAt(tui: GrokTui, log: string, screen: string): Promise<void> {
  await tui.waitForScreen(screen);
  await tui.leaderPid();
  const methods = agentMethods(log);
  assert.ok(methods.includes("initialize"), "the leader is up and initialized the TUI");
  assert.not.ok(methods.includes("session/new"), `no session/new while "${screen}" is up`);
  assert.not.ok(activeSessionIds(tui).includes(tui.sessionId));
}

test.before(async () => {
  await ensureGrokSim();
});

test("signed out: the sign-in screen holds session/new until the owner logs in", async () => {
  await withSimTui({ home: { signedIn: false } }, async ({ tui, home, log }) => {
    await heldAt(tui, log, "Login with Grok");
    await tui.pressKey("l");
    await tui.sessionReady();
    await waitFor("the active_sessions.json entry", () =>
      activeSessionIds(tui).includes(tui.sessionId),
    );
    const auth = JSON.parse(readFileSync(home.authPath, "utf8"));
    assert.ok(
      typeof auth["https://auth.x.ai::b1a00492-073a-47ea-816f-4c329264a828"]?.refresh_token ===
        "string",
      "the login landed in auth.json",
    );
    assert.is(statSync(home.authPath).mode & 0o777, 0o600);
  });
});

test("folder trust: repo-local config in an untrusted cwd holds the session until y; y persists", async () => {
  const prepare = (home: GrokHomeFixture) => writeRepoLocalConfig(home.cwd, "mcp_json");
  await withSimHome({ prepare }, async (ctx) => {
    const { home, log } = ctx;
    const key = realpathSync(home.cwd);
    await withTuiIn(ctx, {}, async (tui) => {
      await heldAt(tui, log, TRUST_QUESTION);
      assert.match(await tui.capture(), key, "the question names the workspace");
      assert.match(await tui.capture(), "No, quit");
      await tui.pressKey("y");
      await tui.sessionReady();
      await waitFor("the active_sessions.json entry", () =>
        activeSessionIds(tui).includes(tui.sessionId),
      );
      const store = join(home.dir, "trusted_folders.toml");
      const text = readFileSync(store, "utf8");
      assert.match(text, `[folders.${JSON.stringify(key)}]\ntrusted = true\ndecided_at = `);
      assert.is(statSync(store).mode & 0o777, 0o600);
    });
    // The store now trusts the folder: a second TUI there is not asked.
    await withTuiIn(ctx, {}, async (again) => {
      await again.sessionReady();
      const decisions = traceEvents(log).filter(
        (e) => e.event === "tui_trust_decision" && e.pid === again.tuiPid,
      );
      assert.equal(
        decisions.map((d) => [d.outcome, d.why]),
        [["trusted", "store"]],
      );
    });
  });
});

test("folder trust: every kind of repo-local config asks; n quits with no session and no grant", async () => {
  const kinds: RepoLocalConfig[] = [
    "grok_config_mcp",
    "envrc",
    "claude_settings",
    "hooks",
    "agents",
    "plugins",
    "lsp",
  ];
  for (const kind of kinds) {
    const prepare = (home: GrokHomeFixture) => writeRepoLocalConfig(home.cwd, kind);
    await withSimTui({ prepare }, async ({ tui, home, log }) => {
      await heldAt(tui, log, TRUST_QUESTION);
      await tui.pressKey("n");
      await waitFor(`the TUI to quit (${kind})`, () => !pidAlive(tui.tuiPid));
      assert.not.ok(agentMethods(log).includes("session/new"));
      assert.not.ok(existsSync(join(home.dir, "trusted_folders.toml")), "n records nothing");
    });
  }
});

test("folder trust keys on the git root; a trusted ancestor, a clean cwd or GROK_FOLDER_TRUST=0 ask nothing", async () => {
  const repoOf = (home: GrokHomeFixture) => join(home.cwd, "repo");
  const subOf = (home: GrokHomeFixture) => join(repoOf(home), "pkg", "app");
  const prepare = (home: GrokHomeFixture) => {
    mkdirSync(join(repoOf(home), ".git"), { recursive: true });
    mkdirSync(subOf(home), { recursive: true });
    writeRepoLocalConfig(repoOf(home), "mcp_json");
  };
  await withSimHome({ prepare }, async (ctx) => {
    const { home, log } = ctx;
    const sub = subOf(home);
    await withTuiIn(ctx, { cwd: sub }, async (tui) => {
      await heldAt(tui, log, TRUST_QUESTION);
      assert.match(
        await tui.capture(),
        realpathSync(repoOf(home)),
        "the workspace is the repo root",
      );
    });
    for (const [env, why] of [
      [{ GROK_FOLDER_TRUST: "0" }, "feature_off"],
      [{}, "store"],
    ] as const) {
      if (why === "store") trustFolder(home.dir, home.cwd);
      await withTuiIn(ctx, { cwd: sub, env }, async (t) => {
        await t.sessionReady();
        const d = traceEvents(log).find(
          (e) => e.event === "tui_trust_decision" && e.pid === t.tuiPid,
        );
        assert.is(d?.why, why);
      });
    }
  });
});

test("consent: the settings server's notice holds the session; a records the answer for the account", async () => {
  const gate = JSON.stringify({
    id: "terms-2026",
    version: 3,
    title: "New terms",
    body: "Please read the new terms.",
    accept_label: "I agree",
  });
  const env = { GROK_SIM_CONSENT_GATE: gate };
  await withSimHome({}, async (ctx) => {
    const { home, log } = ctx;
    await withTuiIn(ctx, { env }, async (tui) => {
      await heldAt(tui, log, "Please read the new terms.");
      assert.match(await tui.capture(), "a  I agree");
      await tui.pressKey("a");
      await tui.sessionReady();
      const config = readFileSync(join(home.dir, "config.toml"), "utf8");
      assert.match(
        config,
        '[consent.answers.terms-2026]\naccount = "owner@example.com"\nversion = 3',
      );
    });
    await withTuiIn(ctx, { env }, async (again) => {
      await again.sessionReady();
      assert.not.match(await again.capture(), "Please read the new terms.");
    });
  });
});

test("the order is sign-in, consent, folder trust; the session comes after the last answer", async () => {
  const opts = {
    home: { signedIn: false },
    prepare: (home: GrokHomeFixture) => writeRepoLocalConfig(home.cwd, "envrc"),
    env: { GROK_SIM_CONSENT_GATE: JSON.stringify({ id: "n1", version: 1, body: "Notice body." }) },
  };
  await withSimTui(opts, async ({ tui, log }) => {
    await heldAt(tui, log, "Login with Grok");
    await tui.pressKey("l");
    await heldAt(tui, log, "Notice body.");
    assert.match(await tui.capture(), "a  Got it", "the default accept label");
    await tui.pressKey("a");
    await heldAt(tui, log, TRUST_QUESTION);
    await tui.pressKey("Enter");
    await tui.sessionReady();
    const shown = traceEvents(log)
      .filter((e) => e.event === "tui_gate")
      .map((e) => `${e.gate}:${e.state}`);
    assert.equal(shown, [
      "sign_in:shown",
      "sign_in:login",
      "consent:shown",
      "consent:accept",
      "folder_trust:shown",
      "folder_trust:yes",
    ]);
  });
});

test.run();
