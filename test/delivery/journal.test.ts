import { appendFileSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { encodeRecord } from "../../lib/delivery/codec.js";
import { DeliveryError } from "../../lib/delivery/delivery-error.js";
import { JOURNAL_FILE, Journal } from "../../lib/delivery/journal.js";
import {
  admitted,
  bytesOf,
  cleanupSeats,
  errorCode,
  openGuard,
  prompt,
  spyIO,
  tempSeat,
} from "./fixtures.js";

test.after.each(cleanupSeats);

test("fences: need an epoch, refuse duplicates and bad input, are fsynced before returning", () => {
  const dir = tempSeat();
  const { io, calls } = spyIO();
  const j = Journal.open({ dir, guard: openGuard, io });
  const p = prompt();
  assert.is(
    errorCode(() => j.fence(p)),
    "NOT_ADMITTED",
  );
  j.beginEpoch();
  const before = calls.length;
  const f = j.fence(p);
  assert.equal(
    calls
      .slice(before)
      .map((c) => c.op)
      .filter((op) => op === "append" || op === "fsync"),
    ["append", "fsync"],
  );
  assert.is(f.receipt.state, "fenced");
  assert.is(f.textBytes.toString("utf8"), p.text);
  assert.is(
    errorCode(() => j.fence(p)),
    "PROMPT_ID_DUPLICATE",
  );
  assert.is(
    errorCode(() => j.fence(prompt({ promptId: "../etc" }))),
    "INVALID_ARGUMENT",
  );
  assert.is(
    errorCode(() => j.fence(prompt({ leader: "tab\there" }))),
    "INVALID_ARGUMENT",
  );
  assert.is(
    errorCode(() => j.fence(prompt({ text: "lone \ud800 surrogate" }))),
    "INVALID_ARGUMENT",
  );
  // dispatched and consumed are written without their own fsync; results are fsynced.
  const mark = calls.length;
  j.markDispatched(p.promptId);
  j.recordConsumption({ promptId: p.promptId, sessionId: p.sessionId, kind: "queue-entry" });
  assert.is(calls.slice(mark).filter((c) => c.op === "fsync").length, 0);
  j.recordResult({
    promptId: p.promptId,
    sessionId: p.sessionId,
    channel: "rpc-response",
    stopReason: "end_turn",
  });
  assert.is(calls.slice(mark).filter((c) => c.op === "fsync").length, 1);
  j.close();
  assert.is(
    errorCode(() => j.fence(prompt())),
    "JOURNAL_CLOSED",
  );
});

test("evidence outcomes: ours, not ours, other session, duplicate, reconciled, compacted", () => {
  const dir = tempSeat();
  const j = admitted(dir);
  const p = prompt();
  j.fence(p);
  j.markDispatched(p.promptId);
  const res = {
    promptId: p.promptId,
    sessionId: p.sessionId,
    channel: "rpc-response" as const,
    stopReason: "end_turn",
  };
  assert.is(
    j.recordConsumption({ promptId: "not-ours", sessionId: p.sessionId, kind: "queue-entry" })
      .outcome,
    "unknown-prompt",
  );
  assert.is(j.recordResult({ ...res, sessionId: "other" }).outcome, "session-mismatch");
  assert.equal(
    j.connectionLost("socket closed").map((r) => r.state),
    ["uncertain"],
  );
  const late = j.recordResult({ ...res, channel: "turn-completed" });
  assert.is(late.outcome, "reconciled");
  assert.is(late.receipt?.state, "completed");
  assert.is(late.receipt?.promptId, p.promptId);
  assert.is(j.recordResult(res).outcome, "duplicate");
  assert.is(j.recordResult({ ...res, stopReason: "cancelled" }).outcome, "conflict");
  j.compact();
  assert.is(j.recordResult(res).outcome, "compacted");
  // Still answered in this process (recently settled); gone after a reopen (the refusal test).
  assert.is(j.receipt(p.promptId)?.state, "completed");
  assert.not.ok(j.receipts().some((r) => r.promptId === p.promptId));
  assert.is(j.isKnownPromptId(p.promptId), true);
  assert.is(
    errorCode(() => j.fence(p)),
    "PROMPT_ID_DUPLICATE",
  );
  j.close();
});

test("cancel is recorded only for consumed prompts and never completes by itself", () => {
  const j = admitted(tempSeat());
  const p = prompt();
  j.fence(p);
  j.markDispatched(p.promptId);
  assert.is(
    errorCode(() => j.recordCancelSubmitted(p.promptId, "queue-remove")),
    "ILLEGAL_TRANSITION",
  );
  j.recordConsumption({ promptId: p.promptId, sessionId: p.sessionId, kind: "queue-entry" });
  assert.is(j.recordCancelSubmitted(p.promptId, "queue-remove").state, "cancel-submitted");
  assert.is(j.connectionLost().length, 0, "consumed prompts do not become uncertain");
  assert.is(j.receipt(p.promptId)?.state, "cancel-submitted");
  j.recordResult({
    promptId: p.promptId,
    sessionId: p.sessionId,
    channel: "prompt-complete",
    stopReason: "cancelled",
  });
  assert.is(j.receipt(p.promptId)?.state, "cancelled");
  assert.is(
    errorCode(() => j.markUncertain(p.promptId, "send-failed")),
    "ILLEGAL_TRANSITION",
  );
  assert.is(
    errorCode(() => j.markDispatched("never-fenced")),
    "UNKNOWN_PROMPT",
  );
  j.close();
});

test("fail-stop: an fsync error is JOURNAL_IO, sticky, and never retried", () => {
  const dir = tempSeat();
  const { io, calls } = spyIO({ fsync: [4] }, "EIO");
  const j = Journal.open({ dir, guard: openGuard, io });
  j.beginEpoch(); // fsyncs 1-2 (create: file, dir), 3 (epoch)
  const p = prompt();
  assert.is(
    errorCode(() => j.fence(p)),
    "JOURNAL_IO",
  );
  assert.is(j.failure?.code, "JOURNAL_IO");
  assert.is(j.failure?.context.errno, "EIO");
  const after = calls.length;
  for (const f of [
    () => j.fence(prompt()),
    () => j.sync(),
    () => j.compact(),
    () => j.markDispatched(p.promptId),
  ]) {
    const err = (() => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(err instanceof DeliveryError && err.code === "JOURNAL_IO");
    if (err instanceof DeliveryError) assert.is(err.context.failStopped, true);
  }
  assert.is(calls.length, after, "a fail-stopped journal made no further I/O");
  j.close();
  // Reopened, the fence is there (it was written) but uncertain: never sent, never resent.
  const r = Journal.open({ dir, guard: openGuard });
  assert.is(r.receipt(p.promptId)?.state, "uncertain");
  r.close();
});

test("fail-stop: ENOSPC on write, and a failed guard, are sticky too", () => {
  const dir = tempSeat();
  const { io } = spyIO({ append: [2] }, "ENOSPC");
  const j = Journal.open({ dir, guard: openGuard, io });
  j.beginEpoch();
  assert.is(
    errorCode(() => j.fence(prompt())),
    "JOURNAL_IO",
  );
  assert.is(j.failure?.context.errno, "ENOSPC");
  j.close();

  let held = true;
  const guard = {
    assertHeld() {
      if (!held)
        throw new DeliveryError("ADMISSION_LOST", "test guard", { details: { reason: "test" } });
    },
  };
  const k = Journal.open({ dir: tempSeat(), guard });
  k.beginEpoch();
  held = false;
  assert.is(
    errorCode(() => k.fence(prompt())),
    "ADMISSION_LOST",
  );
  held = true;
  assert.is(
    errorCode(() => k.fence(prompt())),
    "ADMISSION_LOST",
    "sticky even if the guard recovers",
  );
  k.close();
});

test("a journal replaced or grown by someone else is ADMISSION_LOST", () => {
  const a = tempSeat();
  const j = admitted(a);
  writeFileSync(join(a, "other"), "", { mode: 0o600 });
  renameSync(join(a, "other"), join(a, JOURNAL_FILE));
  assert.is(
    errorCode(() => j.fence(prompt())),
    "ADMISSION_LOST",
  );
  assert.is(j.failure?.context.reason, "journal-replaced");
  j.close();
  const b = tempSeat();
  const k = admitted(b);
  appendFileSync(
    join(b, JOURNAL_FILE),
    encodeRecord({ v: 1, t: "epoch", epoch: 7, pid: 1, at: 1 }),
  );
  assert.is(
    errorCode(() => k.fence(prompt())),
    "ADMISSION_LOST",
  );
  assert.is(k.failure?.context.reason, "journal-changed-size");
  k.close();
});

test("compaction keeps open and uncertain receipts byte for byte, the epoch, and finished ids", () => {
  const dir = tempSeat();
  const j = admitted(dir);
  const done = prompt();
  const open = prompt();
  const lost = prompt();
  j.fence(done);
  j.markDispatched(done.promptId);
  j.recordResult({
    promptId: done.promptId,
    sessionId: done.sessionId,
    channel: "rpc-response",
    stopReason: "end_turn",
  });
  j.fence(open);
  j.markDispatched(open.promptId);
  j.recordConsumption({ promptId: open.promptId, sessionId: open.sessionId, kind: "queue-entry" });
  j.fence(lost);
  j.markUncertain(lost.promptId, "send-failed", "EPIPE");
  const path = join(dir, JOURNAL_FILE);
  const oldLines = readFileSync(path, "utf8").split("\n");
  const report = j.compact();
  assert.equal([report.keptReceipts, report.droppedReceipts], [2, 1]);
  assert.ok(report.bytesAfter < report.bytesBefore);
  const newLines = readFileSync(path, "utf8").split("\n");
  for (const l of oldLines) {
    if (l.includes(open.promptId) || l.includes(lost.promptId) || l.includes('"t":"epoch"')) {
      assert.ok(newLines.includes(l), `lost line ${l}`);
    }
  }
  assert.ok(
    newLines.some(
      (l) =>
        l.includes('"v":2,"t":"settled","state":"completed"') && l.includes(`"${done.promptId}"`),
    ),
  );
  assert.is(statSync(path).mode & 0o777, 0o600);
  // The journal keeps working on the new file, and a fresh open sees the same receipts.
  const more = prompt();
  j.fence(more);
  const states = j.receipts().map((r) => [r.promptId, r.state]);
  j.close();
  const r = admitted(dir);
  assert.equal(
    r.receipts().map((x) => [x.promptId, x.state]),
    states.map(([id, s]) => [id, s === "fenced" ? "uncertain" : s]),
  );
  assert.is(r.epoch, 2);
  assert.is(r.isKnownPromptId(done.promptId), true);
  r.close();
});

test("a refusal is terminal, fsynced before returning, survives reopening, is compacted, never resent", () => {
  const dir = tempSeat();
  const { io, calls } = spyIO();
  const j = admitted(dir, { io });
  const p = prompt();
  j.fence(p);
  j.markDispatched(p.promptId);
  const refusal = {
    promptId: p.promptId,
    sessionId: p.sessionId,
    code: -32602,
    message: "Invalid params",
    detail: "unknown session id",
  };
  const mark = calls.length;
  const o = j.recordRejection(refusal);
  // The lazy dispatched line and the refusal go out in one write, then one fsync.
  assert.equal(
    calls
      .slice(mark)
      .map((c) => c.op)
      .filter((op) => op === "append" || op === "fsync"),
    ["append", "fsync"],
  );
  assert.is(o.outcome, "applied");
  assert.is(o.receipt?.state, "rejected");
  assert.equal(o.receipt?.rejection, {
    code: -32602,
    message: "Invalid params",
    detail: "unknown session id",
    at: o.receipt?.rejection?.at ?? -1,
  });
  assert.is(j.recordRejection(refusal).outcome, "duplicate");
  assert.is(
    j.recordConsumption({ promptId: p.promptId, sessionId: p.sessionId, kind: "queue-entry" })
      .outcome,
    "conflict",
  );
  assert.equal(j.connectionLost("gone"), [], "a refused prompt is not uncertain");
  assert.is(
    errorCode(() => j.recordCancelSubmitted(p.promptId, "session-cancel")),
    "ILLEGAL_TRANSITION",
  );
  assert.is(
    errorCode(() => j.fence(p)),
    "PROMPT_ID_DUPLICATE",
  );
  assert.is(
    errorCode(() => j.recordRejection({ ...refusal, code: 1.5 })),
    "INVALID_ARGUMENT",
  );
  assert.is(j.recordRejection({ ...refusal, promptId: "not-ours" }).outcome, "unknown-prompt");
  j.close();
  // Reopened (a crash leaves the same bytes): still rejected with the wire error, not uncertain.
  const r = Journal.open({ dir, guard: openGuard });
  assert.equal(r.recovery.madeUncertain, []);
  assert.equal(r.receipt(p.promptId)?.rejection?.code, -32602);
  assert.is(r.receipt(p.promptId)?.state, "rejected");
  r.close();
  const before = bytesOf(dir);
  Journal.open({ dir, guard: openGuard }).close();
  assert.equal(bytesOf(dir), before, "recovery of a refused receipt changes no byte");
  // Compacted like any finished receipt: its id in a settled record; it stays known.
  const c = admitted(dir);
  const report = c.compact();
  assert.is(report.droppedReceipts, 1);
  assert.ok(
    readFileSync(join(dir, JOURNAL_FILE), "utf8").includes(
      `"t":"settled","state":"rejected","at":`,
    ),
  );
  assert.ok(readFileSync(join(dir, JOURNAL_FILE), "utf8").includes(`"ids":["${p.promptId}"]`));
  assert.is(c.recordRejection(refusal).outcome, "compacted");
  c.close();
  const k = Journal.open({ dir, guard: openGuard });
  assert.is(k.isKnownPromptId(p.promptId), true);
  assert.is(k.receipt(p.promptId), undefined);
  k.close();
});

test("a refusal while the receipt is still fenced: the answer proves the write (dispatched, then rejected)", () => {
  const dir = tempSeat();
  const j = admitted(dir);
  const p = prompt();
  j.fence(p);
  const o = j.recordRejection({
    promptId: p.promptId,
    sessionId: p.sessionId,
    code: -32002,
    message: "leader_starting",
    detail: "Leader is still initializing (auth in progress). Retry shortly.",
  });
  assert.is(o.receipt?.state, "rejected");
  assert.ok(o.receipt?.dispatchedAt !== null);
  // The sender's own signal arriving later changes nothing.
  assert.is(j.markDispatched(p.promptId).state, "rejected");
  assert.is(
    errorCode(() => j.markUncertain(p.promptId, "send-failed")),
    "ILLEGAL_TRANSITION",
  );
  j.close();
  const lines = readFileSync(join(dir, JOURNAL_FILE), "utf8")
    .split("\n")
    .filter((l) => l.includes(p.promptId))
    .map((l) => /"t":"([a-z-]+)"/.exec(l)?.[1]);
  assert.equal(lines, ["fence", "dispatched", "rejected"]);
  // A refusal for a prompt of another session is not ours to apply.
  const q = prompt();
  const k = admitted(dir);
  k.fence(q);
  k.markDispatched(q.promptId);
  assert.is(
    k.recordRejection({ promptId: q.promptId, sessionId: "other", code: -1, message: "x" }).outcome,
    "session-mismatch",
  );
  assert.is(k.receipt(q.promptId)?.state, "dispatched");
  k.close();
});

/** Fence, dispatch and complete `n` prompts; returns their ids. */
function finishPrompts(j: Journal, n: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const p = prompt();
    j.fence(p);
    j.markDispatched(p.promptId);
    j.recordConsumption({ promptId: p.promptId, sessionId: p.sessionId, kind: "queue-entry" });
    j.recordResult({
      promptId: p.promptId,
      sessionId: p.sessionId,
      channel: "rpc-response",
      stopReason: "end_turn",
    });
    ids.push(p.promptId);
  }
  return ids;
}

test("the journal compacts itself past compactAboveBytes: bounded, every used id still refused, uncertain kept", () => {
  const dir = tempSeat();
  const path = join(dir, JOURNAL_FILE);
  const j = admitted(dir, { compactAboveBytes: 8192 });
  // A prompt fenced but never settled: it must stay (uncertain) through every compaction.
  const held = prompt();
  j.fence(held);
  j.markUncertain(held.promptId, "send-failed", "EPIPE");
  const ids = finishPrompts(j, 400);
  // 400 lifecycles are ~270 KB of lines; the file stays near 1.5x its snapshot (ids only).
  const size = statSync(path).size;
  assert.ok(size < 40_000, `journal is ${size} bytes after 400 prompts`);
  const text = readFileSync(path, "utf8");
  assert.ok(text.includes('"t":"settled"'), "no settled record: it never compacted");
  assert.is(j.receipt(held.promptId)?.state, "uncertain");
  assert.is(j.receipt(ids[0] ?? "")?.state, "completed", "recently settled still answered");
  for (const id of ids) {
    assert.is(
      errorCode(() => j.fence(prompt({ promptId: id }))),
      "PROMPT_ID_DUPLICATE",
    );
  }
  j.close();
  const r = admitted(dir, { compactAboveBytes: 8192 });
  assert.equal(r.recovery.warnings, []);
  assert.equal(
    r
      .receipts()
      .filter((x) => x.state !== "completed")
      .map((x) => [x.promptId, x.state]),
    [[held.promptId, "uncertain"]],
  );
  for (const id of [...ids, held.promptId]) {
    assert.ok(r.isKnownPromptId(id), `${id} forgotten`);
    assert.is(
      errorCode(() => r.fence(prompt({ promptId: id }))),
      "PROMPT_ID_DUPLICATE",
    );
  }
  r.close();
});

test("a large journal is compacted when opened; a fenced prompt left unsettled stays uncertain", () => {
  const dir = tempSeat();
  const path = join(dir, JOURNAL_FILE);
  const w = admitted(dir, { compactAboveBytes: Number.POSITIVE_INFINITY });
  const ids = finishPrompts(w, 200);
  const open = prompt();
  w.fence(open); // the process dies here: fenced, never dispatched
  w.close();
  const before = statSync(path).size;
  const r = Journal.open({ dir, guard: openGuard, compactAboveBytes: 4096 });
  const after = statSync(path).size;
  assert.ok(after * 3 < before, `not compacted on open: ${before} -> ${after} bytes`);
  assert.equal(r.recovery.madeUncertain, [open.promptId]);
  assert.equal(
    r.receipts().map((x) => [x.promptId, x.state]),
    [[open.promptId, "uncertain"]],
  );
  r.close();
  // Idempotent: a second open finds nothing to compact and changes no byte.
  const bytes = bytesOf(dir);
  const again = Journal.open({ dir, guard: openGuard, compactAboveBytes: 4096 });
  for (const id of ids) assert.ok(again.isKnownPromptId(id));
  assert.is(again.receipt(open.promptId)?.state, "uncertain");
  again.close();
  assert.equal(bytesOf(dir), bytes, "second open changed bytes");
});

test("a failed automatic compaction fail-stops before the append it preceded", () => {
  const dir = tempSeat();
  const path = join(dir, JOURNAL_FILE);
  // The journal's first rename is its first compaction: it fails with EIO.
  const { io } = spyIO({ rename: [1] });
  const j = admitted(dir, { io, compactAboveBytes: 4096 });
  const done: string[] = [];
  let failed: { id: string; code: string } | null = null;
  for (let i = 0; i < 100 && failed === null; i++) {
    const p = prompt();
    try {
      done.push(...finishPromptsWith(j, p));
    } catch (err) {
      failed = {
        id: p.promptId,
        code: errorCode(() => {
          throw err;
        }),
      };
    }
  }
  assert.ok(failed !== null, "no compaction was attempted");
  assert.is(failed.code, "JOURNAL_IO");
  assert.is(j.failure?.code, "JOURNAL_IO");
  assert.is(
    errorCode(() => j.fence(prompt())),
    "JOURNAL_IO",
  );
  j.close();
  const r = admitted(dir);
  for (const id of done) assert.ok(r.isKnownPromptId(id), `${id} forgotten`);
  // The record the compaction preceded never reached the disk: its fence, or a later record.
  const rec = r.receipt(failed.id);
  assert.ok(rec === undefined || rec.state === "uncertain", `${failed.id}: ${rec?.state}`);
  assert.not.ok(readFileSync(path, "utf8").includes('"t":"settled"'));
  r.close();
});

/** One whole lifecycle of `p`; returns its id once completed. */
function finishPromptsWith(j: Journal, p: ReturnType<typeof prompt>): string[] {
  j.fence(p);
  j.markDispatched(p.promptId);
  j.recordResult({
    promptId: p.promptId,
    sessionId: p.sessionId,
    channel: "rpc-response",
    stopReason: "end_turn",
  });
  return [p.promptId];
}

test.run();
