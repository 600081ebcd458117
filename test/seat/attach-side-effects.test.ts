// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * What our attach does to the owner's session (issue 13 points 3 and 5), against the grok
 * simulator, which does what the real agent does on every attach: an attach without
 * `_meta.yoloMode` / `_meta.autoMode` falls back to the leader's config `permission_mode`
 * (switching it back on, never off), and every attach re-applies the session's model with a
 * `model_changed` to every subscriber.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import type { HireEvent } from "../../lib/seat/hire-events.js";
import { typeAsOwner } from "../../scripts/lib/owner.js";
import { get, RawClient } from "../sim/grok/tests/raw.js";
import { withStack } from "./stack.js";

/** Block (synchronously) until `cond` holds: a progress listener cannot await. */
function spinUntil(what: string, cond: () => boolean, ms: number): void {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    Atomics.wait(sleeper, 0, 0, 20);
  }
}

function factOf(e: HireEvent, key: string): unknown {
  if (e.type !== "proven" || typeof e.facts !== "object" || e.facts === null) return undefined;
  return Array.isArray(e.facts) ? undefined : e.facts[key];
}

test("our attach never re-arms the owner's always-approve (resume sends yoloMode/autoMode false)", () =>
  withStack(
    {
      home: { extraToml: '[ui]\npermission_mode = "always-approve"\n' },
    },
    async (stack) => {
      const options = stack.options();
      let tuiPid = 0;
      const seat = await hire({
        ...options,
        onProgress: (e) => {
          options.onProgress?.(e);
          if (e.step === "pane_proof") tuiPid = Number(factOf(e, "pid") ?? tuiPid);
          if (e.type !== "proven" || e.step !== "active_sessions") return;
          // The session exists (always-approve, from the config); the owner turns it off before
          // our attach, and the leader has seen it before the hire goes on.
          typeAsOwner(stack.herdr.tmuxSocket, tuiPid, "/always-approve");
          spinUntil(
            "the TUI's yolo_mode_changed at the leader",
            () => readFileSync(stack.logPath, "utf8").includes("yolo_mode_changed"),
            10_000,
          );
        },
      });
      const resume = stack
        .framesFromUs()
        .map((l) => JSON.stringify(l.frame))
        .find((f) => f.includes("session/resume"));
      assert.ok(resume?.includes('\\"yoloMode\\":false'), resume);
      assert.ok(resume?.includes('\\"autoMode\\":false'), resume);
      const observer = await RawClient.open(seat.record.socketPath);
      try {
        await observer.register("observer", {});
        const res = await observer.request("_x.ai/sessions/list", {});
        const rows = get(res, "result", "result", "sessions");
        const row = Array.isArray(rows)
          ? rows.find((r) => get(r, "sessionId") === seat.sessionId)
          : undefined;
        assert.is(get(row, "yolo"), false, "the owner's always-approve stays off after our attach");
      } finally {
        observer.destroy();
      }
      await seat.release();
    },
  ));

test.run();
