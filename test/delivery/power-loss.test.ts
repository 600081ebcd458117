/**
 * T2 (docs/design/reliability-plan.md §6): simulated power loss through the injectable JournalIO.
 *
 * A workload (prompts that complete, get cancelled, lose their connection, fail to send, and
 * compactions) runs once on a recording file system. Every mutating call is a crash point; at each
 * one we materialise what a power cut may leave (sim-fs.ts): everything fsynced kept, any prefix of
 * later file writes with the last one torn anywhere (cut short, or zero-filled to full length), any
 * prefix of unsynced directory operations. Each state is recovered twice (the second must change
 * nothing, byte for byte), then the workload is finished against the leader as the cut left it.
 *
 * Invariants: every prompt the leader received, and every prompt acknowledged to the caller, has a
 * receipt after recovery; no receipt is left fenced/dispatched; no prompt id reaches the leader
 * twice; an uncertain prompt is never resent, and late evidence reconciles every one the leader did
 * receive; epochs grow. Exhaustive for a small workload, sampled with fast-check for a larger one.
 * The full run (GROK_SEAT_RELIABILITY=full, or GROK_SEAT_SOAK=1) raises the sample count and cuts
 * every recovery that has work. The figures are recorded as the claims T2-power-loss (exhaustive,
 * sampled and nested) and T2-power-loss-refusals.
 */
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Journal, type JournalGuard } from "../../lib/delivery/journal.js";
import { isTerminal } from "../../lib/delivery/receipt.js";
import { recordClaim } from "../helpers/claims.js";
import { crashPlan, driveWorkload, SESSION_ID, type Step } from "../helpers/crash-plan.js";
import { caught, guarded, sentence, soakScaled } from "./claim-run.js";
import {
  applyDirOps,
  type CrashPoint,
  type InodeChoice,
  inodeChoices,
  materialize,
  SimFS,
} from "./sim-fs.js";
import { SimLeader } from "./sim-leader.js";

const DIR = "/sim/seat";
const guard: JournalGuard = { assertHeld() {} };

interface Recorded {
  readonly points: readonly CrashPoint[];
  readonly log: readonly string[];
}

function clock(): () => number {
  let t = 1_760_000_000_000;
  return () => t++;
}

/** Journal options of a phase: the automatic-compaction phase sets a small threshold. */
type Extra = { readonly compactAboveBytes?: number };

async function record(plan: readonly Step[], extra: Extra = {}): Promise<Recorded> {
  const fs = new SimFS(DIR);
  const leader = new SimLeader((e, id) => fs.note(`${e}:${id}`));
  const journal = Journal.open({ dir: DIR, guard, io: fs, now: clock(), pid: 4242, ...extra });
  journal.beginEpoch();
  await driveWorkload(journal, plan, () => leader.connect(), {
    acked: (id) => fs.note(`acked:${id}`),
    refused: (id, code) => assert.unreachable(`record run refused ${id}: ${code}`),
  });
  journal.close();
  return { points: fs.points, log: fs.log };
}

const totals = {
  states: 0,
  distinct: 0,
  sentAtCut: 0,
  uncertainAfterRecovery: 0,
  reconciled: 0,
  quarantined: 0,
};

/**
 * What the exhaustive, sampled and nested phases measured, for the claim T2-power-loss that the
 * last of them records (with the failures of all three).
 */
const startedAt = Date.now();
const failures: string[] = [];
const figures: Record<string, number> = {};
const phrases: string[] = [];
const seeds: number[] = [];
const METHOD =
  "The journal runs on the injectable JournalIO over a recording file system " +
  "(test/delivery/sim-fs.ts); every mutating call is a crash point, and each state a power cut " +
  "may leave there is materialised: everything fsynced kept, any prefix of later file writes " +
  "with the last one torn (cut at any byte or 512-byte boundary, or zero-filled to full length), " +
  "any prefix of unsynced directory operations. Each state is recovered twice (the second must " +
  "change no byte) and ";

function idsOf(log: readonly string[], kind: string): string[] {
  return log.filter((e) => e.startsWith(`${kind}:`)).map((e) => e.slice(kind.length + 1));
}

function filesEqual(a: Map<string, Uint8Array>, b: Map<string, Uint8Array>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, bytes] of a) {
    const other = b.get(name);
    if (other === undefined || Buffer.compare(Buffer.from(bytes), Buffer.from(other)) !== 0)
      return false;
  }
  return true;
}

/** Recover one crash state twice, finish the workload, and check every invariant. */
async function checkState(
  plan: readonly Step[],
  rec: Recorded,
  p: CrashPoint,
  files: Map<string, Uint8Array>,
  extra: Extra = {},
): Promise<void> {
  await checkStateAfter(
    plan,
    rec.log.slice(0, p.logLength),
    `point ${p.index} (${p.op})`,
    files,
    extra,
  );
}

/** The same, given the leader/caller events that happened before the cut. */
async function checkStateAfter(
  plan: readonly Step[],
  log: readonly string[],
  where: string,
  files: Map<string, Uint8Array>,
  extra: Extra = {},
): Promise<void> {
  const sent = idsOf(log, "sent");
  const acked = idsOf(log, "acked");
  const cancelled = new Set(idsOf(log, "cancel"));

  const fsA = new SimFS(DIR, files, false);
  const a = Journal.open({ dir: DIR, guard, io: fsA, now: clock(), pid: 4242, ...extra });
  for (const id of [...sent, ...acked])
    assert.ok(a.isKnownPromptId(id), `${where}: ${id} lost its receipt`);
  for (const r of a.receipts()) {
    assert.ok(
      r.state !== "fenced" && r.state !== "dispatched",
      `${where}: ${r.promptId} left ${r.state}`,
    );
    if (r.state === "uncertain") totals.uncertainAfterRecovery++;
  }
  if (a.recovery.warnings.some((w) => w.code === "JOURNAL_TAIL_QUARANTINED")) totals.quarantined++;
  a.close();
  const afterA = fsA.files();

  const fsB = new SimFS(DIR, afterA, false);
  const b = Journal.open({ dir: DIR, guard, io: fsB, now: clock(), pid: 4242, ...extra });
  assert.equal(b.recovery.warnings, [], `${where}: second recovery warned`);
  assert.equal(b.recovery.madeUncertain, [], `${where}: second recovery changed receipts`);
  b.close();
  assert.ok(filesEqual(afterA, fsB.files()), `${where}: second recovery changed bytes`);

  const fsC = new SimFS(DIR, afterA, false);
  const leader = SimLeader.after(sent, cancelled, SESSION_ID);
  const c = Journal.open({ dir: DIR, guard, io: fsC, now: clock(), pid: 4242, ...extra });
  const epoch = c.beginEpoch();
  for (const r of c.receipts())
    assert.ok(r.epoch < epoch, `${where}: epoch ${epoch} not above ${r.epoch}`);
  await driveWorkload(c, plan, () => leader.connect(), {
    acked: () => {},
    refused: (id, code) => assert.unreachable(`${where}: finishing refused ${id}: ${code}`),
    observed: (outcome) => {
      if (outcome === "reconciled") totals.reconciled++;
    },
  });
  const seen = new Set<string>();
  for (const id of leader.received) {
    assert.not.ok(seen.has(id), `${where}: ${id} reached the leader twice`);
    seen.add(id);
    assert.ok(c.isKnownPromptId(id), `${where}: ${id} sent without a receipt`);
  }
  for (const step of plan)
    if (step.kind === "prompt")
      assert.ok(c.isKnownPromptId(step.id), `${where}: ${step.id} never fenced`);
  for (const r of c.receipts()) {
    if (r.state === "uncertain") {
      assert.not.ok(seen.has(r.promptId), `${where}: ${r.promptId} received but never reconciled`);
    } else {
      assert.ok(isTerminal(r.state), `${where}: ${r.promptId} unsettled (${r.state})`);
      assert.ok(
        seen.has(r.promptId),
        `${where}: ${r.promptId} ${r.state} without reaching the leader`,
      );
    }
  }
  c.close();
  totals.states++;
  totals.sentAtCut += sent.length;
}

/** 512-byte-boundary cuts of a write at file offset `offset`, plus the given arbitrary ones. */
function sectorCuts(w: { offset: number; length: number }): number[] {
  const out: number[] = [];
  for (let at = 512 - (w.offset % 512); at < w.length; at += 512) out.push(at);
  return out;
}

/** Every byte offset (exhaustive), or the edges: 0, 1, the middle, the last byte. */
type Cuts = "every-byte" | "edges";

function cutsOf(mode: Cuts, w: { offset: number; length: number }): number[] {
  const arbitrary =
    mode === "every-byte"
      ? Array.from({ length: w.length }, (_, i) => i)
      : [...new Set([0, 1, w.length >> 1, w.length - 1])].filter((i) => i >= 0 && i < w.length);
  return [...arbitrary, ...sectorCuts(w)];
}

function* allStates(p: CrashPoint, mode: Cuts = "every-byte"): Generator<Map<string, Uint8Array>> {
  for (let dirKeep = 0; dirKeep <= p.pendingDir.length; dirKeep++) {
    const entries = applyDirOps(p.durableEntries, p.pendingDir.slice(0, dirKeep));
    const inos = [...new Set(entries.values())].filter(
      (ino) => (p.inodes.get(ino)?.pending.length ?? 0) > 0,
    );
    const options = inos.map((ino) =>
      inodeChoices(p.inodes.get(ino)?.pending ?? [], (w) => cutsOf(mode, w)),
    );
    const pick: InodeChoice[] = options.map(() => ({ keep: 0 }));
    const rec = function* (k: number): Generator<Map<string, Uint8Array>> {
      if (k === inos.length) {
        yield materialize(p, dirKeep, (ino, pending) => {
          const at = inos.indexOf(ino);
          return at === -1 ? { keep: pending.length } : (pick[at] ?? { keep: 0 });
        });
        return;
      }
      for (const c of options[k] ?? []) {
        pick[k] = c;
        yield* rec(k + 1);
      }
    };
    yield* rec(0);
  }
}

function key(files: Map<string, Uint8Array>): string {
  return [...files].map(([n, b]) => `${n}:${Buffer.from(b).toString("base64")}`).join("|");
}

test("T2 exhaustive: every crash state of a small workload recovers with 0 duplicates, 0 lost receipts", async () => {
  await guarded(failures, "exhaustive", exhaustive);
});

async function exhaustive(): Promise<void> {
  const plan = crashPlan(6, 3);
  const rec = await record(plan);
  const before = { ...totals };
  let materialised = 0;
  for (const p of rec.points) {
    const seen = new Set<string>();
    for (const files of allStates(p)) {
      materialised++;
      const k = key(files);
      if (seen.has(k)) continue;
      seen.add(k);
      totals.distinct++;
      await checkState(plan, rec, p, files);
    }
  }
  const states = totals.states - before.states;
  const prompts = plan.filter((s) => s.kind === "prompt").length;
  const quarantined = totals.quarantined - before.quarantined;
  const reconciled = totals.reconciled - before.reconciled;
  Object.assign(figures, {
    exhaustivePrompts: prompts,
    exhaustivePoints: rec.points.length,
    exhaustiveStates: materialised,
    exhaustiveDistinct: states,
    exhaustiveQuarantined: quarantined,
    exhaustiveReconciled: reconciled,
  });
  phrases.push(
    `exhaustive: ${rec.points.length} crash points, ${materialised} crash states (${states} distinct) of a ${prompts}-prompt workload, ${quarantined} torn tails quarantined, ${reconciled} late results reconciled`,
  );
  assert.ok(states > 1000, `only ${states} states`);
  console.log(
    `T2 exhaustive: ${rec.points.length} crash points, ${materialised} crash states (${states} distinct) of a ${prompts}-prompt workload: 0 duplicates, 0 lost receipts, 0 uncertain resent, 2nd recovery a no-op; ${quarantined} torn tails quarantined, ${reconciled} late results reconciled`,
  );
}

test("T2 sampled (fast-check): crash states of a larger workload, torn at arbitrary and 512-byte offsets", async () => {
  await guarded(failures, "sampled", sampled);
});

async function sampled(): Promise<void> {
  const plan = crashPlan(30, 5);
  const rec = await record(plan);
  const before = { ...totals };
  const numRuns = soakScaled(1_500, 20_000);
  const seed = Number(process.env.GROK_SEAT_SEED ?? Date.now() % 2 ** 31);
  seeds.push(seed);
  await fc.assert(
    fc.asyncProperty(
      fc.nat({ max: rec.points.length - 1 }),
      fc.nat(),
      fc.array(
        fc.record({
          keep: fc.nat(),
          cut: fc.nat(),
          sector: fc.boolean(),
          zeros: fc.boolean(),
          torn: fc.boolean(),
        }),
        {
          minLength: 4,
          maxLength: 4,
        },
      ),
      async (pi, dirPick, picks) => {
        const p = rec.points[pi];
        if (p === undefined) return;
        const dirKeep = dirPick % (p.pendingDir.length + 1);
        const inos = [...p.inodes.keys()];
        const files = materialize(p, dirKeep, (ino, pending) => {
          const pk = picks[inos.indexOf(ino) % picks.length] ?? {
            keep: 0,
            cut: 0,
            sector: false,
            zeros: false,
            torn: false,
          };
          const keep = pk.keep % (pending.length + 1);
          const last = pending[keep - 1];
          if (!pk.torn || last === undefined || last.kind !== "write") return { keep };
          const sectors = sectorCuts({ offset: last.offset, length: last.bytes.length });
          const at =
            pk.sector && sectors.length > 0
              ? (sectors[pk.cut % sectors.length] ?? 0)
              : pk.cut % last.bytes.length;
          return { keep, tearAt: at, zeros: pk.zeros };
        });
        await checkState(plan, rec, p, files);
      },
    ),
    { numRuns, seed },
  );
  const prompts = plan.filter((s) => s.kind === "prompt").length;
  const quarantined = totals.quarantined - before.quarantined;
  const reconciled = totals.reconciled - before.reconciled;
  Object.assign(figures, {
    sampledPrompts: prompts,
    sampledPoints: rec.points.length,
    sampledStates: numRuns,
    sampledQuarantined: quarantined,
    sampledReconciled: reconciled,
  });
  phrases.push(
    `sampled (fast-check seed ${seed}): ${numRuns} crash states over ${rec.points.length} crash points of a ${prompts}-prompt workload, torn at arbitrary and 512-byte offsets, ${quarantined} torn tails quarantined, ${reconciled} late results reconciled`,
  );
  console.log(
    `T2 sampled (seed ${seed}): ${numRuns} crash states over ${rec.points.length} crash points of a ${prompts}-prompt workload: 0 duplicates, 0 lost receipts, 0 uncertain resent, 2nd recovery a no-op; ${quarantined} torn tails quarantined, ${reconciled} late results reconciled`,
  );
}

test("T2 automatic compaction: every crash state of a journal that compacts itself recovers with 0 duplicates, 0 lost receipts", async () => {
  await guarded(failures, "auto-compaction", autoCompaction);
});

/**
 * No explicit compaction: the journal compacts itself before a durable append (1 KiB threshold,
 * then 1.5x its last compacted size), so crash points fall before, inside and after its temp
 * write, fsync, rename and directory fsync, and recovery (with the same threshold) may compact
 * again on open. Every crash point, each write torn at its edges and 512-byte boundaries.
 */
async function autoCompaction(): Promise<void> {
  const extra = { compactAboveBytes: 1024 };
  const plan = crashPlan(10, Number.POSITIVE_INFINITY);
  const rec = await record(plan, extra);
  const renames = rec.points.filter((p) => p.op.startsWith("rename ")).length;
  assert.ok(renames >= 2, `only ${renames} automatic compactions in the recorded run`);
  const before = { ...totals };
  for (const p of rec.points) {
    const seen = new Set<string>();
    for (const files of allStates(p, "edges")) {
      const k = key(files);
      if (seen.has(k)) continue;
      seen.add(k);
      await checkState(plan, rec, p, files, extra);
    }
  }
  const states = totals.states - before.states;
  const prompts = plan.filter((s) => s.kind === "prompt").length;
  Object.assign(figures, {
    autoCompactPrompts: prompts,
    autoCompactions: renames,
    autoCompactPoints: rec.points.length,
    autoCompactStates: states,
  });
  phrases.push(
    `automatic compaction: ${states} distinct crash states over ${rec.points.length} crash points of a ${prompts}-prompt workload whose journal compacted itself ${renames} times`,
  );
  console.log(
    `T2 automatic compaction: ${states} distinct crash states over ${rec.points.length} crash points (${renames} compactions) of a ${prompts}-prompt workload: 0 duplicates, 0 lost receipts, 0 uncertain resent, 2nd recovery a no-op`,
  );
}

test("T2 nested: a power cut during recovery itself (quarantine, truncate, uncertain marking)", async () => {
  const before = { ...totals };
  const count = { recoveries: 0, nested: 0 };
  // Every first-level crash state whose recovery has work to do (a tail to quarantine, fences
  // to mark uncertain), every 20th in CI (all in the full run); the inner cuts tear each
  // write at its edges, middle and 512-byte boundaries.
  const stride = soakScaled(20, 1);
  const failure = await caught(failures, "nested", () => cutRecoveries(stride, count));
  const { recoveries, nested } = count;
  const quarantined = totals.quarantined - before.quarantined;
  const held =
    failures.length === 0 &&
    recoveries > 10 &&
    (figures.exhaustiveDistinct ?? 0) > 1000 &&
    figures.sampledStates !== undefined;
  const every = stride === 1 ? "every" : `every ${stride}th`;
  recordClaim(
    {
      id: "T2-power-loss",
      title: "A power cut at any point loses or duplicates no prompt",
      claim: sentence(
        `T2 power loss: ${[
          ...phrases,
          `nested: ${recoveries} recoveries with work (of ${every} first-level crash state), cut at each of their own writes/fsyncs/renames/truncates: ${nested} crash-during-recovery states, ${quarantined} torn tails quarantined`,
        ].join("; ")}: 0 duplicates, 0 lost receipts, 0 uncertain resent, 2nd recovery a no-op`,
        failures,
      ),
      counts: {
        ...figures,
        nestedStride: stride,
        nestedRecoveries: recoveries,
        nestedStates: nested,
        nestedQuarantined: quarantined,
        statesChecked: totals.states,
        uncertainAfterRecovery: totals.uncertainAfterRecovery,
        sentAtCut: totals.sentAtCut,
        failures: failures.length,
      },
      held,
      seeds,
      method:
        `${METHOD}the workload is finished against a simulated leader that saw what was sent ` +
        "before the cut; checked: every prompt sent or acknowledged has a receipt, none left " +
        "fenced/dispatched, no prompt reaches the leader twice, an uncertain prompt is never " +
        "resent, epochs grow. Exhaustive for a 6-prompt workload, fast-check sampled for a " +
        "30-prompt one, and power cuts during recovery itself (each inner write torn at its " +
        "edges, middle and 512-byte boundaries).",
    },
    startedAt,
  );
  if (failure !== null) throw failure;
  assert.ok(recoveries > 10, `only ${recoveries} recoveries had work`);
  console.log(
    `T2 nested: ${recoveries} recoveries with work, cut at each of their own writes/fsyncs/renames/truncates: ${nested} crash-during-recovery states: 0 duplicates, 0 lost receipts, 0 uncertain resent, 2nd recovery a no-op; ${quarantined} torn tails quarantined`,
  );
});

/** Power cuts during the recovery of every `stride`th first-level crash state that has work. */
async function cutRecoveries(
  stride: number,
  count: { recoveries: number; nested: number },
): Promise<void> {
  const plan = crashPlan(6, 3);
  const rec = await record(plan);
  let k = 0;
  for (const p of rec.points) {
    for (const files of allStates(p)) {
      if (k++ % stride !== 0) continue;
      const probe = Journal.open({
        dir: DIR,
        guard,
        io: new SimFS(DIR, files, false),
        now: clock(),
        pid: 4242,
      });
      const work = probe.recovery.warnings.length + probe.recovery.madeUncertain.length;
      probe.close();
      if (work === 0) continue;
      count.recoveries++;
      const fs = new SimFS(DIR, files);
      Journal.open({ dir: DIR, guard, io: fs, now: clock(), pid: 4242 }).close();
      const log = rec.log.slice(0, p.logLength);
      for (const q of fs.points) {
        const seen = new Set<string>();
        for (const inner of allStates(q, "edges")) {
          const key2 = key(inner);
          if (seen.has(key2)) continue;
          seen.add(key2);
          count.nested++;
          await checkStateAfter(
            plan,
            log,
            `recovery of point ${p.index}, cut at ${q.index} (${q.op})`,
            inner,
          );
        }
      }
    }
  }
}

/**
 * Refusals under power loss: a prompt refused while dispatched, one refused while still fenced
 * (dispatched and rejected in one write), a failed turn (the error after consumption), a
 * compaction, and a refusal after it. At every crash point and in every state a cut may leave: a
 * refusal acknowledged to the caller is still `rejected` (or its compacted tombstone), never
 * uncertain; an unacknowledged one is `rejected` or `uncertain`, never fenced/dispatched or lost;
 * the failed turn is `completed` with stop reason `error` once acknowledged; a second recovery
 * changes no byte.
 */
test("T2 refusals: every crash state around rejected records recovers them durably, never resent", async () => {
  const refusalsStartedAt = Date.now();
  const refusalFailures: string[] = [];
  const count = { points: 0, states: 0 };
  const failure = await caught(refusalFailures, "refusals", () => refusalStates(count));
  const { points, states } = count;
  recordClaim(
    {
      id: "T2-power-loss-refusals",
      title: "A refusal survives a power cut as a refusal, never resent",
      claim: sentence(
        `T2 refusals: ${points} crash points, ${states} distinct crash states: every acknowledged refusal still rejected (code kept), none fenced/dispatched, 2nd recovery a no-op`,
        refusalFailures,
      ),
      counts: { crashPoints: points, distinctStates: states, failures: refusalFailures.length },
      held: refusalFailures.length === 0 && states > 100,
      method:
        `${METHOD}checked after a journal of a prompt refused while dispatched, one refused ` +
        "while still fenced, a failed turn, a compaction and a refusal after it: an acknowledged " +
        "refusal is still rejected with its code (or its compacted tombstone), never uncertain; " +
        "nothing is left fenced/dispatched or lost; the failed turn is completed with stop " +
        "reason error once acknowledged.",
    },
    refusalsStartedAt,
  );
  if (failure !== null) throw failure;
  assert.ok(states > 100, `only ${states} states`);
  console.log(
    `T2 refusals: ${points} crash points, ${states} distinct crash states: every acknowledged refusal still rejected (code kept), none fenced/dispatched, 2nd recovery a no-op`,
  );
});

/** Every distinct crash state of the refusal journal, recovered and checked (counted in `count`). */
function refusalStates(count: { points: number; states: number }): void {
  const fs = new SimFS(DIR);
  const j = Journal.open({ dir: DIR, guard, io: fs, now: clock(), pid: 4242 });
  j.beginEpoch();
  const ids = ["a", "b", "c", "d"].map((k) => `00000000-0000-4000-8000-00000000000${k}`);
  const [A, B, C, D] = ids as [string, string, string, string];
  const fenceOf = (id: string) => {
    j.fence({ promptId: id, sessionId: SESSION_ID, leader: "l:1", pane: "p:1", text: `t ${id}` });
    fs.note(`fenced:${id}`);
  };
  const refuse = (id: string, code: number) =>
    j.recordRejection({ promptId: id, sessionId: SESSION_ID, code, message: "refused" });
  fenceOf(A);
  j.markDispatched(A);
  refuse(A, -32602);
  fs.note(`rejected:${A}`);
  fenceOf(B);
  refuse(B, -32002); // the answer came before the sender's own signal
  fs.note(`rejected:${B}`);
  fenceOf(C);
  j.markDispatched(C);
  j.recordConsumption({ promptId: C, sessionId: SESSION_ID, kind: "running-prompt" });
  refuse(C, -32603);
  fs.note(`failed:${C}`);
  j.compact();
  fenceOf(D);
  j.markDispatched(D);
  refuse(D, -32602);
  fs.note(`rejected:${D}`);
  j.close();

  count.points = fs.points.length;
  for (const p of fs.points) {
    const log = fs.log.slice(0, p.logLength);
    const seen = new Set<string>();
    for (const files of allStates(p)) {
      const k = key(files);
      if (seen.has(k)) continue;
      seen.add(k);
      count.states++;
      const where = `point ${p.index} (${p.op})`;
      const fsA = new SimFS(DIR, files, false);
      const a = Journal.open({ dir: DIR, guard, io: fsA, now: clock(), pid: 4242 });
      for (const id of idsOf(log, "fenced"))
        assert.ok(a.isKnownPromptId(id), `${where}: ${id} lost`);
      for (const r of a.receipts()) {
        assert.ok(
          r.state !== "fenced" && r.state !== "dispatched",
          `${where}: ${r.promptId} ${r.state}`,
        );
        if (r.state === "rejected") assert.ok(r.rejection !== null && r.result === null);
        else assert.is(r.rejection, null);
      }
      for (const id of idsOf(log, "rejected")) {
        const r = a.receipt(id);
        if (r !== undefined) assert.is(r.rejection?.code, id === B ? -32002 : -32602, where);
        assert.ok(
          r === undefined || r.state === "rejected",
          `${where}: acked refusal ${id} is ${r?.state}`,
        );
        if (r === undefined)
          assert.ok(a.isKnownPromptId(id), `${where}: ${id} neither receipt nor tombstone`);
      }
      for (const id of idsOf(log, "failed")) {
        const r = a.receipt(id);
        if (r !== undefined) {
          assert.is(r.state, "completed", `${where}: failed turn ${id}`);
          assert.is(r.result?.stopReason, "error");
        }
      }
      a.close();
      const afterA = fsA.files();
      const fsB = new SimFS(DIR, afterA, false);
      const b = Journal.open({ dir: DIR, guard, io: fsB, now: clock(), pid: 4242 });
      assert.equal(b.recovery.madeUncertain, [], `${where}: second recovery changed receipts`);
      assert.equal(b.recovery.warnings, [], `${where}: second recovery warned`);
      b.close();
      assert.ok(filesEqual(afterA, fsB.files()), `${where}: second recovery changed bytes`);
    }
  }
}

test.run();
