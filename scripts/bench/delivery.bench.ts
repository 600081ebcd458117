/**
 * Delivery journal costs, side by side with what a caller would otherwise do (raw append + fsync):
 * 1. fence + dispatched per prompt vs one raw `write` + `fsync` of a line of the same size, on the
 *    same disk, interleaved prompt by prompt so both see the same device state, in five rounds
 *    whose worst ratio is a figure (target <= 1.5x in every round);
 *    plus the whole `dispatch()` with a no-op sender;
 * 2. recovery time of a 100,000-record journal (target < 1 s), and its compaction;
 * 3. journal bytes per prompt (fence + dispatched, full lifecycle, and after compaction).
 */
import { Buffer } from "node:buffer";
import {
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireControllerLock, admitController } from "../../lib/delivery/admission.js";
import { encodeRecord } from "../../lib/delivery/codec.js";
import { dispatch } from "../../lib/delivery/dispatch.js";
import { Journal } from "../../lib/delivery/journal.js";
import { JOURNAL_FILE, nodeJournalIO } from "../../lib/delivery/journal-io.js";
import type { JournalRecord } from "../../lib/delivery/journal-record.js";
import { figure, row, summarize } from "./lib/stats.js";

const ITERATIONS = 500;
const WIDTHS = [44, 10, 10, 10];

const root = mkdtempSync(join(tmpdir(), "grok-seat-bench-delivery-"));
chmodSync(root, 0o700);
const dev = statSync(root).dev;

function uuid(n: number): string {
  return `5f0c${String(n).padStart(4, "0")}-0000-4000-8000-${String(n).padStart(12, "0")}`;
}
const SESSION = "0198c0de-1234-7000-8000-00000000abcd";
const LEADER = "linux-pidfs:2c9e6b4e-6a0b-4c6f-9f3e-1d2a3b4c5d6e:123456";
const PANE = "herdr:session-3:pane-12:/dev/pts/7";

try {
  // 1. Fence + dispatched vs raw write + fsync.
  const seatDir = mkdtempSync(join(root, "seat-"));
  chmodSync(seatDir, 0o700);
  const controller = admitController({ seatDir });
  const j = controller.journal;
  const rawPath = join(root, "raw.log");
  const rawFd = openSync(
    rawPath,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
    0o600,
  );
  const sampleLine = encodeRecord({
    v: 1,
    t: "fence",
    id: uuid(1),
    sid: SESSION,
    leader: LEADER,
    pane: PANE,
    sha256: "0".repeat(64),
    len: 100,
    epoch: 1,
    at: Date.now(),
  });
  const raw: number[] = [];
  const ours: number[] = [];
  const whole: number[] = [];
  let n = 0;
  const time = (f: () => unknown): number => {
    const t0 = process.hrtime.bigint();
    f();
    return Number(process.hrtime.bigint() - t0) / 1000;
  };
  for (let i = 0; i < 20; i++) {
    writeSync(rawFd, sampleLine);
    fsyncSync(rawFd);
    j.fence({
      promptId: uuid(++n),
      sessionId: SESSION,
      leader: LEADER,
      pane: PANE,
      text: "warm-up",
    });
    j.markDispatched(uuid(n));
  }
  const text = "Please review the failing test in lib/delivery and explain the fix. ".repeat(3);
  // Two orders, both with every variant on the same disk in the same minute:
  // - blocks: 50 raw, 50 fence+dispatched, 50 dispatch(), repeated (each variant runs warm);
  // - interleaved: raw, fence+dispatched, dispatch() prompt by prompt (each runs cold, right after
  //   the others' syscalls, as a controller whose prompts are seconds apart would).
  const rawI: number[] = [];
  const oursI: number[] = [];
  const fenceOnce = (): void => {
    const id = uuid(++n);
    j.fence({ promptId: id, sessionId: SESSION, leader: LEADER, pane: PANE, text });
    j.markDispatched(id);
  };
  const rawOnce = (): void => {
    writeSync(rawFd, sampleLine);
    fsyncSync(rawFd);
  };
  for (let b = 0; b < ITERATIONS / 50; b++) {
    for (let i = 0; i < 50; i++) raw.push(time(rawOnce));
    for (let i = 0; i < 50; i++) ours.push(time(fenceOnce));
    for (let i = 0; i < 50; i++) {
      const id = uuid(++n);
      const t0 = process.hrtime.bigint();
      await dispatch(
        j,
        { promptId: id, sessionId: SESSION, leader: LEADER, pane: PANE, text },
        async () => {},
      );
      whole.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }
  // Five interleaved rounds: issue 19 asks for <= 1.5x in every run, so the spread is reported.
  const rounds: number[] = [];
  for (let k = 0; k < 5; k++) {
    const rk: number[] = [];
    const ok: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      rk.push(time(rawOnce));
      ok.push(time(fenceOnce));
    }
    rawI.push(...rk);
    oursI.push(...ok);
    rounds.push(summarize(ok).median / summarize(rk).median);
  }
  closeSync(rawFd);
  const r = summarize(raw);
  const o = summarize(ours);
  const w = summarize(whole);
  const ri = summarize(rawI);
  const oi = summarize(oursI);
  console.log(
    `\nfence + dispatched vs raw append + fsync (${raw.length} each, same disk, dev ${dev}), microseconds`,
  );
  console.log(row(["", "median", "p99", "mean"], WIDTHS));
  console.log(row(["raw write + fsync (one line)", r.median, r.p99, r.mean], WIDTHS));
  console.log(row(["journal fence (fsync) + dispatched", o.median, o.p99, o.mean], WIDTHS));
  console.log(row(["dispatch() with a no-op sender", w.median, w.p99, w.mean], WIDTHS));
  console.log(row(["interleaved: raw write + fsync", ri.median, ri.p99, ri.mean], WIDTHS));
  console.log(row(["interleaved: fence + dispatched", oi.median, oi.p99, oi.mean], WIDTHS));
  const ratio = o.median / r.median;
  const ratioI = oi.median / ri.median;
  console.log(
    `ratio fence+dispatched / raw: ${ratio.toFixed(2)}x in blocks, ${ratioI.toFixed(2)}x interleaved (target <= 1.5x)`,
  );
  figure("delivery.raw_write_fsync_us", r.median, "us", { p99: r.p99 });
  figure("delivery.fence_dispatched_us", o.median, "us", { p99: o.p99 });
  figure("delivery.dispatch_noop_send_us", w.median, "us", { p99: w.p99 });
  figure("delivery.fence_dispatched_vs_raw", ratio, "x", { target: 1.5, order: "blocks" });
  figure("delivery.fence_dispatched_vs_raw_interleaved", ratioI, "x", {
    target: 1.5,
    order: "interleaved",
  });
  console.log(
    `interleaved, five rounds of ${ITERATIONS}: ${rounds.map((x) => `${x.toFixed(2)}x`).join(", ")} (spread ${Math.min(...rounds).toFixed(2)}-${Math.max(...rounds).toFixed(2)}x)`,
  );
  figure("delivery.fence_dispatched_vs_raw.worst_of_5", Math.max(...rounds), "x", {
    target: 1.5,
    rounds,
    best: Math.min(...rounds),
  });

  // Our own CPU per fence + dispatched, the fsync taken out (a JournalIO whose fsync is a no-op):
  // what the journal adds on top of the one fsync a raw append would pay anyway.
  const cpuSeat = mkdtempSync(join(root, "cpu-"));
  chmodSync(cpuSeat, 0o700);
  const noSync = Journal.open({
    dir: cpuSeat,
    guard: { assertHeld() {} },
    io: { ...nodeJournalIO, fsync: () => {} },
  });
  noSync.beginEpoch();
  const cpu: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const id = uuid(++n);
    const us = time(() => {
      noSync.fence({ promptId: id, sessionId: SESSION, leader: LEADER, pane: PANE, text });
      noSync.markDispatched(id);
    });
    if (i >= 1000) cpu.push(us);
  }
  noSync.close();
  const c = summarize(cpu);
  console.log(row(["  our overhead without the fsync", c.median, c.p99, c.mean], WIDTHS));
  console.log(
    `overhead / raw fsync+write: ${(c.median / r.median).toFixed(2)} (so ${(1 + c.median / r.median).toFixed(2)}x when the disk is the only cost)`,
  );
  figure("delivery.fence_dispatched_overhead_us", c.median, "us", { p99: c.p99 });

  // 3. Bytes per prompt: a whole lifecycle, and what compaction leaves.
  const before = statSync(join(seatDir, JOURNAL_FILE)).size;
  const lifecycles = 200;
  for (let i = 0; i < lifecycles; i++) {
    const id = uuid(++n);
    j.fence({ promptId: id, sessionId: SESSION, leader: LEADER, pane: PANE, text });
    j.markDispatched(id);
    j.recordConsumption({ promptId: id, sessionId: SESSION, kind: "queue-entry" });
    j.recordResult({
      promptId: id,
      sessionId: SESSION,
      channel: "rpc-response",
      stopReason: "end_turn",
    });
  }
  const lifecycleBytes = (statSync(join(seatDir, JOURNAL_FILE)).size - before) / lifecycles;
  const fenceDispatched =
    encodeRecord({
      v: 1,
      t: "fence",
      id: uuid(1),
      sid: SESSION,
      leader: LEADER,
      pane: PANE,
      sha256: "0".repeat(64),
      len: text.length,
      epoch: 1,
      at: Date.now(),
    }).length + encodeRecord({ v: 1, t: "dispatched", id: uuid(1), at: Date.now() }).length;
  // Compaction reduces every finished prompt to one tombstone line (its id stays refused).
  const tombstone = encodeRecord({
    v: 1,
    t: "compacted",
    id: uuid(1),
    state: "completed",
    at: Date.now(),
  }).length;
  j.compact();
  controller.release();
  console.log("\njournal bytes per prompt");
  console.log(row(["", "bytes", "", ""], WIDTHS));
  console.log(row(["fence + dispatched", fenceDispatched, "", ""], WIDTHS));
  console.log(row(["fence, dispatched, consumed, completed", lifecycleBytes, "", ""], WIDTHS));
  console.log(row(["finished prompt after compaction (tombstone)", tombstone, "", ""], WIDTHS));
  figure("delivery.bytes_fence_dispatched", fenceDispatched, "bytes");
  figure("delivery.bytes_per_prompt_lifecycle", lifecycleBytes, "bytes");
  figure("delivery.bytes_per_prompt_compacted", tombstone, "bytes");

  // 2. Recovery of a 100,000-record journal (25,000 finished prompts x 4 records).
  const records: Buffer[] = [encodeRecord({ v: 1, t: "epoch", epoch: 1, pid: 1, at: 1 })];
  for (let i = 0; records.length < 100_000; i++) {
    const id = uuid(100_000 + i);
    const at = 1_760_000_000_000 + i;
    const recs: JournalRecord[] = [
      {
        v: 1,
        t: "fence",
        id,
        sid: SESSION,
        leader: LEADER,
        pane: PANE,
        sha256: "a".repeat(64),
        len: 200,
        epoch: 1,
        at,
      },
      { v: 1, t: "dispatched", id, at },
      { v: 1, t: "consumed", id, at, kind: "queue-entry" },
      { v: 1, t: "completed", id, at, ch: "rpc-response", stop: "end_turn" },
    ];
    for (const rec of recs) if (records.length < 100_000) records.push(encodeRecord(rec));
  }
  const image = Buffer.concat(records);
  const big = mkdtempSync(join(root, "big-"));
  chmodSync(big, 0o700);
  const recoveries: number[] = [];
  const recoveryCpu: number[] = [];
  const compactions: number[] = [];
  for (let k = 0; k < 5; k++) {
    writeFileSync(join(big, JOURNAL_FILE), image, { mode: 0o600 });
    const lock = acquireControllerLock(big);
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const journal = Journal.open({ dir: big, guard: lock });
    recoveries.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    recoveryCpu.push((c.user + c.system) / 1000);
    if (journal.recovery.records !== 100_000)
      throw new Error(`recovered ${journal.recovery.records} records`);
    const t1 = process.hrtime.bigint();
    journal.compact();
    compactions.push(Number(process.hrtime.bigint() - t1) / 1e6);
    journal.close();
    lock.release();
  }
  const rec = summarize(recoveries);
  const recCpu = summarize(recoveryCpu);
  const comp = summarize(compactions);
  console.log(
    `\nrecovery of a 100,000-record journal (${(image.length / 1e6).toFixed(1)} MB, 25,000 prompts), milliseconds`,
  );
  console.log(row(["", "median", "max", "mean"], WIDTHS));
  console.log(
    row(["open + recover (read, checksum, parse, replay)", rec.median, rec.max, rec.mean], WIDTHS),
  );
  console.log(
    row(["  of which CPU (user + system)", recCpu.median, recCpu.max, recCpu.mean], WIDTHS),
  );
  console.log(
    row(["compact to tombstones (write, fsync, rename)", comp.median, comp.max, comp.mean], WIDTHS),
  );
  figure("delivery.recover_100k_records_ms", rec.median, "ms", {
    max: rec.max,
    target: 1000,
    bytes: image.length,
  });
  figure("delivery.recover_100k_records_cpu_ms", recCpu.median, "ms", { max: recCpu.max });
  figure("delivery.compact_100k_records_ms", comp.median, "ms", { max: comp.max });
} finally {
  rmSync(root, { recursive: true, force: true });
}
