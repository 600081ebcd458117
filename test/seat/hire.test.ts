// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
/**
 * The whole seat against the simulators, with real processes: hire (every step proven and
 * reported, in order), deliver through the fence until the receipt is `completed`, the owner
 * quits the TUI, release stops the proven leader only after the TUI's exit was observed. And the
 * other side of the release rule: with the TUI still alive, release leaves the leader running
 * (TUI_ALIVE). Oracles: the kernel (/proc), the grok simulator's frame log, the Herdr simulator's
 * injection log (never written), the files on disk.
 */
import { lstatSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { admitController } from "../../lib/delivery/index.js";
import { readNativeTranscript } from "../../lib/grok/native-transcript.js";
import { hire } from "../../lib/seat/hire.js";
import { HIRE_STEPS } from "../../lib/seat/hire-events.js";
import { readSeatRecord } from "../../lib/seat/seat-record.js";
import { quitTuiAsOwner } from "../../scripts/lib/owner.js";
import { pidAlive } from "../helpers/grok-sim.js";
import { optionsWithHookReport, refusalOf, waitDead, withStack } from "./stack.js";

test("hire -> deliver -> owner quits -> release stops the proven leader after the observed exit", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options({ conversationId: "conv-1" }));
    const proven = stack.events.filter((e) => e.type === "proven").map((e) => e.step);
    assert.equal(
      proven,
      HIRE_STEPS.filter((s) => !["model", "persona", "mcp_bank", "skills"].includes(s)),
      "every step proven, in order",
    );
    assert.is(
      stack.events.filter((e) => e.type === "refused").length,
      0,
      "no refusal was reported",
    );

    // The record: 0600 in a 0700 directory of ours, with every proof.
    const rec = readSeatRecord(seat.recordPath);
    assert.is(rec.file.mode, 0o600);
    assert.is(lstatSync(seat.runtimeDir).mode & 0o777, 0o700);
    const r = rec.record;
    assert.is(r.sessionId, seat.sessionId);
    assert.is(r.conversationId, "conv-1");
    assert.is(r.pane.process.executable, stack.grok);
    assert.is(r.pane.expectedAgent, "grok");
    assert.is(r.leader.ppid, r.pane.process.pid, "the leader is the TUI's child");
    assert.is(r.activeSession.pid, r.pane.process.pid);
    assert.is(r.versions.cli, r.versions.leader);
    assert.is(r.versions.cli, r.versions.agent);
    for (const step of ["pane_proof", "socket_proof", "leader_proof", "active_sessions", "agent"]) {
      assert.ok((r.proofs[step] ?? []).length > 0, `proofs of ${step} recorded`);
      assert.ok(
        (r.proofs[step] ?? []).every((c) => c.ok),
        `only passed checks recorded for ${step}`,
      );
    }

    // The version floor is judged once, in preflight; register and versions admit the rest.
    const floorSteps = Object.entries(r.proofs)
      .filter(([, checks]) => checks.some((c) => c.check === "version.floor"))
      .map(([step]) => step);
    assert.equal(floorSteps, ["preflight"]);
    assert.ok(r.proofs.register?.some((c) => c.check === "version.leader_agrees"));
    assert.ok(r.proofs.versions?.some((c) => c.check === "version.agent_agrees"));

    // Connected once: exactly one registration from us, at the proven leader.
    const registers = stack
      .framesFromUs()
      .filter((l) => JSON.stringify(l.frame).includes('"type":"register"'));
    assert.is(registers.length, 1, "one connection, one register");
    assert.is(registers[0]?.pid, r.leader.pid);

    // Deliver: the receipt moves dispatched -> consumed -> completed on Grok's own evidence.
    const states: string[] = [];
    seat.on((e) => {
      if ("receipt" in e) states.push(`${e.type}:${e.receipt.state}`);
    });
    const d = await seat.deliver("Say hello to the seat test.");
    assert.is(d.receipt.state, "dispatched");
    assert.is((await d.consumed).promptId, d.promptId);
    const done = await d.completed;
    assert.is(done.state, "completed");
    assert.ok(states.includes("completed:completed"), states.join());
    const prompts = stack.log().filter((l) => l.event === "prompt");
    assert.is(prompts.length, 1, "exactly one prompt reached the agent");
    assert.is(prompts[0]?.promptId, d.promptId);
    // The reply is the simulated model's answer to this prompt, and the stored transcript has it.
    const reply = await d.reply;
    assert.ok(
      reply.text.startsWith('Simulated reply to "Say hello to the seat test."'),
      reply.text,
    );
    const page = await seat.transcript({ limit: 10_000 });
    assert.ok(
      page.entries.some((e) => e.kind === "turn_completed" && e.promptId === d.promptId),
      "x.ai/session/updates holds our turn_completed",
    );

    // The owner quits the TUI; the leader it started keeps running (it outlives the TUI).
    const leaderPid = r.leader.pid;
    quitTuiAsOwner(stack.herdr.tmuxSocket, r.pane.process.pid);
    const verdict = await seat.tuiExit;
    assert.is(verdict.exited, true);
    assert.is(verdict.kernel.kind, "exited");
    assert.ok(pidAlive(leaderPid), "the leader outlives the TUI until release stops it");
    const afterExit = await refusalOf(seat.deliver("too late"));
    assert.is(afterExit.code, "TUI_EXITED");

    const report = await seat.release();
    assert.is(report.leader.action, "stopped");
    assert.equal(report.leader.reasons, []);
    assert.is(report.leader.signal, "SIGTERM");
    assert.is(report.tuiExit?.exited, true);
    await waitDead(leaderPid);
    assert.equal([...report.leader.removed].sort(), [r.lockPath, r.socketPath].sort());
    const released = readSeatRecord(seat.recordPath).record.release;
    assert.is(released?.tuiExitObserved, true);
    assert.is(released?.leader.action, "stopped");
    // After release the native transcript is read from where the record says it lives.
    const grokHome = r.profile.grokHome;
    assert.ok(grokHome !== null && grokHome !== undefined);
    const native = readNativeTranscript({
      grokHome,
      cwd: r.cwd,
      sessionId: r.sessionId,
      limit: 10_000,
    });
    assert.is(native.path, r.nativeTranscript);
    const stored = native.entries
      .filter((e) => e.promptId === d.promptId && e.kind === "agent_message_chunk")
      .map((e) => (e.params as { update: { content: { text: string } } }).update.content.text)
      .join("");
    assert.is(stored, reply.text);
    assert.equal(stack.simPids(), [], "no simulator process is left");
    assert.equal(await stack.herdr.injectionLog(), [], "nothing was typed through Herdr");
  }));

test("release with the TUI still alive leaves the leader running (TUI_ALIVE) and frees the seat", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options());
    const { record } = seat;
    const report = await seat.release();
    assert.is(report.leader.action, "left_running");
    assert.equal(report.leader.reasons, ["TUI_ALIVE"]);
    assert.is(report.leader.signal, null);
    assert.is(report.tuiExit, null);
    assert.ok(pidAlive(record.leader.pid), "the leader was not signalled");
    assert.ok(pidAlive(record.pane.process.pid), "the TUI was not touched");
    // The controller is closed: the disconnect frame reached the leader, the lock is free.
    assert.ok(await stack.disconnectSeen(), "the leader read our disconnect frame");
    const next = admitController({ seatDir: seat.runtimeDir });
    next.release();
    assert.is((await refusalOf(seat.deliver("after release"))).code, "SEAT_RELEASED");
    assert.is((await refusalOf(seat.release())).code, "SEAT_RELEASED");
    assert.is(stack.promptsFromUs(), 0, "nothing was delivered");
    assert.equal(readSeatRecord(seat.recordPath).record.release?.leader.reasons, ["TUI_ALIVE"]);
    assert.equal(await stack.herdr.injectionLog(), []);
  }));

test("Herdr 0.9.3 omits the top-level agent after the Grok hook's report: the nested agent is accepted", () =>
  withStack({ herdrVersion: "0.9.3" }, async (stack) => {
    const seat = await hire(optionsWithHookReport(stack, "pane.report_agent", { state: "idle" }));
    assert.equal(seat.record.agent, {
      ok: true,
      agent: "grok",
      agentFrom: "nested",
      nativeSessionId: seat.sessionId,
      nativeSessionKind: "id",
      sessionSource: "herdr:grok",
    });
    await seat.release();
  }));

test.run();
