// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The login in auth.json as the real program treats it (xai-grok-shell auth/model.rs
 * `is_expired`, manager.rs proactive refresh, auth/oidc/refresh.rs; mvp_agent/acp_agent.rs
 * `initialize`; pager acp/mod.rs: the TUI builds a NON-refreshing AuthManager in leader mode):
 * the leader refreshes a token that is expired or within 5 minutes of expiry at once, and the
 * IdP rotates the refresh token, so a leader started on a COPY of someone's auth.json spends
 * the original's refresh token. A token that cannot be refreshed means the sign-in screen.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  AUTH_SCOPE,
  authJson,
  ensureGrokSim,
  type GrokHomeFixture,
  waitFor,
} from "../../../helpers/grok-sim.js";
import { traceEvents, withSimLeader, withSimTui } from "../../../helpers/grok-sim-clients.js";

function entry(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8"))[AUTH_SCOPE];
}

test.before(async () => {
  await ensureGrokSim();
});

for (const [label, validForMs] of [
  ["expired", -60_000],
  ["4 minutes from expiry", 4 * 60_000],
] as const) {
  test(`a leader on a copied login (${label}) refreshes at start and rotates the refresh token`, async () => {
    const owners = authJson({ validForMs, refreshToken: "owner-refresh-1" });
    const prepare = (home: GrokHomeFixture) =>
      writeFileSync(home.authPath, owners, { mode: 0o600 });
    await withSimLeader({ prepare }, async ({ home, log }) => {
      const refresh = await waitFor("the refresh", () =>
        traceEvents(log).find((e) => e.event === "auth_refresh"),
      );
      assert.is(refresh.spent_refresh_token, "owner-refresh-1");
      assert.is(refresh.role, "leader");
      const now = entry(home.authPath);
      assert.ok(typeof now.refresh_token === "string" && now.refresh_token !== "owner-refresh-1");
      assert.ok(Date.parse(String(now.expires_at)) > Date.now() + 30 * 60_000);
      assert.is(now.email, "owner@example.com", "the profile fields are kept");
      assert.is(statSync(home.authPath).mode & 0o777, 0o600);
    });
  });
}

test("a current login is not refreshed; the TUI never refreshes", async () => {
  let before = "";
  const prepare = (home: GrokHomeFixture) => {
    before = readFileSync(home.authPath, "utf8");
  };
  await withSimTui({ prepare }, async ({ tui, home, log }) => {
    await tui.sessionReady();
    assert.equal(
      traceEvents(log).filter((e) => e.event === "auth_refresh"),
      [],
    );
    assert.is(readFileSync(home.authPath, "utf8"), before);
  });
});

test("an expired login without a refresh token is no login: the sign-in screen", async () => {
  const stale = JSON.parse(authJson({ validForMs: -60_000 }));
  delete stale[AUTH_SCOPE].refresh_token;
  const prepare = (home: GrokHomeFixture) =>
    writeFileSync(home.authPath, JSON.stringify(stale), { mode: 0o600 });
  await withSimTui({ prepare }, async ({ tui }) => {
    await tui.waitForScreen("Login with Grok");
  });
});

test.run();
