// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * T9 — fault shapes (docs/design/reliability-plan.md §6 T9), each × seeds, against the real seat (hire,
 * deliver, release) and the simulators' fault switches:
 *   drop        the leader reads the prompt, then drops the connection (GROK_SIM_DROP_AFTER_PROMPT)
 *   ack-lost    every acknowledgement to us is lost, then the connection ends
 *               (GROK_SIM_LOSE_ACKS_AFTER_PROMPT)
 *   ack-late    the acknowledgement arrives after a gap past our own timeout (GROK_SIM_ACK_DELAY_MS):
 *               even seeds on the same connection, odd seeds after the seat was released and a
 *               fresh controller reconnected
 *   restart     the leader dies mid-turn and the TUI starts a new one at the same socket
 *               (GROK_SIM_CRASH_AFTER_CHUNKS): the seat refuses it, a fresh controller too
 *   ctl-kill    the controller process is killed -9 between dispatch and acknowledgement; a fresh
 *               controller recovers the journal
 *   half-close  the leader ends its write side (FIN) right after reading the prompt and keeps
 *               reading (GROK_SIM_HALF_CLOSE_AFTER_PROMPT)
 * Invariants, from the simulator's frame log (GROK_SIM_LOG: every frame each leader read):
 * exactly one `session/prompt` frame per prompt id, 0 automatic resends of uncertain prompts,
 * every late result on the original receipt (the journal holds no other), never a new receipt.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Receipt } from "../../lib/delivery/receipt.js";
import { GrokSeatError } from "../../lib/errors.js";
import { readSeatRecord } from "../../lib/seat/seat-record.js";
import { recordClaim, scaled } from "../helpers/claims.js";
import { pidAlive, waitFor } from "../helpers/grok-sim.js";
import { type Stack, socketListeners, startStack } from "../seat/stack.js";
import { hireRetries, stackConfig } from "./fixtures/fault-hire.js";
import {
  codeOf,
  framesAfterHalfClose,
  freshController,
  hireRun,
  killRunProcesses,
  newPromptId,
  prng,
  promptFrames,
  type Run,
  reconcileUntilTerminal,
  traced,
  within,
} from "./fixtures/fault-run.js";

const startedAt = Date.now();
const SEEDS = scaled(3, 100);
const baseSeed = Number(process.env.GROK_SEAT_SEED ?? Date.now() % 2 ** 31);
const ROOT = join(import.meta.dirname, "..", "..");

const totals: Record<string, number> = {
  runs: 0,
  prompts: 0,
  deliveredOnce: 0,
  duplicateFrames: 0,
  uncertain: 0,
  uncertainResent: 0,
  lateResults: 0,
  lateOnOriginal: 0,
  reconciled: 0,
  newReceipts: 0,
  refusedReplacement: 0,
  framesToReplacement: 0,
  framesAfterHalfClose: 0,
  hireRetries: 0,
};
const runsByShape: Record<string, number> = {};
const failures: string[] = [];
let stack: Stack;

function bump(key: string, by = 1): void {
  totals[key] = (totals[key] ?? 0) + by;
}

/** Exactly one frame per prompt id, none for any other id of ours. */
function checkOnce(logPath: string, ids: readonly string[], uncertain: ReadonlySet<string>): void {
  const frames = promptFrames(logPath);
  for (const id of ids) {
    const n = frames.filter((f) => f.promptId === id).length;
    bump("prompts");
    if (n === 1) bump("deliveredOnce");
    if (n > 1) bump("duplicateFrames", n - 1);
    if (n > 1 && uncertain.has(id)) bump("uncertainResent", n - 1);
    assert.is(n, 1, `prompt ${id}: ${n} frames in the leaders' log`);
  }
  const stray = frames.filter((f) => !ids.includes(f.promptId));
  assert.equal(stray, [], "no prompt frame of ours beyond the delivered ids");
}

/** The journal holds exactly our receipts: nothing new was made by reconciliation. */
function checkNoNewReceipts(receipts: readonly Receipt[], ids: readonly string[]): void {
  const got = receipts.map((r) => r.promptId).sort();
  const extra = got.filter((id) => !ids.includes(id)).length;
  bump("newReceipts", extra);
  assert.equal(got, [...ids].sort(), "the journal holds the original receipts only");
}

function isReconciled(r: Receipt | undefined): boolean {
  return r?.result?.reconciled === true || r?.consumption?.reconciled === true;
}

function describe(err: unknown): string {
  if (err instanceof GrokSeatError) {
    return `${err.code}: ${err.message} ${JSON.stringify(err.context ?? null)}${
      err.cause === undefined ? "" : ` (cause: ${String(err.cause)})`
    }`;
  }
  return String(err);
}

/** Run `body` once per seed, counting, cleaning up after each (also when it fails). */
async function shape(name: string, body: (seed: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < SEEDS; i++) {
    const seed = baseSeed + i;
    try {
      await body(seed);
      runsByShape[name] = (runsByShape[name] ?? 0) + 1;
      bump("runs");
    } catch (err) {
      failures.push(`${name} seed ${seed}: ${describe(err)}`);
      // uvu formats `details` as a string: a GrokSeatError's details object would hide the failure.
      if (err instanceof GrokSeatError) throw new Error(`seed ${seed}: ${describe(err)}`);
      throw err;
    } finally {
      await killRunProcesses(stack);
    }
  }
}

/** An uncertain prompt, then a fresh controller reconciles it to its original receipt. */
async function uncertainThenReconciled(run: Run, id: string): Promise<void> {
  const seat = run.seat;
  const r = seat.receipt(id);
  assert.is(r?.state, "uncertain", `receipt ${id} after the fault`);
  bump("uncertain");
  assert.is(await codeOf(seat.deliver("not after the fault")), "CONNECTION_CLOSED");
  const report = await seat.release();
  assert.equal(report.leader.reasons, ["TUI_ALIVE"]);
  const fresh = await freshController(run.record, (c) => {
    assert.is(c.journal.receipt(id)?.state, "uncertain", "still uncertain on disk");
  });
  try {
    const [done] = await reconcileUntilTerminal(fresh, [id]);
    assert.is(done?.state, "completed");
    assert.ok(isReconciled(done), "the late result reconciled the original receipt");
    bump("lateResults");
    bump("lateOnOriginal");
    bump("reconciled");
    checkNoNewReceipts(fresh.controller.journal.receipts(), [id]);
  } finally {
    await fresh.close();
  }
  checkOnce(run.logPath, [id], new Set([id]));
}

/** A brief of 1-12 random words, answered in 1-5 chunks. */
function randomBrief(rng: ReturnType<typeof prng>): string {
  return `${rng.words(rng.int(1, 12))} [[sim:chunks=${rng.int(1, 5)}]]`;
}

/** Deliver; a send that already failed is the same fault seen earlier (still no resend). */
async function deliverOrUncertain(run: Run, text: string, id: string): Promise<void> {
  const code = await codeOf(run.seat.deliver(text, { promptId: id }));
  assert.ok(code === null || code === "DELIVERY_UNCERTAIN", `deliver: ${code}`);
}

test.before(async () => {
  stack = await startStack();
});

test.after(async () => {
  await stack?.cleanup();
});

/** The two shapes where the connection ends right after the prompt: uncertain, then reconciled. */
const connectionLostShapes: ReadonlyArray<{
  name: string;
  title: string;
  env: Record<string, string>;
  faultSeen: (logPath: string) => void;
}> = [
  {
    name: "drop",
    title: "drop: the leader reads the prompt, then drops the connection",
    env: { GROK_SIM_DROP_AFTER_PROMPT: "1" },
    faultSeen: (logPath) => assert.is(traced(logPath, "fault_drop_after_prompt").length, 1),
  },
  {
    name: "ack-lost",
    title: "ack-lost: every acknowledgement to us is lost, then the connection ends",
    env: { GROK_SIM_LOSE_ACKS_AFTER_PROMPT: "1" },
    faultSeen: (logPath) =>
      assert.ok(traced(logPath, "fault_frame_lost").length > 0, "acknowledgements were lost"),
  },
];

for (const { name, title, env, faultSeen } of connectionLostShapes) {
  test(title, async () => {
    await shape(name, async (seed) => {
      const rng = prng(seed);
      const run = await hireRun(stack, env);
      const id = newPromptId();
      await deliverOrUncertain(run, randomBrief(rng), id);
      await run.seat.acp.closed;
      faultSeen(run.logPath);
      await uncertainThenReconciled(run, id);
    });
  });
}

test("ack-late: the acknowledgement arrives after our timeout (same connection or after reconnect)", async () => {
  await shape("ack-late", async (seed) => {
    const rng = prng(seed);
    const gap = rng.int(400, 900);
    const run = await hireRun(stack, { GROK_SIM_ACK_DELAY_MS: String(gap) });
    const a = newPromptId();
    const b = newPromptId();
    const da = await run.seat.deliver(`[[sim:sleep=${gap + 800}]] ${rng.words(3)}`, {
      promptId: a,
    });
    assert.not.equal(await within(da.consumed, 10_000), "timeout", "A was taken");
    const db = await run.seat.deliver(rng.words(rng.int(1, 8)), { promptId: b });
    // Our own patience runs out before Grok's acknowledgement of B: nothing is resent.
    assert.is(await within(db.consumed, Math.floor(gap / 2)), "timeout");
    assert.is(run.seat.receipt(b)?.state, "dispatched");
    if (seed % 2 === 0) {
      const done = await within(db.completed, 30_000);
      assert.ok(done !== "timeout" && done.state === "completed", "B completed late");
      assert.is(done.promptId, b);
      assert.is(done.consumption?.kind, "queue-entry", "the late acknowledgement was applied");
      assert.not.equal(await within(da.completed, 30_000), "timeout");
      bump("lateResults");
      bump("lateOnOriginal");
      const report = await run.seat.release();
      assert.equal(report.leader.reasons, ["TUI_ALIVE"]);
      checkOnce(run.logPath, [a, b], new Set());
      return;
    }
    const report = await run.seat.release();
    assert.equal(report.leader.reasons, ["TUI_ALIVE"]);
    const fresh = await freshController(run.record, (c) => {
      assert.is(c.journal.receipt(b)?.state, "uncertain", "B without evidence");
    });
    try {
      bump("uncertain");
      const done = await reconcileUntilTerminal(fresh, [a, b]);
      assert.ok(done.every((r) => r.state === "completed"));
      assert.ok(isReconciled(fresh.controller.journal.receipt(b)), "B reconciled");
      bump("lateResults", 2);
      bump("lateOnOriginal", 2);
      bump("reconciled");
      checkNoNewReceipts(fresh.controller.journal.receipts(), [a, b]);
    } finally {
      await fresh.close();
    }
    checkOnce(run.logPath, [a, b], new Set([b]));
  });
});

test("restart: the leader dies mid-turn, the TUI starts another; the seat refuses to follow", async () => {
  await shape("restart", async (seed) => {
    const rng = prng(seed);
    const run = await hireRun(stack, { GROK_SIM_CRASH_AFTER_CHUNKS: String(rng.int(1, 3)) });
    const proven = run.record.leader.pid;
    const id = newPromptId();
    await deliverOrUncertain(run, `[[sim:chunks=6]] ${rng.words(rng.int(1, 6))}`, id);
    await run.seat.acp.closed;
    const replacement = await waitFor(
      "the TUI's replacement leader",
      () => socketListeners(run.record.socketPath).find((p) => p !== proven),
      20_000,
    );
    assert.is(await codeOf(run.seat.deliver("must not reach the new leader")), "LEADER_REPLACED");
    bump("refusedReplacement");
    const state = run.seat.receipt(id)?.state;
    assert.ok(state === "consumed" || state === "uncertain", `receipt after the crash: ${state}`);
    if (state === "uncertain") bump("uncertain");
    // A fresh controller refuses the new leader as well: its peer is not the recorded one.
    const release = await run.seat.release();
    assert.ok(release.leader.reasons.includes("LEADER_REPLACED"));
    assert.is(await codeOf(freshController(run.record)), "PEER_NOT_LEADER");
    bump("refusedReplacement");
    assert.ok(pidAlive(replacement), "the replacement was not signalled");
    const toOthers = promptFrames(run.logPath).filter((f) => f.pid !== proven).length;
    bump("framesToReplacement", toOthers);
    assert.is(toOthers, 0, "nothing of ours reached the replacement");
    checkOnce(run.logPath, [id], state === "uncertain" ? new Set([id]) : new Set());
  });
});

test("ctl-kill: the controller is killed -9 between dispatch and acknowledgement", async () => {
  await shape("ctl-kill", async (seed) => {
    const rng = prng(seed);
    const gap = rng.int(1500, 2500);
    const a = { id: newPromptId(), text: `[[sim:sleep=${gap + 1500}]] ${rng.words(3)}` };
    const b = { id: newPromptId(), text: rng.words(rng.int(1, 8)) };
    const logPath = join(stack.runtimeBase, `frames-ctl-${seed}.log`);
    const config = {
      ...stackConfig(stack, { GROK_SIM_LOG: logPath, GROK_SIM_ACK_DELAY_MS: `${gap}` }),
      a,
      b,
    };
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(import.meta.dirname, "fixtures", "fault-controller.ts"),
        JSON.stringify(config),
      ],
      { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] },
    );
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString("utf8");
    });
    try {
      const line = await waitFor(
        `DISPATCHED from the controller${err === "" ? "" : `: ${err}`}`,
        () => {
          if (child.exitCode !== null) throw new Error(`controller exited: ${err}`);
          return out.split("\n").find((l) => l.startsWith("DISPATCHED "));
        },
        60_000,
      );
      await new Promise((r) => setTimeout(r, rng.int(0, Math.floor(gap / 3))));
      child.kill("SIGKILL");
      await exited;
      const info: unknown = JSON.parse(line.slice("DISPATCHED ".length));
      assert.ok(typeof info === "object" && info !== null && "recordPath" in info);
      if ("hireRetries" in info && typeof info.hireRetries === "number") {
        bump("hireRetries", info.hireRetries);
      }
      const record = readSeatRecord(String(info.recordPath)).record;
      const fresh = await freshController(record);
      try {
        const rec = fresh.controller.recovery;
        assert.ok(rec.madeUncertain.includes(b.id), "recovery marked B uncertain");
        assert.not.ok(rec.madeUncertain.includes(a.id), "A had been taken: not uncertain");
        bump("uncertain");
        const done = await reconcileUntilTerminal(fresh, [a.id, b.id]);
        assert.ok(done.every((r) => r.state === "completed"));
        assert.ok(isReconciled(fresh.controller.journal.receipt(b.id)), "B reconciled");
        bump("lateResults", 2);
        bump("lateOnOriginal", 2);
        bump("reconciled");
        checkNoNewReceipts(fresh.controller.journal.receipts(), [a.id, b.id]);
      } finally {
        await fresh.close();
      }
      checkOnce(logPath, [a.id, b.id], new Set([b.id]));
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    }
  });
});

test("half-close: the leader ends its write side after reading the prompt", async () => {
  await shape("half-close", async (seed) => {
    const rng = prng(seed);
    const run = await hireRun(stack, { GROK_SIM_HALF_CLOSE_AFTER_PROMPT: "1" });
    const id = newPromptId();
    await deliverOrUncertain(run, randomBrief(rng), id);
    await run.seat.acp.closed;
    await uncertainThenReconciled(run, id);
    // After the leader's FIN, no prompt of ours was read on that connection.
    assert.is(traced(run.logPath, "fault_half_close").length, 1, "the leader half-closed");
    const after = framesAfterHalfClose(run.logPath);
    bump("framesAfterHalfClose", after.all);
    assert.is(after.prompts, 0, "no prompt written into the half-closed connection");
  });
});

test("claim T9-fault-shapes", () => {
  bump("hireRetries", hireRetries.launcherRace);
  const t = totals;
  const held =
    failures.length === 0 &&
    t.prompts === t.deliveredOnce &&
    t.duplicateFrames === 0 &&
    t.uncertainResent === 0 &&
    t.newReceipts === 0 &&
    t.lateResults === t.lateOnOriginal;
  const shapes = Object.entries(runsByShape)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  recordClaim(
    {
      id: "T9-fault-shapes",
      title: "Fault shapes: exactly once, never resent, reconciled",
      claim:
        `6 fault shapes × ${SEEDS} seeds (${t.runs} runs: ${shapes}) against the real seat and the ` +
        `simulators: ${t.deliveredOnce}/${t.prompts} prompts read exactly once by the leader, ` +
        `${t.duplicateFrames} duplicate frames, ${t.uncertainResent} automatic resends of ` +
        `${t.uncertain} uncertain prompts, ${t.lateOnOriginal}/${t.lateResults} late results on ` +
        `the original receipt (${t.reconciled} reconciled after reconnect), ${t.newReceipts} new ` +
        `receipts; a leader restarted mid-turn refused ${t.refusedReplacement} times, ` +
        `${t.framesToReplacement} frames to it; ${t.framesAfterHalfClose} frames written into a ` +
        "half-closed connection.",
      counts: { ...t, seedsPerShape: SEEDS },
      held,
      seeds: Array.from({ length: SEEDS }, (_, i) => baseSeed + i),
      method:
        "hire()/deliver()/release() against the Herdr and grok simulators with fault switches " +
        "(DROP_AFTER_PROMPT, LOSE_ACKS_AFTER_PROMPT, ACK_DELAY_MS, CRASH_AFTER_CHUNKS, " +
        "HALF_CLOSE_AFTER_PROMPT), kill -9 of a controller process, a fresh controller " +
        "(admitController + SO_PEERPIDFD identity check + AcpSession.reconcile); oracle: the " +
        "simulator's frame log (GROK_SIM_LOG) and the journal; a hire refused by the Herdr " +
        "simulator's launcher race is retried (counted: hireRetries)",
    },
    startedAt,
  );
  assert.ok(held, failures.join("; "));
});

test.run();
