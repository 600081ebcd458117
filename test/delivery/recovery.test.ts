import { Buffer } from "node:buffer";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeJournal, encodeRecord } from "../../lib/delivery/codec.js";
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

test("a new journal is 0600 in the 0700 seat directory; file then directory fsynced before use", () => {
  const dir = tempSeat();
  const { io, calls } = spyIO();
  const j = Journal.open({ dir, guard: openGuard, io });
  assert.is(j.recovery.createdFile, true);
  assert.is(statSync(join(dir, JOURNAL_FILE)).mode & 0o777, 0o600);
  const ops = calls.map((c) => c.op);
  const created = ops.indexOf("openFile");
  assert.equal(ops.slice(created, created + 3), ["openFile", "fsync", "fsync"]);
  const fileFd = calls[created]?.result;
  const dirFd = calls.find((c) => c.op === "openDirectory")?.result;
  assert.equal(
    calls.slice(created + 1, created + 3).map((c) => c.arg),
    [String(fileFd), String(dirFd)],
  );
  j.close();
});

test("the seat directory must be private: missing, symlink, group/other bits, foreign owner", () => {
  const base = tempSeat();
  const open = (dir: string) => errorCode(() => Journal.open({ dir, guard: openGuard }));
  assert.is(open(join(base, "missing")), "SEAT_DIR_UNSAFE");
  const real = join(base, "real");
  mkdirSync(real, { mode: 0o700 });
  symlinkSync(real, join(base, "link"));
  assert.is(open(join(base, "link")), "SEAT_DIR_UNSAFE");
  const wide = join(base, "wide");
  mkdirSync(wide);
  chmodSync(wide, 0o750);
  assert.is(open(wide), "SEAT_DIR_UNSAFE");
  if (process.geteuid?.() === 0) {
    const foreign = join(base, "foreign");
    mkdirSync(foreign, { mode: 0o700 });
    chownSync(foreign, 1000, 1000);
    assert.is(open(foreign), "SEAT_DIR_UNSAFE");
  } else {
    console.log("SKIP: foreign-owner case needs root to chown");
  }
  try {
    Journal.open({ dir: wide, guard: openGuard });
  } catch (err) {
    assert.ok(err instanceof DeliveryError);
    assert.is(err.context.reason, "mode");
  }
  assert.is(open(real), "no error");
});

test("the journal file must be private: symlink, mode, hard link", () => {
  const a = tempSeat();
  const elsewhere = join(tempSeat(), "x");
  writeFileSync(elsewhere, "", { mode: 0o600 });
  symlinkSync(elsewhere, join(a, JOURNAL_FILE));
  assert.is(
    errorCode(() => Journal.open({ dir: a, guard: openGuard })),
    "JOURNAL_FILE_UNSAFE",
  );
  const b = tempSeat();
  writeFileSync(join(b, JOURNAL_FILE), "", { mode: 0o644 });
  chmodSync(join(b, JOURNAL_FILE), 0o644);
  assert.is(
    errorCode(() => Journal.open({ dir: b, guard: openGuard })),
    "JOURNAL_FILE_UNSAFE",
  );
  const c = tempSeat();
  writeFileSync(join(c, JOURNAL_FILE), "", { mode: 0o600 });
  linkSync(join(c, JOURNAL_FILE), join(c, "second-name"));
  assert.is(
    errorCode(() => Journal.open({ dir: c, guard: openGuard })),
    "JOURNAL_FILE_UNSAFE",
  );
});

test("recovery: fences without consumption evidence become uncertain, durably and only once", () => {
  const dir = tempSeat();
  const j = admitted(dir);
  const [a, b, c, d] = [prompt(), prompt(), prompt(), prompt()];
  j.fence(a);
  j.fence(b);
  j.markDispatched(b.promptId);
  j.fence(c);
  j.markDispatched(c.promptId);
  j.recordConsumption({ promptId: c.promptId, sessionId: c.sessionId, kind: "running-prompt" });
  j.fence(d);
  j.markDispatched(d.promptId);
  j.recordRejection({ promptId: d.promptId, sessionId: d.sessionId, code: -32602, message: "x" });
  j.close(); // as a crash would leave it (close writes nothing)
  const r1 = Journal.open({ dir, guard: openGuard });
  assert.equal(r1.recovery.madeUncertain, [a.promptId, b.promptId]);
  assert.is(r1.receipt(a.promptId)?.uncertainty?.reason, "recovered-fenced");
  assert.is(r1.receipt(b.promptId)?.uncertainty?.reason, "recovered-dispatched");
  assert.is(r1.receipt(c.promptId)?.state, "consumed");
  assert.is(r1.receipt(d.promptId)?.state, "rejected", "a refusal is terminal: not made uncertain");
  assert.is(r1.receipt(d.promptId)?.rejection?.code, -32602);
  r1.close();
  const snapshot = bytesOf(dir);
  const r2 = Journal.open({ dir, guard: openGuard });
  assert.equal(r2.recovery.madeUncertain, []);
  assert.equal(r2.recovery.warnings, []);
  r2.close();
  assert.equal(bytesOf(dir), snapshot, "second recovery changed bytes");
  const r3 = admitted(dir);
  assert.is(r3.epoch, 2);
  assert.is(r3.receipt(d.promptId)?.state, "rejected");
  r3.close();
});

test("a torn tail is quarantined to a private .quarantine file and truncated; never parsed", () => {
  const dir = tempSeat();
  const j = admitted(dir);
  const p = prompt();
  j.fence(p);
  j.close();
  const path = join(dir, JOURNAL_FILE);
  const valid = readFileSync(path).length;
  const torn = encodeRecord({ v: 1, t: "dispatched", id: p.promptId, at: 5 }).subarray(0, 20);
  appendFileSync(path, torn);
  const r = Journal.open({ dir, guard: openGuard });
  const w = r.recovery.warnings[0];
  assert.is(w?.code, "JOURNAL_TAIL_QUARANTINED");
  if (w?.code !== "JOURNAL_TAIL_QUARANTINED") return;
  assert.is(w.reason, "torn");
  assert.is(w.offset, valid);
  assert.equal(readFileSync(w.quarantinePath), Buffer.from(torn));
  assert.is(statSync(w.quarantinePath).mode & 0o777, 0o600);
  const after = readFileSync(path);
  assert.ok(after.subarray(0, valid).equals(readFileSync(path).subarray(0, valid)));
  assert.equal(
    decodeJournal(after.subarray(valid)).lines.map((l) => l.record.t),
    ["uncertain"],
    "after the valid prefix only recovery's own record",
  );
  assert.is(
    r.receipt(p.promptId)?.state,
    "uncertain",
    "the torn dispatched record was not believed",
  );
  r.close();
  const again = Journal.open({ dir, guard: openGuard });
  assert.equal(again.recovery.warnings, []);
  again.close();
});

test("a corrupt line mid-file: everything from it is the tail; a record of another version refuses", () => {
  const dir = tempSeat();
  const j = admitted(dir);
  const ps = [prompt(), prompt(), prompt()];
  for (const p of ps) j.fence(p);
  j.close();
  const path = join(dir, JOURNAL_FILE);
  const bytes = readFileSync(path);
  const lines = bytes.toString("latin1").split("\n");
  const second = (lines[0]?.length ?? 0) + 1 + (lines[1]?.length ?? 0) + 1;
  bytes[second + 30] = (bytes[second + 30] ?? 0) ^ 0x20;
  writeFileSync(path, bytes);
  const r = Journal.open({ dir, guard: openGuard });
  const w = r.recovery.warnings[0];
  assert.is(w?.code, "JOURNAL_TAIL_QUARANTINED");
  if (w?.code === "JOURNAL_TAIL_QUARANTINED") assert.is(w.framedLinesAfter, 1);
  assert.is(r.receipts().length, 1);
  r.close();

  const v = tempSeat();
  const k = admitted(v);
  k.close();
  const json = Buffer.from('{"v":2,"t":"epoch","epoch":9,"pid":1,"at":1}');
  appendFileSync(
    join(v, JOURNAL_FILE),
    Buffer.concat([
      Buffer.from(`${crc32(json).toString(16).padStart(8, "0")} `),
      json,
      Buffer.from("\n"),
    ]),
  );
  const before = readFileSync(join(v, JOURNAL_FILE));
  assert.is(
    errorCode(() => Journal.open({ dir: v, guard: openGuard })),
    "JOURNAL_FILE_UNSAFE",
  );
  assert.equal(
    readFileSync(join(v, JOURNAL_FILE)),
    before,
    "a newer release's journal is left alone",
  );
});

test("stale compaction and quarantine temp files are removed on open", () => {
  const dir = tempSeat();
  admitted(dir).close();
  writeFileSync(join(dir, `${JOURNAL_FILE}.compact`), "half a compaction", { mode: 0o600 });
  const r = Journal.open({ dir, guard: openGuard });
  assert.equal(r.recovery.warnings, [
    { code: "JOURNAL_STALE_TEMP_REMOVED", path: join(dir, `${JOURNAL_FILE}.compact`) },
  ]);
  r.close();
  assert.not.ok(readdirSync(dir).includes(`${JOURNAL_FILE}.compact`));
});

test.run();
