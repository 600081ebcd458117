/**
 * Transcript memory of a long-lived seat (issue 15 "Bounded memory"): one AcpSession (SDK, tap,
 * fence journal, live transcript, reply collector) over an in-memory pipe to a scripted agent
 * that answers every prompt the way Grok does — consumption in `x.ai/queue/changed`, the reply as
 * `agent_message_chunk`s stamped with our prompt id and eventIds, `turn_completed`, the echoing
 * answer — for 10,000 and then 100,000 prompts, each `reply` awaited. Heap after GC, side by side:
 *   - the seat alone, with 4 and with 40 updates per prompt: per-update state would make the
 *     40-update run grow ten times faster; what does grow is the fence journal's receipts;
 *   - the seat plus a listener keeping every `transcript` event (what an orchestrator without
 *     the paged API would hold), for 10,000 prompts: the ratio is what paging saves.
 * No Grok here: the simulator's prompt costs ~ms, so 100,000 turns against it would measure the
 * simulator; this measures what the seat keeps. SEAT_TRANSCRIPT_N overrides the larger count.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AcpSession, AcpSessionEvent } from "../../lib/acp/acp-session.js";
import type { TranscriptEntry } from "../../lib/grok/transcript-entry.js";
import { attach, removeSeatDirs, S, type World, world } from "../../test/acp/memory-seat.js";
import { figure, row } from "./lib/stats.js";

const BIG = Number(process.env.SEAT_TRANSCRIPT_N ?? 100_000);
const SMALL = Math.min(10_000, BIG);
// The journal fsyncs every record; on tmpfs that is free, so 100,000 turns take seconds, not the
// disk's fsync latency times 300,000. Only memory is measured here.
const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
const dirs: string[] = [];
function seatDirOnTmpfs(): string {
  const dir = mkdtempSync(join(base, "seat-transcript-bench-"));
  chmodSync(dir, 0o700);
  dirs.push(dir);
  return dir;
}

function heapMb(): number {
  const g: unknown = Reflect.get(globalThis, "gc");
  if (typeof g === "function") {
    g();
    g();
  }
  return process.memoryUsage().heapUsed / (1024 * 1024);
}

/** A scripted agent answering each prompt with `chunks` reply chunks, Grok's way. */
function grokLike(chunks: number): World {
  let n = 0;
  const w = world(seatDirOnTmpfs());
  w.agent.on("session/prompt", (params) => {
    const id = (params as { _meta: { promptId: string } })._meta.promptId;
    w.agent.notify("_x.ai/queue/changed", { sessionId: S, entries: [], runningPromptId: id });
    for (let i = 0; i < chunks; i++) {
      w.agent.notify("session/update", {
        sessionId: S,
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `piece ${i} of the answer to ${id}; ` },
        },
        _meta: { promptId: id, eventId: `${S}-${++n}` },
      });
    }
    w.agent.notify("_x.ai/session_notification", {
      sessionId: S,
      update: {
        sessionUpdate: "turn_completed",
        prompt_id: id,
        stop_reason: "end_turn",
        usage: { inputTokens: 10, outputTokens: chunks },
      },
      _meta: { eventId: `${S}-${++n}` },
    });
    return { stopReason: "end_turn", _meta: { sessionId: S, promptId: id } };
  });
  return w;
}

interface Run {
  readonly at: Map<number, number>;
  readonly ms: number;
}

async function run(
  chunks: number,
  counts: readonly number[],
  keep: TranscriptEntry[] | null,
): Promise<Run> {
  const w = grokLike(chunks);
  const seat: AcpSession = await attach(w);
  if (keep !== null) {
    seat.on((e: AcpSessionEvent) => {
      if (e.type === "transcript") keep.push(e.entry);
    });
  }
  // The world's own event log and the fake agent's message log are test fixtures, not the seat.
  w.events.length = 0;
  const at = new Map<number, number>([[0, heapMb()]]);
  const started = performance.now();
  const last = Math.max(...counts);
  for (let i = 1; i <= last; i++) {
    const d = await seat.deliver("what changed?");
    const reply = await d.reply;
    if (reply.text.length === 0) throw new Error("empty reply");
    if (i % 500 === 0) {
      w.events.length = 0;
      w.agent.received.length = 0;
      w.pipe.sent.length = 0;
    }
    if (counts.includes(i)) {
      w.events.length = 0;
      w.agent.received.length = 0;
      w.pipe.sent.length = 0;
      at.set(i, heapMb());
    }
  }
  const ms = performance.now() - started;
  seat.close();
  w.controller.release();
  return { at, ms };
}

try {
  const w = [52, 12, 12, 12];
  const four = await run(4, [SMALL, BIG], null);
  const forty = await run(40, [SMALL], null);
  const kept: TranscriptEntry[] = [];
  const keeping = await run(4, [SMALL], kept);
  const growth = (r: Run, n: number): number => (r.at.get(n) ?? 0) - (r.at.get(0) ?? 0);
  console.log(`\nseat heap growth after N prompts (MB, after GC)`);
  console.log(row(["", "N", "MB", "KB/prompt"], w));
  const line = (label: string, r: Run, n: number): void => {
    const g = growth(r, n);
    console.log(row([label, n, g, (g * 1024) / n], w));
  };
  line("seat, 4 updates per prompt", four, SMALL);
  line("seat, 4 updates per prompt", four, BIG);
  line("seat, 40 updates per prompt", forty, SMALL);
  line("seat + a listener keeping every transcript entry", keeping, SMALL);
  console.log(
    `(${kept.length} entries kept; ${BIG} prompts took ${(four.ms / 1000).toFixed(1)} s)`,
  );
  figure("seat.transcript.heap_growth_mb.10k_prompts", growth(four, SMALL), "MB", {
    n: SMALL,
    updatesPerPrompt: 4,
  });
  figure("seat.transcript.heap_growth_mb.100k_prompts", growth(four, BIG), "MB", {
    n: BIG,
    updatesPerPrompt: 4,
  });
  figure("seat.transcript.heap_growth_mb.10k_prompts_40_updates", growth(forty, SMALL), "MB", {
    n: SMALL,
    updatesPerPrompt: 40,
  });
  figure(
    "seat.transcript.keep_all_over_seat_ratio.10k_prompts",
    growth(keeping, SMALL) / Math.max(growth(four, SMALL), 1e-6),
    "x",
    { n: SMALL, keptEntries: kept.length },
  );
} finally {
  removeSeatDirs();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
