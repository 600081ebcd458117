// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * The owner's startup screens hold the TUI's session (issue 13 point 2). The grok simulator shows
 * them as the real TUI does (sign-in when the profile has no login; folder trust for a cwd with
 * repo-local configuration that the profile's trust store does not trust), answered by keys in
 * the pane. The seat predicts them in `preflight`, reports a `waiting` owner action on
 * `active_sessions`, waits `timeouts.ownerMs`, and never answers: the test plays the owner.
 */

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import type { HireEvent } from "../../lib/seat/hire-events.js";
import { capturePane, tmuxPaneOf } from "../../scripts/lib/owner.js";
import { waitFor, writeRepoLocalConfig } from "../helpers/grok-sim.js";
import {
  onlyWait,
  refusalOf,
  type Stack,
  startStack,
  temporaryProfile,
  withStack,
} from "./stack.js";

function facts(e: HireEvent | undefined): Record<string, unknown> {
  if (e === undefined || e.type !== "proven") return {};
  const f = e.facts;
  return typeof f === "object" && f !== null && !Array.isArray(f) ? { ...f } : {};
}

function proven(stack: Stack, step: string): HireEvent | undefined {
  return stack.events.find((e) => e.type === "proven" && e.step === step);
}

/** The owner, at the keyboard: once the pane shows `screen`, press `key` (never the library). */
function ownerAnswers(
  stack: Stack,
  tuiPid: () => number,
  screen: RegExp,
  key: string,
): Promise<void> {
  return (async () => {
    await waitFor(
      `the pane to show ${screen}`,
      () => screen.test(capturePane(stack.herdr.tmuxSocket, tuiPid())) || undefined,
      20_000,
    );
    const pane = tmuxPaneOf(stack.herdr.tmuxSocket, tuiPid());
    if (pane === null) throw new Error("no tmux pane for the TUI");
    execFileSync("tmux", ["-L", stack.herdr.tmuxSocket, "send-keys", "-t", pane, key]);
  })();
}

/** Hire options whose listener starts `onWait` at the first owner-action wait. */
function withOwner(
  stack: Stack,
  onWait: (tuiPid: () => number) => Promise<void>,
): { options: ReturnType<Stack["options"]>; answered: () => Promise<void> } {
  const options = stack.options();
  let pid = 0;
  let answered: Promise<void> = Promise.resolve();
  return {
    answered: () => answered,
    options: {
      ...options,
      onProgress: (e) => {
        options.onProgress?.(e);
        if (e.type === "proven" && e.step === "pane_proof") pid = Number(facts(e).pid);
        if (e.type === "waiting" && stack.events.filter((x) => x.type === "waiting").length === 1) {
          answered = onWait(() => pid);
        }
      },
    },
  };
}

test("a repo with .mcp.json: preflight predicts folder trust, the seat waits for the owner's answer", () =>
  withStack(async (stack) => {
    writeRepoLocalConfig(stack.cwd, "mcp_json");
    const { options, answered } = withOwner(stack, (pid) =>
      ownerAnswers(stack, pid, /trust the contents of this directory/i, "y"),
    );
    const seat = await hire(options);
    await answered();
    const gates = facts(proven(stack, "preflight")).ownerGates;
    assert.equal((gates as { expected: unknown }).expected, ["folder_trust"]);
    assert.match((proven(stack, "preflight") as { summary: string }).summary, "folder trust for");
    const w = onlyWait(stack);
    assert.is(w.step, "active_sessions");
    assert.is(w.kind, "owner_action");
    assert.is(w.gate, "folder_trust");
    assert.is(w.paneId, seat.paneId);
    assert.match(w.ownerStep, seat.paneId);
    assert.match(w.ownerStep, stack.cwd);
    assert.is(w.timeoutMs, 600_000, "the owner's default bound is ten minutes");
    assert.equal(
      (facts(proven(stack, "active_sessions")).ownerAction as { gate: string }).gate,
      "folder_trust",
    );
    // The owner's answer, recorded by the TUI itself in the owner's trust store.
    assert.match(readFileSync(join(stack.home.dir, "trusted_folders.toml"), "utf8"), stack.cwd);
    await seat.release();
  }));

test("the owner never answers: OWNER_GATE_TIMEOUT names the gate after ownerMs, before ACP", () =>
  withStack(async (stack) => {
    writeRepoLocalConfig(stack.cwd, "envrc");
    const options = stack.options();
    const r = await refusalOf(
      hire({ ...options, timeouts: { ...options.timeouts, ownerMs: 700 } }),
    );
    assert.is(r.step, "active_sessions");
    assert.is(r.code, "OWNER_GATE_TIMEOUT");
    assert.is(r.check, "active_sessions.owner_gate");
    assert.is(r.context.gate, "folder_trust");
    assert.match(r.ownerNextStep, String(r.context.paneId));
    const refused = stack.events.find((e) => e.type === "refused");
    assert.is(refused?.type === "refused" && refused.code, "OWNER_GATE_TIMEOUT");
    assert.not.ok(existsSync(join(stack.home.dir, "trusted_folders.toml")), "nothing answered");
    assert.is(
      stack.framesFromUs().filter((l) => JSON.stringify(l.frame).includes("session/resume")).length,
      0,
    );
  }));

test("the owner declines (n): the TUI exits during the gate and the hire refuses TUI_EXITED", () =>
  withStack(async (stack) => {
    writeRepoLocalConfig(stack.cwd, "mcp_json");
    const { options, answered } = withOwner(stack, (pid) =>
      ownerAnswers(stack, pid, /trust the contents of this directory/i, "n"),
    );
    const r = await refusalOf(hire(options));
    await answered();
    assert.is(r.step, "active_sessions");
    assert.is(r.code, "TUI_EXITED");
    assert.is(r.check, "active_sessions.tui_alive");
  }));

test("a profile without a login: sign-in is predicted and waited for; the owner signs in", () =>
  withStack({ home: { signedIn: false } }, async (stack) => {
    const { options, answered } = withOwner(stack, (pid) =>
      ownerAnswers(stack, pid, /Login with Grok/i, "l"),
    );
    const seat = await hire(options);
    await answered();
    const gates = facts(proven(stack, "preflight")).ownerGates as { expected: unknown };
    assert.equal(gates.expected, ["sign_in"]);
    const w = stack.events.find((e) => e.type === "waiting");
    assert.is(w?.type === "waiting" && w.gate, "sign_in");
    await seat.release();
  }));

test("a terms notice nothing predicted: after activeSessionMs the seat waits (gate unknown) and the owner accepts", async () => {
  // The settings server arms consent for the account (app/consent.rs consent_verdict); nothing on
  // disk says so, so preflight expects no screen and the seat suspects one only when the entry is
  // late, then waits the owner's bound instead of refusing ACTIVE_SESSION_UNPROVEN.
  const notice = { id: "terms-seat", version: 3, body: "We updated our terms." };
  const stack = await startStack({ env: { GROK_SIM_CONSENT_GATE: JSON.stringify(notice) } });
  try {
    const { options, answered } = withOwner(stack, (pid) =>
      ownerAnswers(stack, pid, /Updates to our terms/i, "a"),
    );
    const seat = await hire({
      ...options,
      timeouts: { ...options.timeouts, activeSessionMs: 2_000 },
    });
    await answered();
    const gates = facts(proven(stack, "preflight")).ownerGates as {
      expected: unknown;
      consent: unknown;
    };
    assert.equal(gates.expected, []);
    assert.is(gates.consent, "possible");
    const w = onlyWait(stack);
    assert.is(w.gate, "unknown", "the screen was suspected, not named");
    assert.ok(w.elapsedMs >= 2_000, "suspected only after the bound");
    assert.match(w.ownerStep, "terms notice");
    // The owner's answer, recorded by the TUI in the profile's config.toml.
    assert.match(
      readFileSync(join(stack.home.dir, "config.toml"), "utf8"),
      "[consent.answers.terms-seat]",
    );
    assert.ok(seat.live);
    await seat.release();
  } finally {
    await stack.cleanup();
  }
});

test("a temporary profile whose owner answered a notice the server still sends: consent is predicted and waited for", async () => {
  // The owner's profile records the answer, not yet acknowledged by the server (acked false), so
  // the server still sends the notice; the temporary profile has no answer and is asked again.
  const notice = { id: "terms-seat", version: 3, body: "We updated our terms." };
  const stack = await startStack({
    env: { GROK_SIM_CONSENT_GATE: JSON.stringify(notice) },
    home: {
      extraToml: '[consent.answers.terms-seat]\nversion = 3\naccount = "owner@example.com"\n',
    },
  });
  try {
    const { options, answered } = withOwner(stack, (pid) =>
      ownerAnswers(stack, pid, /Updates to our terms/i, "a"),
    );
    const seat = await hire({
      ...options,
      profile: temporaryProfile(stack),
    });
    await answered();
    const gates = facts(proven(stack, "preflight")).ownerGates as {
      expected: unknown;
      consent: unknown;
    };
    assert.equal(gates.expected, ["consent"]);
    assert.is(gates.consent, "expected");
    const w = stack.events.find((e) => e.type === "waiting");
    assert.ok(w?.type === "waiting" && w.gate === "consent", "the screen was named");
    assert.match(w?.type === "waiting" ? w.ownerStep : "", "Accept Grok's notice in pane");
    assert.equal(
      (facts(proven(stack, "active_sessions")).ownerAction as { gate: string }).gate,
      "consent",
    );
    await seat.release();
  } finally {
    await stack.cleanup();
  }
});

test("a temporary profile pre-seeded with the owner's trusted folders: no question, no wait", () =>
  withStack(async (stack) => {
    writeRepoLocalConfig(stack.cwd, "mcp_json");
    const options = stack.options({
      profile: { kind: "temporary", loginFile: stack.home.authPath, trustedFolders: [stack.cwd] },
    });
    // A question would refuse within seconds instead of waiting the owner's ten minutes.
    const seat = await hire({ ...options, timeouts: { ...options.timeouts, ownerMs: 3_000 } });
    const gates = facts(proven(stack, "preflight")).ownerGates as {
      expected: unknown;
      folderTrust: { why: string };
    };
    assert.equal(gates.expected, []);
    assert.is(gates.folderTrust.why, "store");
    assert.is(stack.events.filter((e) => e.type === "waiting").length, 0);
    const store = readFileSync(join(seat.record.profile.grokHome, "trusted_folders.toml"), "utf8");
    assert.match(store, `[folders.${JSON.stringify(stack.cwd)}]`);
    // Released, the seat's temporary profile goes, the copied login first.
    const copied = seat.record.profile.loginFile?.copiedTo ?? "";
    assert.ok(existsSync(copied));
    const report = await seat.release();
    assert.equal(report.profileRemoved, [copied, seat.record.profile.grokHome]);
    assert.not.ok(existsSync(copied), "the copied login is gone");
    assert.not.ok(existsSync(seat.record.profile.grokHome), "the temporary profile is gone");
    assert.ok(existsSync(stack.home.authPath), "the owner's login is untouched");
  }));

test("a hire refused after launch removes its temporary profile and the copied login", () =>
  withStack(async (stack) => {
    writeRepoLocalConfig(stack.cwd, "envrc");
    const options = stack.options({
      profile: temporaryProfile(stack),
    });
    const r = await refusalOf(
      hire({ ...options, timeouts: { ...options.timeouts, ownerMs: 500 } }),
    );
    assert.is(r.code, "OWNER_GATE_TIMEOUT");
    const runtimeDir = String(r.context.runtimeDir);
    assert.ok(existsSync(join(runtimeDir, "leader.sock")), "the TUI's runtime dir stays");
    assert.not.ok(existsSync(join(runtimeDir, "grok-home", "auth.json")), "the copy is gone");
    assert.not.ok(existsSync(join(runtimeDir, "grok-home")), "the temporary profile is gone");
    assert.ok(existsSync(stack.home.authPath), "the owner's login is untouched");
  }));

test.run();
