// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * The owner's `/minimal` (or `/fullscreen`) re-execs the TUI in place (issue 13 point 5; the grok
 * simulator does what `pager/src/app/screen_mode_relaunch.rs` does: same pid, same executable,
 * argv rebuilt with `--resume <id>` and the mode flag, a new connection to the same leader, a
 * replaying `session/load`, the active_sessions.json entry registered again). That is not a TUI
 * exit: the seat's exit watch stays quiet, the seat keeps delivering, and a re-verification of
 * its record afterwards passes: the pane proof binds the process (identity, birth, executable,
 * cwd, uid, terminal) and the session, never the argv (docs/design/decisions.md §12.5).
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import { verifyRecord } from "../../lib/seat/verify-seat-record.js";
import { typeAsOwner } from "../../scripts/lib/owner.js";
import { waitFor } from "../helpers/grok-sim.js";
import { withStack } from "./stack.js";

function cmdline(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8")
    .split("\0")
    .filter((a) => a !== "");
}

test("/minimal re-execs the TUI in place: no exit reported, the seat delivers, the record re-verifies", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options());
    const { record } = seat;
    const pid = record.pane.process.pid;
    let exitReported = false;
    void seat.tuiExit.then((v) => {
      exitReported = v.exited;
    });
    const entryBefore = JSON.stringify(record.activeSession);
    typeAsOwner(stack.herdr.tmuxSocket, pid, "/minimal");
    await waitFor(
      "the re-exec'd TUI with --minimal",
      () => (cmdline(pid).includes("--minimal") ? true : undefined),
      15_000,
    );
    assert.ok(cmdline(pid).includes("--resume"), cmdline(pid).join(" "));
    // The new image registers its session again (a new opened_at for the same pid).
    await waitFor(
      "the TUI's active_sessions.json entry again",
      () => {
        try {
          const list: { session_id: string; pid: number; opened_at: string }[] = JSON.parse(
            readFileSync(`${record.profile.grokHome}/active_sessions.json`, "utf8"),
          );
          const e = list.find((x) => x.session_id === seat.sessionId);
          return e !== undefined && e.pid === pid && JSON.stringify(e) !== entryBefore
            ? true
            : undefined;
        } catch {
          return undefined;
        }
      },
      15_000,
    );
    const d = await seat.deliver("after the owner's /minimal");
    assert.is((await d.completed).state, "completed");
    assert.not.ok(exitReported, "the exit watch did not report the re-exec");
    assert.ok(seat.live);
    const v = await verifyRecord(seat.record);
    const failed = v.checks.filter((c) => !c.ok);
    assert.equal(failed, [], JSON.stringify(failed));
    assert.is(v.tuiAlive, true);
    for (const name of [
      "pane.process_identity",
      "pane.process_executable",
      "pane.native_session",
    ]) {
      assert.ok(
        v.checks.some((c) => c.check === name && c.ok),
        `${name} re-verified`,
      );
    }
    await seat.release();
  }));

test.run();
