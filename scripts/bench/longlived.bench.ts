/**
 * A long-lived seat (issue 19 "Performance"): what a seat that runs for weeks costs, after 10,000
 * and 100,000 prompts, each a whole lifecycle (fence, dispatched, consumed, completed):
 * 1. its journal's bytes on disk, and the time to reopen it (read, checksum, parse, replay: the
 *    cost of a resume or a restart). The journal is written through `Journal` itself, as the seat
 *    writes it, so its automatic compaction (journal.ts DEFAULT_COMPACT_ABOVE_BYTES) runs as it
 *    would; only fsync is a no-op while building it (100,000 fsyncs would take minutes and change
 *    no byte). The reopens use the real file system, fsync included.
 * 2. The same journal without compaction (every line ever written, as an earlier release left
 *    it), reopened with compaction off; and after `Journal.compact()` (the snapshot alone: the
 *    first open of (2) with compaction on writes it).
 * Names: `longlived.seat_*` are (1); `longlived.journal_bytes_N` / `reopen_ms_N` keep their earlier
 * meaning, (2) without compaction; `*_compacted_*` the snapshot alone.
 * 3. Transcript memory of a seat after the same prompts: measured where the seat's transcript is
 *    kept (scripts/bench/seat-transcript.bench.ts).
 */
import { Buffer } from "node:buffer";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireControllerLock } from "../../lib/delivery/admission.js";
import { encodeRecord } from "../../lib/delivery/codec.js";
import { Journal } from "../../lib/delivery/journal.js";
import { JOURNAL_FILE, type JournalIO, nodeJournalIO } from "../../lib/delivery/journal-io.js";
import { figure, row, summarize } from "./lib/stats.js";

const SIZES = [10_000, 100_000];
const SESSION = "0198c0de-1234-7000-8000-00000000abcd";
const LEADER = "linux-pidfs:2c9e6b4e-6a0b-4c6f-9f3e-1d2a3b4c5d6e:123456";
const PANE = "herdr:session-3:pane-12:/dev/pts/7";
const WIDTHS = [10, 12, 12, 16, 14, 14, 14];
/** The real file system with fsync a no-op: only for building the journal quickly. */
const BUILD_IO: JournalIO = { ...nodeJournalIO, fsync: () => {} };

function uuid(n: number): string {
  return `5f0c0000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/** The journal of `prompts` finished prompts, as the seat writes it. */
function journalImage(prompts: number): Buffer {
  const records: Buffer[] = [encodeRecord({ v: 1, t: "epoch", epoch: 1, pid: 1, at: 1 })];
  for (let i = 0; i < prompts; i++) {
    const id = uuid(i + 1);
    const at = 1_760_000_000_000 + i;
    records.push(
      encodeRecord({
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
      }),
      encodeRecord({ v: 1, t: "dispatched", id, at }),
      encodeRecord({ v: 1, t: "consumed", id, at, kind: "queue-entry" }),
      encodeRecord({ v: 1, t: "completed", id, at, ch: "rpc-response", stop: "end_turn" }),
    );
  }
  return Buffer.concat(records);
}

/** Write `prompts` whole lifecycles through `Journal`, as a seat does (automatic compaction on). */
function seatJournal(dir: string, prompts: number): void {
  const lock = acquireControllerLock(dir);
  const j = Journal.open({ dir, guard: lock, io: BUILD_IO });
  j.beginEpoch();
  for (let i = 0; i < prompts; i++) {
    const promptId = uuid(i + 1);
    j.fence({ promptId, sessionId: SESSION, leader: LEADER, pane: PANE, text: `prompt ${i}` });
    j.markDispatched(promptId);
    j.recordConsumption({ promptId, sessionId: SESSION, kind: "queue-entry" });
    j.recordResult({
      promptId,
      sessionId: SESSION,
      channel: "rpc-response",
      stopReason: "end_turn",
    });
  }
  j.close();
  lock.release();
}

/** Reopen the journal in `dir` `n` times: wall ms of each open (recovery included). */
function reopenMs(
  dir: string,
  n: number,
  expectRecords: number | null,
  compactAboveBytes?: number,
): number[] {
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const lock = acquireControllerLock(dir);
    const t0 = process.hrtime.bigint();
    const j = Journal.open(
      compactAboveBytes === undefined
        ? { dir, guard: lock }
        : { dir, guard: lock, compactAboveBytes },
    );
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (expectRecords !== null && j.recovery.records !== expectRecords) {
      throw new Error(`recovered ${j.recovery.records} records, expected ${expectRecords}`);
    }
    j.close();
    lock.release();
  }
  return out;
}

const root = mkdtempSync(join(tmpdir(), "grok-seat-bench-longlived-"));
chmodSync(root, 0o700);
try {
  process.stdout.write("\na long-lived seat's journal after N prompts (whole lifecycles)\n");
  process.stdout.write(
    `${row(["prompts", "seat MB", "reopen ms", "uncompacted MB", "reopen ms", "snapshot MB", "reopen ms"], WIDTHS)}\n`,
  );
  for (const prompts of SIZES) {
    const runs = prompts >= 100_000 ? 3 : 5;
    // 1. The seat's own journal.
    const seatDir = mkdtempSync(join(root, "seat-"));
    chmodSync(seatDir, 0o700);
    seatJournal(seatDir, prompts);
    const seatBytes = statSync(join(seatDir, JOURNAL_FILE)).size;
    const seat = summarize(reopenMs(seatDir, runs, null));
    if (statSync(join(seatDir, JOURNAL_FILE)).size !== seatBytes) {
      throw new Error("reopening the seat's journal changed it");
    }
    rmSync(seatDir, { recursive: true, force: true });
    // 2. Without compaction, then the snapshot alone.
    const dir = mkdtempSync(join(root, "seat-"));
    chmodSync(dir, 0o700);
    const path = join(dir, JOURNAL_FILE);
    writeFileSync(path, journalImage(prompts), { mode: 0o600 });
    const bytes = statSync(path).size;
    const open = summarize(reopenMs(dir, runs, 1 + 4 * prompts, Number.POSITIVE_INFINITY));
    const lock = acquireControllerLock(dir);
    const j = Journal.open({ dir, guard: lock, compactAboveBytes: Number.POSITIVE_INFINITY });
    j.compact();
    j.close();
    lock.release();
    const compactedBytes = statSync(path).size;
    const reopened = summarize(reopenMs(dir, runs, null));
    rmSync(dir, { recursive: true, force: true });
    figure(`longlived.seat_journal_bytes_${prompts}`, seatBytes, "bytes", { prompts });
    figure(`longlived.seat_reopen_ms_${prompts}`, seat.median, "ms", { prompts, max: seat.max });
    figure(`longlived.journal_bytes_${prompts}`, bytes, "bytes", { prompts });
    figure(`longlived.reopen_ms_${prompts}`, open.median, "ms", {
      prompts,
      max: open.max,
    });
    figure(`longlived.journal_bytes_compacted_${prompts}`, compactedBytes, "bytes", { prompts });
    figure(`longlived.reopen_compacted_ms_${prompts}`, reopened.median, "ms", {
      prompts,
      max: reopened.max,
    });
    process.stdout.write(
      `${row([prompts, seatBytes / 1e6, seat.median, bytes / 1e6, open.median, compactedBytes / 1e6, reopened.median], WIDTHS)}\n`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
