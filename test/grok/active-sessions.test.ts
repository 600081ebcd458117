// @platform linux: uses the grok simulator, not yet verified on macOS
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  checkActiveSession,
  parseActiveSessions,
  readActiveSessions,
} from "../../lib/grok/active-sessions.js";

const SID = "0198b0c2-7d1e-7cc0-9a51-3f2e8d9b1c44";
const expected = { sessionId: SID, tuiPid: 41234, tuiCwd: "/home/u/proj" };

let dir = "";
test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), "grok-seat-active-"));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

function write(content: string): void {
  writeFileSync(join(dir, "active_sessions.json"), content);
}

// Pretty-printed as serde_json::to_string_pretty writes it (§8).
function pretty(entries: object[]): string {
  return JSON.stringify(entries, null, 2);
}

const ENTRY = {
  session_id: SID,
  pid: 41234,
  cwd: "/home/u/proj",
  opened_at: "2026-08-19T19:55:30.123456789Z",
};

function verdict(checks: { check: string; ok: boolean }[]): Record<string, boolean> {
  return Object.fromEntries(checks.map((c) => [c.check, c.ok]));
}

test("our entry with the TUI pid and cwd passes every check", async () => {
  write(pretty([{ ...ENTRY, session_id: "other", pid: 1 }, ENTRY]));
  const read = await readActiveSessions(dir);
  assert.is(read.status, "ok");
  assert.equal(verdict(checkActiveSession(read, expected)), {
    "active_sessions.readable": true,
    "active_sessions.entry": true,
    "active_sessions.pid": true,
    "active_sessions.cwd": true,
  });
  // Uuid is stored lowercase; a caller's uppercase form still finds it.
  const upper = checkActiveSession(read, { ...expected, sessionId: SID.toUpperCase() });
  assert.ok(upper.every((c) => c.ok));
});

test("the leader's pid instead of the TUI's fails active_sessions.pid", async () => {
  write(pretty([{ ...ENTRY, pid: 41300 }]));
  const checks = checkActiveSession(await readActiveSessions(dir), expected);
  assert.equal(verdict(checks), {
    "active_sessions.readable": true,
    "active_sessions.entry": true,
    "active_sessions.pid": false,
    "active_sessions.cwd": true,
  });
  const pid = checks.find((c) => c.check === "active_sessions.pid");
  assert.is(pid?.expected, 41234);
  assert.is(pid?.received, 41300);
});

test("another cwd fails active_sessions.cwd; no entry or two entries fail active_sessions.entry", async () => {
  write(pretty([{ ...ENTRY, cwd: "/elsewhere" }]));
  assert.is(
    verdict(checkActiveSession(await readActiveSessions(dir), expected))["active_sessions.cwd"],
    false,
  );
  write(pretty([{ ...ENTRY, session_id: "someone-else" }]));
  const none = checkActiveSession(await readActiveSessions(dir), expected);
  assert.equal(
    none.filter((c) => !c.ok).map((c) => c.check),
    ["active_sessions.entry", "active_sessions.pid", "active_sessions.cwd"],
  );
  write(pretty([ENTRY, ENTRY]));
  const two = checkActiveSession(await readActiveSessions(dir), expected);
  assert.is(two.find((c) => c.check === "active_sessions.entry")?.received, 2);
});

test("a leading byte order mark is corrupt, as for Grok's serde_json reader", async () => {
  // serde_json::from_slice refuses a BOM (`read_data_file`); TextDecoder would drop it silently.
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const path = join(dir, "active_sessions.json");
  writeFileSync(path, Buffer.concat([bom, Buffer.from(pretty([ENTRY]))]));
  const read = await readActiveSessions(dir);
  assert.is(read.status, "corrupt");
  assert.is(parseActiveSessions(path, Buffer.from(pretty([ENTRY]))).status, "ok");
  const checks = verdict(checkActiveSession(read, expected));
  assert.is(checks["active_sessions.readable"], false);
});

test("missing, empty, corrupt, too large and symlinked files are named failures", async () => {
  const status = async () => (await readActiveSessions(dir, { maxBytes: 4096 })).status;
  assert.is(await status(), "missing");
  write("");
  assert.is(await status(), "ok"); // grok reads an empty file as []
  assert.is(
    verdict(checkActiveSession(await readActiveSessions(dir), expected))["active_sessions.entry"],
    false,
  );
  for (const bad of [
    "{",
    "{}",
    '[{"session_id":1}]',
    pretty([{ ...ENTRY, opened_at: "yesterday" }]),
    "\xff",
  ]) {
    write(bad);
    assert.is(await status(), "corrupt", bad);
  }
  writeFileSync(join(dir, "active_sessions.json"), Buffer.from([0x5b, 0xff, 0x5d]));
  assert.is(await status(), "corrupt");
  write(pretty(Array.from({ length: 100 }, () => ENTRY)));
  assert.is(await status(), "too_large");
  rmSync(join(dir, "active_sessions.json"));
  writeFileSync(join(dir, "real.json"), pretty([ENTRY]));
  symlinkSync(join(dir, "real.json"), join(dir, "active_sessions.json"));
  const sym = await readActiveSessions(dir);
  assert.is(sym.status, "unreadable");
  const checks = checkActiveSession(sym, expected);
  assert.is(checks.length, 4);
  assert.ok(checks.every((c) => !c.ok));
  assert.is(checks[0]?.check, "active_sessions.readable");
});

// Against the grok simulator: the TUI writes its own entry after session/new (§8).
async function simEvidence(env: Record<string, string>) {
  const { grokHomeFixture, startGrokTui, waitFor } = await import("../helpers/grok-sim.js");
  const { processFacts } = await import("../../lib/kernel/process.js");
  const home = grokHomeFixture();
  const tui = await startGrokTui({ grokHome: home.dir, cwd: home.cwd, env });
  try {
    const leaderPid = await tui.leaderPid();
    const expectedSession = {
      sessionId: tui.sessionId,
      tuiPid: tui.tuiPid,
      tuiCwd: processFacts(tui.tuiPid).cwd ?? "",
    };
    // The status row says "session ready" once session/new succeeded and the entry was written.
    await tui.waitForScreen("session ready");
    const checks = await waitFor("active_sessions.json to settle", async () => {
      const c = checkActiveSession(await readActiveSessions(home.dir), expectedSession);
      return env.GROK_SIM_SKIP_ACTIVE_SESSIONS ||
        env.GROK_SIM_CORRUPT_ACTIVE_SESSIONS ||
        c.every((x) => x.ok)
        ? c
        : undefined;
    });
    return { checks, leaderPid, tuiPid: tui.tuiPid };
  } finally {
    await tui.stop();
    home.remove();
  }
}

test("simulator: the TUI's entry names the TUI pid and cwd (never the leader's)", async () => {
  const { checks, leaderPid, tuiPid } = await simEvidence({});
  assert.ok(checks.every((c) => c.ok));
  assert.is(checks.find((c) => c.check === "active_sessions.pid")?.received, tuiPid);
  assert.is.not(tuiPid, leaderPid);
});

test("simulator: a corrupt file (GROK_SIM_CORRUPT_ACTIVE_SESSIONS) fails active_sessions.readable", async () => {
  const { checks } = await simEvidence({ GROK_SIM_CORRUPT_ACTIVE_SESSIONS: "1" });
  assert.is(checks.find((c) => c.check === "active_sessions.readable")?.ok, false);
});

test("simulator: no entry (GROK_SIM_SKIP_ACTIVE_SESSIONS) fails active_sessions.entry", async () => {
  const { checks } = await simEvidence({ GROK_SIM_SKIP_ACTIVE_SESSIONS: "1" });
  assert.is(checks.find((c) => c.check === "active_sessions.entry")?.ok, false);
});

test.run();
