// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * Load: 10 seats in one process, the full setup for each (Herdr simulator pane, grok simulator
 * TUI, the leader that TUI spawns, hire() with every proof; all ten hired at once), then rounds
 * in which every seat delivers its prompts back to back, all seats at the same time.
 * - no cross-talk: each leader's own frame log (GROK_SIM_LOG per seat) holds exactly its own
 *   seat's prompt ids, each once, and nothing else of ours;
 * - no lost receipts: every receipt reaches `completed` with a result echoing its own session
 *   and prompt id;
 * - memory bounded: this process's RSS and its heap after a full GC, after hiring and after each
 *   round; the stated caps hold for the growth from after hiring to after the last round (the
 *   journals keep one receipt per prompt until compaction: about 1.3 KiB each).
 */
import { join } from "node:path";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Receipt } from "../../lib/delivery/receipt.js";
import { GrokSeatError } from "../../lib/errors.js";
import type { Seat } from "../../lib/seat/seat.js";
import { recordClaim, scaled } from "../helpers/claims.js";
import { type Stack, startStack } from "../seat/stack.js";
import { hireRetries, hireSeat } from "./fixtures/fault-hire.js";
import { killRunProcesses, newPromptId, prng, promptFrames, within } from "./fixtures/fault-run.js";

const startedAt = Date.now();
const SEATS = 10;
const ROUNDS = scaled(2, 5);
const PROMPTS = scaled(5, 100);
const RSS_CAP_MIB = 64;
const HEAP_CAP_MIB = 16;
const seed = Number(process.env.GROK_SEAT_SEED ?? Date.now() % 2 ** 31);
const MiB = 1024 * 1024;

// A full collection before each measurement, so the numbers are what is retained.
v8.setFlagsFromString("--expose-gc");
const gc: unknown = runInNewContext("gc");

function settledMemory(): { rss: number; heap: number } {
  if (typeof gc === "function") {
    gc();
    gc();
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

interface Hired {
  readonly seat: Seat;
  readonly logPath: string;
  readonly ids: string[];
}

/**
 * Ten hires at once queue in the Herdr simulator, which runs requests one at a time and spawns
 * every pane through tmux (far slower than Herdr's own fork and exec): on a loaded 2-core machine
 * a read waits behind the others' launches for longer than the client's 5 s default. The launch
 * itself waits `requestMs` (lib/seat/steps/launch.ts); the reads get the same here.
 */
function hireOne(stack: Stack, logPath: string): Promise<Seat> {
  return hireSeat(
    stack.options({
      env: { GROK_SIM_LOG: logPath },
      herdr: { socketPath: stack.herdr.socketPath, timeoutMs: 60_000 },
      timeouts: { leaderMs: 60_000, activeSessionMs: 60_000, agentMs: 60_000, requestMs: 60_000 },
    }),
  );
}

test("10 seats deliver at once: no cross-talk, no lost receipt, memory bounded", async () => {
  const rng = prng(seed);
  let stack: Stack | null = null;
  const hired: Hired[] = [];
  const counts = {
    seats: SEATS,
    rounds: ROUNDS,
    promptsPerSeatPerRound: PROMPTS,
    prompts: 0,
    completed: 0,
    crossTalk: 0,
    duplicateFrames: 0,
    missingFrames: 0,
    lostReceipts: 0,
    rssAfterHireMiB: 0,
    rssAfterLastRoundMiB: 0,
    rssGrowthMiB: 0,
    rssCapMiB: RSS_CAP_MIB,
    heapAfterHireMiB: 0,
    heapAfterLastRoundMiB: 0,
    heapGrowthMiB: 0,
    heapCapMiB: HEAP_CAP_MIB,
    gcExposed: typeof gc === "function" ? 1 : 0,
    hireRetries: 0,
  };
  const perRound: string[] = [];
  let held = false;
  try {
    stack = await startStack();
    const s = stack;
    // All ten hires at once, too: ten TUIs and leaders start together on two cores.
    hired.push(
      ...(await Promise.all(
        Array.from({ length: SEATS }, async (_, i) => {
          const logPath = join(s.runtimeBase, `load-seat-${i}.log`);
          const seat = await hireOne(s, logPath);
          return { seat, logPath, ids: [] };
        }),
      )),
    );
    const before = settledMemory();
    let after = before;
    for (let round = 0; round < ROUNDS; round++) {
      // Every seat delivers its prompts back to back, all seats at once; they queue per session.
      const deliveries = await Promise.all(
        hired.map(async (h, n) => {
          const out = [];
          for (let i = 0; i < PROMPTS; i++) {
            const id = newPromptId();
            h.ids.push(id);
            const text = `seat ${n} round ${round} prompt ${i}: ${rng.words(rng.int(1, 20))}`;
            out.push(await h.seat.deliver(text, { promptId: id }));
          }
          return out;
        }),
      );
      const all = deliveries.flat();
      counts.prompts += all.length;
      const results = await Promise.all(all.map((d) => within(d.completed, 120_000)));
      for (const [i, r] of results.entries()) {
        if (r === "timeout" || r.state !== "completed" || r.promptId !== all[i]?.promptId) {
          counts.lostReceipts += 1;
        } else counts.completed += 1;
      }
      after = settledMemory();
      perRound.push(`${Math.round(after.rss / MiB)}/${Math.round(after.heap / MiB)}`);
    }
    counts.rssAfterHireMiB = Math.round(before.rss / MiB);
    counts.rssAfterLastRoundMiB = Math.round(after.rss / MiB);
    counts.rssGrowthMiB = Math.round((10 * (after.rss - before.rss)) / MiB) / 10;
    counts.heapAfterHireMiB = Math.round(before.heap / MiB);
    counts.heapAfterLastRoundMiB = Math.round(after.heap / MiB);
    counts.heapGrowthMiB = Math.round((10 * (after.heap - before.heap)) / MiB) / 10;
    for (const h of hired) {
      const frames = promptFrames(h.logPath);
      const own = new Set(h.ids);
      counts.crossTalk += frames.filter((f) => !own.has(f.promptId)).length;
      for (const id of h.ids) {
        const n = frames.filter((f) => f.promptId === id).length;
        if (n === 0) counts.missingFrames += 1;
        if (n > 1) counts.duplicateFrames += n - 1;
        const r: Receipt | undefined = h.seat.receipt(id);
        if (r?.sessionId !== h.seat.sessionId) counts.crossTalk += 1;
      }
      assert.ok(
        frames.every((f) => f.pid === h.seat.record.leader.pid),
        "each log was written by its own leader",
      );
    }
    assert.is(counts.crossTalk, 0, "no prompt reached another seat's leader");
    assert.is(counts.missingFrames, 0);
    assert.is(counts.duplicateFrames, 0);
    assert.is(counts.lostReceipts, 0, "every receipt completed");
    assert.is(counts.completed, SEATS * PROMPTS * ROUNDS);
    assert.ok(
      after.rss - before.rss <= RSS_CAP_MIB * MiB,
      `RSS grew ${counts.rssGrowthMiB} MiB (cap ${RSS_CAP_MIB} MiB)`,
    );
    assert.ok(
      after.heap - before.heap <= HEAP_CAP_MIB * MiB,
      `the heap after GC grew ${counts.heapGrowthMiB} MiB (cap ${HEAP_CAP_MIB} MiB)`,
    );
    held = true;
  } catch (err) {
    // uvu formats `details` as a string: a GrokSeatError's details object would hide the failure.
    if (err instanceof GrokSeatError) {
      throw new Error(`${err.code}: ${err.message} ${JSON.stringify(err.context)}`);
    }
    throw err;
  } finally {
    counts.hireRetries = hireRetries.launcherRace;
    for (const h of hired) await h.seat.release().catch(() => undefined);
    if (stack !== null) await killRunProcesses(stack);
    await stack?.cleanup();
    recordClaim(
      {
        id: "load-10-seats",
        title: "10 seats at once",
        claim:
          `${SEATS} seats in one process (each a real Herdr-simulator pane, grok-simulator TUI ` +
          `and leader, all hired at once), ${ROUNDS} rounds of ${PROMPTS} prompts per seat ` +
          `delivered concurrently: ${counts.crossTalk} prompts at another seat's leader, ` +
          `${counts.completed}/${counts.prompts} receipts completed (${counts.lostReceipts} ` +
          `lost), ${counts.duplicateFrames} duplicate frames; after GC, RSS ` +
          `${counts.rssAfterHireMiB} → ${counts.rssAfterLastRoundMiB} MiB (+${counts.rssGrowthMiB}, ` +
          `cap +${RSS_CAP_MIB}) and heap ${counts.heapAfterHireMiB} → ` +
          `${counts.heapAfterLastRoundMiB} MiB (+${counts.heapGrowthMiB}, cap +${HEAP_CAP_MIB}); ` +
          `per round RSS/heap MiB: ${perRound.join(", ")}.`,
        counts,
        held,
        seeds: [seed],
        method:
          "hire() ×10 at once against one Herdr simulator, Seat.deliver() from all seats at " +
          "once, per-leader frame logs (GROK_SIM_LOG) as the oracle of where each prompt went, " +
          "process.memoryUsage() after a full GC (v8 --expose-gc) after hiring and after each " +
          "round; a hire refused by the Herdr simulator's launcher race is retried (counted: " +
          "hireRetries)",
      },
      startedAt,
    );
  }
});

test.run();
