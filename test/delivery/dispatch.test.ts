import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeJournal } from "../../lib/delivery/codec.js";
import { dispatch, type OutgoingPrompt } from "../../lib/delivery/dispatch.js";
import { JOURNAL_FILE } from "../../lib/delivery/journal.js";
import { isErrorCode } from "../../lib/errors.js";
import { admitted, cleanupSeats, prompt, spyIO, tempSeat } from "./fixtures.js";

test.after.each(cleanupSeats);

test("the fence is on disk and fsynced before send is called; send gets the hashed bytes", async () => {
  const dir = tempSeat();
  const { io, calls } = spyIO();
  const j = admitted(dir, { io });
  const p = prompt({ text: "déjà vu 😀" });
  let seen: OutgoingPrompt | undefined;
  const r = await dispatch(j, p, async (out) => {
    seen = out;
    const last = calls.filter((c) => c.op === "append" || c.op === "fsync").at(-1);
    assert.is(last?.op, "fsync", "the last journal syscall before send is the fence's fsync");
    const onDisk = decodeJournal(readFileSync(join(dir, JOURNAL_FILE))).lines.map((l) => l.record);
    assert.ok(onDisk.some((rec) => rec.t === "fence" && rec.id === p.promptId));
  });
  assert.is(r.state, "dispatched");
  assert.ok(seen !== undefined);
  if (seen === undefined) return;
  assert.is(Buffer.from(seen.textBytes).toString("utf8"), p.text);
  assert.is(seen.textSha256, createHash("sha256").update(p.text, "utf8").digest("hex"));
  assert.is(seen.textSha256, r.textSha256);
  assert.is(r.textBytes, Buffer.byteLength(p.text));
  assert.is(seen.epoch, j.epoch);
  j.close();
});

test("a failed send leaves the receipt uncertain and is never retried", async () => {
  const j = admitted(tempSeat());
  let sends = 0;
  const p = prompt();
  const r = await dispatch(j, p, async () => {
    sends++;
    throw Object.assign(new Error("socket gone"), { code: "EPIPE" });
  });
  assert.is(r.state, "uncertain");
  assert.is(r.uncertainty?.reason, "send-failed");
  assert.match(r.uncertainty?.detail ?? "", /EPIPE/);
  try {
    await dispatch(j, p, async () => {
      sends++;
    });
    assert.unreachable();
  } catch (err) {
    assert.ok(isErrorCode(err, "PROMPT_ID_DUPLICATE"));
  }
  assert.is(sends, 1);
  j.close();
});

test("nothing is sent for a duplicate id, a closed or a fail-stopped journal", async () => {
  const dir = tempSeat();
  const { io } = spyIO({ fsync: [4] });
  const j = admitted(dir, { io });
  let sends = 0;
  const send = async () => {
    sends++;
  };
  for (const expected of ["JOURNAL_IO", "JOURNAL_IO"]) {
    try {
      await dispatch(j, prompt(), send);
      assert.unreachable();
    } catch (err) {
      assert.ok(isErrorCode(err, expected), String(err));
    }
  }
  j.close();
  try {
    await dispatch(j, prompt(), send);
  } catch (err) {
    assert.ok(isErrorCode(err, "JOURNAL_CLOSED"));
  }
  assert.is(sends, 0);
});

test("evidence or a lost connection during the send wins over dispatched", async () => {
  const j = admitted(tempSeat());
  const a = prompt();
  const ra = await dispatch(j, a, async (out) => {
    j.recordConsumption({ promptId: out.promptId, sessionId: out.sessionId, kind: "queue-entry" });
  });
  assert.is(ra.state, "consumed");
  const b = prompt();
  const rb = await dispatch(j, b, async () => {
    j.connectionLost("closed mid-write");
  });
  assert.is(rb.state, "uncertain");
  assert.is(rb.uncertainty?.reason, "connection-lost");
  const c = prompt();
  const rc = await dispatch(j, c, async (out) => {
    j.recordConsumption({
      promptId: out.promptId,
      sessionId: out.sessionId,
      kind: "running-prompt",
    });
    throw new Error("write callback error after the leader already queued it");
  });
  assert.is(rc.state, "consumed", "consumption evidence is not undone by a send error");
  j.close();
});

test.run();
