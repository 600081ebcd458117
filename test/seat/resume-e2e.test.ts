// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * Resume end to end against the Herdr and grok simulators (ADR 0224 (docs/design/adr-0224.md): "resume requires the
 * original profile, UUID and conversation plus a confirmed prior exit"; issue 8, seat policy).
 *
 * A seat is hired and a prompt delivered to `completed`; the owner (this test, through tmux, as
 * a person at the keyboard: the library never types) quits the TUI; release stops the proven
 * leader after the observed exit. `resume()` with the original profile, UUID and conversation
 * then opens a new visible pane whose TUI runs `grok --resume <uuid>` and loads the same session,
 * and every proof is made again for the new TUI and the new leader; delivery works again, and the
 * earlier prompt stays delivered once. Refusals (RESUME_REFUSED, nothing launched): another
 * profile, UUID or conversation, no confirmed prior exit, and the original TUI still alive (even
 * with a record that claims its exit). Oracles: the kernel (/proc), the Herdr simulator's pane
 * list, the grok simulator's frame log and session files, the journals on disk.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeJournal, JOURNAL_FILE } from "../../lib/delivery/index.js";
import { GrokSeatError } from "../../lib/errors.js";
import { HerdrClient } from "../../lib/herdr/client.js";
import { hire } from "../../lib/seat/hire.js";
import { HIRE_STEPS } from "../../lib/seat/hire-events.js";
import { type ResumeOptions, resume, resumeChecks } from "../../lib/seat/resume.js";
import { readSeatRecord, type SeatRecord } from "../../lib/seat/seat-record.js";
import { capturePane, quitTuiAsOwner, tmuxPaneOf } from "../../scripts/lib/owner.js";
import { pidAlive, waitFor } from "../helpers/grok-sim.js";
import { refusalOf, type Stack, startStack, waitDead, withStack } from "./stack.js";

const linux = process.platform === "linux";

function cmdline(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8")
    .split("\0")
    .filter((s) => s !== "");
}

/** Everything a resume could have started: Herdr panes, simulator processes, runtime dirs, frames. */
async function world(stack: Stack): Promise<unknown> {
  const herdr = new HerdrClient({ socketPath: stack.herdr.socketPath });
  const panes = (await herdr.request("pane.list", {})).panes.map((p) => p.pane_id).sort();
  return {
    panes,
    sims: stack.simPids().sort((a, b) => a - b),
    runtimeDirs: readdirSync(stack.runtimeBase).sort(),
    framesFromUs: stack.framesFromUs().length,
    prompts: stack.log().filter((l) => l.event === "prompt").length,
  };
}

/** A seat journal's records, read from disk (no admission, no write). */
function journalRecords(runtimeDir: string): { t: string; id: string | null }[] {
  const decoded = decodeJournal(readFileSync(join(runtimeDir, JOURNAL_FILE)));
  assert.is(decoded.tail, null, "the journal decodes to its end");
  return decoded.lines.map(({ record }) => ({
    t: record.t,
    id: "id" in record ? record.id : null,
  }));
}

/** The agent's durable turn_completed records of the session (updates.jsonl). */
function turnsCompleted(stack: Stack, sessionId: string): string[] {
  const root = join(stack.home.dir, "sessions");
  const out: string[] = [];
  for (const cwd of readdirSync(root)) {
    let text = "";
    try {
      text = readFileSync(join(root, cwd, sessionId, "updates.jsonl"), "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      if (!line.includes('"turn_completed"')) continue;
      const m = /"prompt_id":"([^"]+)"/.exec(line);
      if (m?.[1] !== undefined) out.push(m[1]);
    }
  }
  return out;
}

function resumeOptions(
  stack: Stack,
  record: SeatRecord,
  over: Partial<Pick<ResumeOptions, "grokHome" | "sessionId" | "conversationId">> = {},
): ResumeOptions {
  return {
    ...stack.options(),
    record,
    grokHome: stack.home.dir,
    sessionId: record.sessionId,
    conversationId: record.conversationId ?? "",
    ...over,
  };
}

async function refusedWithNothingLaunched(
  stack: Stack,
  options: ResumeOptions,
  check: string,
): Promise<void> {
  const before = await world(stack);
  const refusal = await refusalOf(resume(options));
  assert.is(refusal.code, "RESUME_REFUSED");
  assert.is(refusal.step, "resume");
  assert.is(refusal.check, check);
  assert.equal(await world(stack), before, `${check}: nothing was launched or sent`);
}

test("owner quits, release stops the leader, resume opens a new pane on the same session and proves it anew", async () => {
  const stack = await startStack();
  const otherHome = mkdtempSync(join(tmpdir(), "seat-other-home-"));
  try {
    const seat = await hire(stack.options({ conversationId: "conv-resume" }));
    const first = seat.record;
    const d1 = await seat.deliver("Before the resume.");
    assert.is((await d1.completed).state, "completed");

    // The owner quits the TUI; its exit is observed on the bound identity.
    quitTuiAsOwner(stack.herdr.tmuxSocket, first.pane.process.pid);
    assert.is((await seat.tuiExit).exited, true);
    // Not released yet: no confirmed prior exit is recorded, so no resume (the TUI is gone).
    await refusedWithNothingLaunched(stack, resumeOptions(stack, seat.record), "resume.prior_exit");

    const report = await seat.release();
    assert.is(report.leader.action, "stopped");
    await waitDead(first.leader.pid);
    const released = readSeatRecord(seat.recordPath).record;
    assert.is(released.release?.tuiExitObserved, true);

    // Only the original profile, UUID and conversation resume it.
    await refusedWithNothingLaunched(
      stack,
      resumeOptions(stack, released, { grokHome: otherHome }),
      "resume.profile",
    );
    await refusedWithNothingLaunched(
      stack,
      resumeOptions(stack, released, { sessionId: "00000000-0000-4000-8000-000000000000" }),
      "resume.session_id",
    );
    await refusedWithNothingLaunched(
      stack,
      resumeOptions(stack, released, { conversationId: "conv-other" }),
      "resume.conversation_id",
    );
    assert.equal(
      resumeChecks(resumeOptions(stack, released)).filter((c) => !c.ok),
      [],
      "the original profile, UUID and conversation after a confirmed exit pass every check",
    );

    const herdr = new HerdrClient({ socketPath: stack.herdr.socketPath });
    const panesBefore = (await herdr.request("pane.list", {})).panes.map((p) => p.pane_id);
    stack.events.length = 0;
    const resumed = await resume(resumeOptions(stack, released));
    const r = resumed.record;

    // Every hire step proven again, in order, in resume mode.
    assert.equal(
      stack.events.filter((e) => e.type === "proven").map((e) => e.step),
      HIRE_STEPS.filter((s) => !["model", "persona", "mcp_bank", "skills"].includes(s)),
    );
    assert.is(stack.events.filter((e) => e.type === "refused").length, 0);
    const sessionStep = stack.events.find((e) => e.type === "proven" && e.step === "session_id");
    assert.equal(sessionStep?.type === "proven" ? sessionStep.facts : null, {
      sessionId: first.sessionId,
      mode: "resume",
    });

    // The same session, conversation, cwd and profile...
    assert.is(r.sessionId, first.sessionId);
    assert.is(r.conversationId, "conv-resume");
    assert.is(r.cwd, first.cwd);
    assert.is(r.profile.grokHome, first.profile.grokHome);
    // ...in a new visible pane, a new TUI (argv --resume) and a new leader, its child.
    assert.ok(!panesBefore.includes(r.pane.pane.paneId), "a new Herdr pane");
    assert.ok(
      (await herdr.request("pane.list", {})).panes.some((p) => p.pane_id === r.pane.pane.paneId),
    );
    assert.ok(tmuxPaneOf(stack.herdr.tmuxSocket, r.pane.process.pid) !== null, "visible in tmux");
    assert.is.not(r.pane.process.pid, first.pane.process.pid);
    assert.is.not(r.pane.process.identity.value, first.pane.process.identity.value);
    assert.is.not(r.leader.pid, first.leader.pid);
    assert.is.not(r.leader.identity.value, first.leader.identity.value);
    assert.is(r.leader.ppid, r.pane.process.pid, "the new leader is the new TUI's child");
    assert.is.not(r.runtimeDir, first.runtimeDir);
    assert.is.not(r.socket.inode, first.socket.inode);
    assert.is(r.activeSession.pid, r.pane.process.pid, "active_sessions.json names the new TUI");
    assert.is(r.activeSession.session_id, first.sessionId);
    if (linux) {
      assert.equal(cmdline(r.pane.process.pid), [
        stack.grok,
        "--leader",
        "--leader-socket",
        r.socketPath,
        "--resume",
        first.sessionId,
      ]);
    }
    for (const step of ["pane_proof", "socket_proof", "leader_proof", "active_sessions", "agent"]) {
      assert.ok((r.proofs[step] ?? []).length > 0, `proofs of ${step} recorded again`);
      assert.ok(
        (r.proofs[step] ?? []).every((c) => c.ok),
        `${step}: only passed checks`,
      );
    }

    // The new TUI loaded the session (one session/load, no session/new) and shows its history.
    const tuiFrames = stack
      .log()
      .filter(
        (l) => l.event === "frame_in" && l.client_type === "grok-shell" && l.pid === r.leader.pid,
      )
      .map((l) => JSON.stringify(l.frame));
    assert.is(tuiFrames.filter((f) => f.includes("session/load")).length, 1);
    assert.is(tuiFrames.filter((f) => f.includes("session/new")).length, 0);
    await waitFor("the replayed prompt on the new pane", () =>
      capturePane(stack.herdr.tmuxSocket, r.pane.process.pid).includes("Before the resume."),
    );

    // Connected once per seat: two registrations from us in all, the second at the new leader.
    const registers = stack
      .framesFromUs()
      .filter((l) => JSON.stringify(l.frame).includes('"type":"register"'));
    assert.equal(
      registers.map((l) => l.pid),
      [first.leader.pid, r.leader.pid],
    );

    // Delivery works again; the earlier prompt reached the agent once and is not sent again.
    const d2 = await resumed.deliver("After the resume.");
    assert.is.not(d2.promptId, d1.promptId);
    assert.is((await d2.completed).state, "completed");
    assert.equal(
      stack
        .log()
        .filter((l) => l.event === "prompt")
        .map((l) => l.promptId),
      [d1.promptId, d2.promptId],
    );
    assert.equal(turnsCompleted(stack, first.sessionId), [d1.promptId, d2.promptId]);
    // The resumed seat continues the original seat's journal (record.journalDir): the earlier
    // receipt is there once, completed, with nothing open to reconcile, and its prompt id stays
    // refused as a duplicate — nothing is sent for it.
    assert.is(r.journalDir, first.runtimeDir);
    assert.is.not(r.runtimeDir, first.runtimeDir);
    const records = journalRecords(first.runtimeDir);
    const old = records.filter((x) => x.id === d1.promptId);
    assert.is(old.filter((x) => x.t === "fence").length, 1);
    assert.ok(
      old.some((x) => x.t === "completed"),
      JSON.stringify(old),
    );
    assert.ok(!old.some((x) => x.t === "uncertain"));
    assert.is(records.filter((x) => x.t === "fence" && x.id === d2.promptId).length, 1);
    assert.equal(await resumed.reconcile(), []);
    assert.is(resumed.receipt(d1.promptId)?.state, "completed");
    const framesBefore = stack.log().filter((l) => l.event === "prompt").length;
    try {
      await resumed.deliver("The same id again.", { promptId: d1.promptId });
      assert.unreachable("a prompt id used before the resume was accepted");
    } catch (err) {
      assert.ok(err instanceof GrokSeatError, String(err));
      assert.is(err.code, "PROMPT_ID_DUPLICATE");
    }
    assert.is(stack.log().filter((l) => l.event === "prompt").length, framesBefore);
    assert.ok(!existsSync(join(r.runtimeDir, JOURNAL_FILE)), "no second journal for the session");

    // And the resumed seat ends like any other.
    quitTuiAsOwner(stack.herdr.tmuxSocket, r.pane.process.pid);
    assert.is((await resumed.tuiExit).exited, true);
    const again = await resumed.release();
    assert.is(again.leader.action, "stopped");
    await waitDead(r.leader.pid);
    assert.equal(stack.simPids(), [], "no simulator process is left");
    assert.equal(await stack.herdr.injectionLog(), [], "nothing was typed through Herdr");
  } finally {
    await stack.cleanup();
    rmSync(otherHome, { recursive: true, force: true });
  }
});

test("resume while the original TUI is alive is refused, even with a record that claims its exit", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options({ conversationId: "conv-alive" }));
    const tuiPid = seat.record.pane.process.pid;
    const report = await seat.release();
    assert.equal(report.leader.reasons, ["TUI_ALIVE"]);
    const released = readSeatRecord(seat.recordPath).record;
    assert.ok(pidAlive(tuiPid));

    const failed = resumeChecks(resumeOptions(stack, released))
      .filter((c) => !c.ok)
      .map((c) => [c.check, c.received]);
    assert.equal(failed, [
      ["resume.prior_exit", "exit not observed"],
      ["resume.tui_gone", "same_process"],
    ]);
    await refusedWithNothingLaunched(stack, resumeOptions(stack, released), "resume.prior_exit");

    // A forged release that claims the exit: the kernel still sees the original TUI.
    const release = released.release;
    if (release === null) throw new Error("the record has no release");
    const forged: SeatRecord = { ...released, release: { ...release, tuiExitObserved: true } };
    await refusedWithNothingLaunched(stack, resumeOptions(stack, forged), "resume.tui_gone");
    assert.ok(pidAlive(tuiPid), "the original TUI was not touched");
    assert.equal(await stack.herdr.injectionLog(), []);
  }));

test.run();
