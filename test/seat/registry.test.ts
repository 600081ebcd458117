// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * Worker admission and the resume policy on a live seat. The bridge admits a worker only to a
 * seat this controller hired, with the original pane proof; a saved record — in this process's
 * other registry, in another process, or after release — never adopts the leader
 * (ADOPTION_REFUSED), and refusing makes no connection at all (the leader's frame log shows one
 * registration: the hire's). Resume requires the original profile, UUID and conversation, a
 * confirmed prior exit of the original TUI, and for a worker the live original controller; a
 * refused resume launches nothing.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import { SeatRegistry } from "../../lib/seat/registry.js";
import { resume, resumeChecks } from "../../lib/seat/resume.js";
import { defaultSeatRegistry } from "../../lib/seat/seat.js";
import { readSeatRecord } from "../../lib/seat/seat-record.js";
import { quitTuiAsOwner } from "../../scripts/lib/owner.js";
import { refusalOf, type Stack, withStack } from "./stack.js";

const ROOT = join(import.meta.dirname, "..", "..");

function registrations(stack: Stack): number {
  return stack.framesFromUs().filter((l) => JSON.stringify(l.frame).includes('"type":"register"'))
    .length;
}

function failed(checks: readonly { check: string; ok: boolean }[]): string[] {
  return checks.filter((c) => !c.ok).map((c) => c.check);
}

test("the bridge admits only the controller's own seat with its original pane proof", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options({ conversationId: "conv-b" }));
    const { record } = seat;
    const claim = {
      leader: { pid: record.leader.pid, identity: record.leader.identity },
      pane: record.pane,
    };
    assert.is(defaultSeatRegistry.admit(claim), seat, "the original proof is admitted");

    const rebound = { ...record.pane, pane: { ...record.pane.pane, terminalId: "t-other" } };
    const tampered = await refusalOf(
      Promise.resolve().then(() => defaultSeatRegistry.admit({ ...claim, pane: rebound })),
    );
    assert.is(tampered.code, "ADOPTION_REFUSED");
    assert.is(tampered.check, "adopt.pane_proof");

    // A record read back from disk by a registry that did not hire it.
    const saved = readSeatRecord(seat.recordPath).record;
    const other = await refusalOf(Promise.resolve().then(() => new SeatRegistry().admit(saved)));
    assert.is(other.code, "ADOPTION_REFUSED");
    assert.is(other.check, "adopt.hired_here");

    // The same record in another process (a worker with a copy of the file).
    const script = [
      'import { defaultSeatRegistry } from "./lib/seat/seat.ts";',
      'import { readSeatRecord } from "./lib/seat/seat-record.ts";',
      "try { defaultSeatRegistry.admit(readSeatRecord(process.argv[1]).record); console.log('ADMITTED'); }",
      "catch (e) { console.log(e.code); }",
    ].join("\n");
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script, seat.recordPath],
      { cwd: ROOT, encoding: "utf8" },
    );
    assert.is(child.stdout.trim(), "ADOPTION_REFUSED", child.stderr);

    // A worker cannot resume while the original TUI runs; neither can the controller.
    const worker = resumeChecks({
      record: saved,
      grokHome: stack.home.dir,
      sessionId: saved.sessionId,
      conversationId: "conv-b",
      requester: "worker",
    });
    assert.equal(failed(worker), ["resume.prior_exit", "resume.tui_gone"]);

    quitTuiAsOwner(stack.herdr.tmuxSocket, record.pane.process.pid);
    await seat.tuiExit;
    await seat.release();
    const released = await refusalOf(
      Promise.resolve().then(() => defaultSeatRegistry.admit(claim)),
    );
    assert.is(released.code, "ADOPTION_REFUSED", "a released seat admits no worker");

    const after = readSeatRecord(seat.recordPath).record;
    const base = {
      record: after,
      grokHome: stack.home.dir,
      sessionId: after.sessionId,
      conversationId: "conv-b",
    };
    assert.equal(
      failed(resumeChecks({ ...base, requester: "controller" })),
      [],
      "the controller may resume",
    );
    assert.equal(
      failed(resumeChecks({ ...base, requester: "worker" })),
      ["resume.controller_live"],
      "a worker without the live original controller may not",
    );
    assert.equal(
      failed(resumeChecks({ ...base, conversationId: "conv-x", requester: "controller" })),
      ["resume.conversation_id"],
    );
    assert.equal(
      failed(resumeChecks({ ...base, grokHome: stack.runtimeBase, requester: "controller" })),
      ["resume.profile"],
    );
    assert.equal(
      failed(
        resumeChecks({
          ...base,
          sessionId: "00000000-0000-4000-8000-000000000000",
          requester: "controller",
        }),
      ),
      ["resume.session_id"],
    );

    // A refused resume launches nothing.
    const panesBefore = (await stackPanes(stack)).length;
    const refused = await refusalOf(
      resume({ ...stack.options(), ...base, conversationId: "conv-x", requester: "controller" }),
    );
    assert.is(refused.code, "RESUME_REFUSED");
    assert.is(refused.step, "resume");
    assert.is(refused.check, "resume.conversation_id");
    assert.is((await stackPanes(stack)).length, panesBefore, "no pane was launched");

    assert.is(registrations(stack), 1, "only the hire ever registered with a leader");
    assert.is(stack.promptsFromUs(), 0);
    assert.equal(await stack.herdr.injectionLog(), []);
  }));

async function stackPanes(stack: Stack): Promise<string[]> {
  const r = spawnSync(
    "tmux",
    ["-L", stack.herdr.tmuxSocket, "list-panes", "-a", "-F", "#{pane_id}"],
    {
      encoding: "utf8",
    },
  );
  return r.stdout.split("\n").filter((l) => l !== "");
}

test.run();
