// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
/**
 * `verify-proof record <seat-record.json>` spawned as the real CLI, against a live seat hired on
 * the simulators and against the same record after the owner quit the TUI and release stopped
 * the leader: exit 0 / 1 / 2, the human table and the `--json` document (`subject: "record"`).
 * Read-only: the leader's frame log shows no registration from the CLI, and the TUI and the
 * leader were not signalled.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { hire } from "../../lib/seat/hire.js";
import { quitTuiAsOwner } from "../../scripts/lib/owner.js";
import { pidAlive } from "../helpers/grok-sim.js";
import { type Stack, withStack } from "../seat/stack.js";
import { CheckJson } from "./fixtures/check-json.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CLI = join(ROOT, "lib", "cli", "verify-proof.ts");
const ESC = String.fromCharCode(0x1b);

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLI, ...args],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "" } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const Doc = v.object({
  ok: v.boolean(),
  subject: v.literal("record"),
  facts: v.looseObject({
    sessionId: v.string(),
    paneId: v.string(),
    tui: v.object({ pid: v.number(), alive: v.nullable(v.boolean()) }),
    leader: v.object({ pid: v.number(), alive: v.nullable(v.boolean()) }),
    release: v.nullable(v.looseObject({ tuiExitObserved: v.boolean() })),
  }),
  checks: v.array(CheckJson),
});

function registrations(stack: Stack): number {
  return stack.framesFromUs().filter((l) => JSON.stringify(l.frame).includes('"type":"register"'))
    .length;
}

test("record: live seat exit 0, recorded (TUI exited, leader stopped) exit 1, bad file exit 2", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options());
    const { record } = seat;

    const human = await run(["record", seat.recordPath]);
    assert.is(human.code, 0, human.stdout + human.stderr);
    assert.match(human.stdout, /\nrecord: PROVEN \(\d+ checks passed\)\n$/, human.stdout);
    for (const name of [
      "record.file_private",
      "pane.process_identity",
      "leader.identity",
      "socket.leader_listens",
      "leader.flock_holder",
      "active_sessions.pid",
    ]) {
      assert.match(human.stdout, new RegExp(`✓ ok +${name.replace(".", "\\.")}`));
    }
    assert.not.ok(human.stdout.includes(ESC), "no colour when stdout is not a terminal");
    assert.match(human.stderr, /re-verifying seat/);

    const live = v.parse(
      Doc,
      JSON.parse((await run(["record", seat.recordPath, "--json"])).stdout),
    );
    assert.is(live.ok, true);
    assert.is(live.facts.sessionId, seat.sessionId);
    assert.equal(live.facts.tui, { pid: record.pane.process.pid, alive: true });
    assert.equal(live.facts.leader, { pid: record.leader.pid, alive: true });
    assert.is(live.facts.release, null);
    assert.ok(live.checks.every((c) => c.ok));
    assert.is(registrations(stack), 1, "the CLI never registered with the leader");
    assert.ok(pidAlive(record.pane.process.pid) && pidAlive(record.leader.pid));

    quitTuiAsOwner(stack.herdr.tmuxSocket, record.pane.process.pid);
    await seat.tuiExit;
    const report = await seat.release();
    assert.is(report.leader.action, "stopped");

    const gone = await run(["record", seat.recordPath, "--json"]);
    assert.is(gone.code, 1);
    const doc = v.parse(Doc, JSON.parse(gone.stdout));
    assert.is(doc.ok, false);
    assert.equal(doc.facts.tui, { pid: record.pane.process.pid, alive: false });
    assert.equal(doc.facts.leader, { pid: record.leader.pid, alive: false });
    assert.is(doc.facts.release?.tuiExitObserved, true);
    const failed = doc.checks.filter((c) => !c.ok).map((c) => c.check);
    for (const name of ["pane.present", "socket.exists", "active_sessions.entry"]) {
      assert.ok(failed.includes(name), `${name} fails: ${failed.join()}`);
    }
    // Gone, or exited and not yet reaped by its new parent: either way not a live leader.
    assert.ok(failed.includes("leader.exists") || failed.includes("leader.alive"), failed.join());
    assert.ok(doc.checks.find((c) => c.check === "record.file_private")?.ok);
    const goneHuman = await run(["record", seat.recordPath]);
    assert.is(goneHuman.code, 1);
    assert.match(goneHuman.stdout, /\nrecord: NOT PROVEN \(\d+ of \d+ checks failed\)\n$/);
    assert.match(goneHuman.stdout, /✗ FAIL +pane\.present/);

    const bad = join(stack.runtimeBase, "not-a-record.json");
    writeFileSync(bad, JSON.stringify({ kind: "something" }));
    const invalid = await run(["record", bad, "--json"]);
    assert.is(invalid.code, 2);
    assert.is(JSON.parse(invalid.stdout).error.code, "RECORD_INVALID");
    const missing = await run(["record", join(stack.runtimeBase, "missing.json")]);
    assert.is(missing.code, 2);
    assert.match(missing.stderr, /RECORD_UNREADABLE/);
    assert.is((await run(["record"])).code, 2, "usage error without the path");
    assert.equal(await stack.herdr.injectionLog(), []);
  }));

test.run();
