/**
 * Load: 10 seats in one process, the full setup for each (Herdr simulator pane, grok simulator
 * TUI, the leader that TUI spawns, hire() with every proof), all delivering prompts at once.
 * - no cross-talk: each leader's own frame log (GROK_SIM_LOG per seat) holds exactly its own
 *   seat's prompt ids, each once;
 * - no lost receipts: every receipt reaches `completed` with a result echoing its own session
 *   and prompt id;
 * - memory bounded: this process's RSS after the deliveries stays within a stated cap of the RSS
 *   after hiring (the journals, receipts and taps of 10 seats).
 */
import { join } from "node:path";
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
const PROMPTS = scaled(5, 100);
const RSS_CAP_MIB = 64;
const seed = Number(process.env.GROK_SEAT_SEED ?? Date.now() % 2 ** 31);
const MiB = 1024 * 1024;

interface Hired {
  readonly seat: Seat;
  readonly logPath: string;
  readonly ids: string[];
}

test("10 seats deliver at once: no cross-talk, no lost receipt, memory bounded", async () => {
  const rng = prng(seed);
  let stack: Stack | null = null;
  const hired: Hired[] = [];
  const counts = {
    seats: SEATS,
    promptsPerSeat: PROMPTS,
    prompts: 0,
    completed: 0,
    crossTalk: 0,
    duplicateFrames: 0,
    missingFrames: 0,
    lostReceipts: 0,
    rssBeforeMiB: 0,
    rssAfterMiB: 0,
    rssGrowthMiB: 0,
    rssCapMiB: RSS_CAP_MIB,
    hireRetries: 0,
  };
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
    const rssBefore = process.memoryUsage().rss;
    // Every seat delivers its prompts back to back, all seats at once; they queue in each session.
    const deliveries = await Promise.all(
      hired.map(async (h, n) => {
        const out = [];
        for (let i = 0; i < PROMPTS; i++) {
          const id = newPromptId();
          h.ids.push(id);
          out.push(
            await h.seat.deliver(`seat ${n} prompt ${i}: ${rng.words(rng.int(1, 20))}`, {
              promptId: id,
            }),
          );
        }
        return out;
      }),
    );
    const all = deliveries.flat();
    counts.prompts = all.length;
    const results = await Promise.all(all.map((d) => within(d.completed, 120_000)));
    for (const [i, r] of results.entries()) {
      const d = all[i];
      if (r === "timeout" || r.state !== "completed" || r.promptId !== d?.promptId) {
        counts.lostReceipts += 1;
        continue;
      }
      counts.completed += 1;
    }
    const rssAfter = process.memoryUsage().rss;
    counts.rssBeforeMiB = Math.round(rssBefore / MiB);
    counts.rssAfterMiB = Math.round(rssAfter / MiB);
    counts.rssGrowthMiB = Math.round((rssAfter - rssBefore) / MiB);
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
    assert.is(counts.completed, SEATS * PROMPTS);
    assert.ok(
      rssAfter - rssBefore <= RSS_CAP_MIB * MiB,
      `RSS grew ${counts.rssGrowthMiB} MiB (cap ${RSS_CAP_MIB} MiB)`,
    );
    held = true;
  } catch (err) {
    // uvu formats `details` as a string: a GrokSeatError's details object would hide the failure.
    if (err instanceof GrokSeatError) {
      throw new Error(`${err.code}: ${err.message} ${JSON.stringify(err.details)}`);
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
          `and leader, full hire), ${PROMPTS} prompts each delivered concurrently: ` +
          `${counts.crossTalk} prompts at another seat's leader, ${counts.completed}/` +
          `${counts.prompts} receipts completed (${counts.lostReceipts} lost), ` +
          `${counts.duplicateFrames} duplicate frames; RSS ${counts.rssBeforeMiB} → ` +
          `${counts.rssAfterMiB} MiB (+${counts.rssGrowthMiB} MiB, cap +${RSS_CAP_MIB} MiB).`,
        counts,
        held,
        seeds: [seed],
        method:
          "hire() ×10 against one Herdr simulator, Seat.deliver() from all seats at once, " +
          "per-leader frame logs (GROK_SIM_LOG) as the oracle of where each prompt went, " +
          "process.memoryUsage().rss before and after the deliveries; a hire refused by the " +
          "Herdr simulator's launcher race is retried (counted: hireRetries)",
      },
      startedAt,
    );
  }
});

function hireOne(stack: Stack, logPath: string): Promise<Seat> {
  return hireSeat(
    stack.options({
      env: { GROK_SIM_LOG: logPath },
      timeouts: { leaderMs: 60_000, activeSessionMs: 60_000, agentMs: 60_000, requestMs: 60_000 },
    }),
  );
}

test.run();
