/**
 * T3 (docs/design/reliability-plan.md §6): EIO / ENOSPC injected at each fsync and each write of the journal
 * (and EIO at each compaction rename), with strace's `-P` so only the seat's files are hit:
 *     strace -f -y -o LOG -P <journal> -P <seat dir> -P <journal>.compact
 *            -e trace=T -e inject=T:error=E:when=i  node crash-workload.mjs ...
 * Claims checked per run: the failure surfaces as a typed JOURNAL_IO and everything after it is
 * refused the same way; the counting leader's log shows no prompt whose fence failed and no prompt
 * after the failure; the strace log shows no fsync or write of the journal after the injected one
 * (an fsync is never retried into "success", fsyncgate). Then a fresh process recovers and finishes
 * with the T1 invariants. The full run (GROK_SEAT_RELIABILITY=full, or GROK_SEAT_SOAK=1) uses a
 * longer plan. The figures are recorded as the claim T3-io-errors (none without strace).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { JOURNAL_FILE } from "../../lib/delivery/journal.js";
import { recordClaim } from "../helpers/claims.js";
import { caught, guarded, sentence, soakScaled } from "./claim-run.js";
import {
  type CrashRig,
  checkAfterCrash,
  checkFinal,
  countSyscalls,
  leaderLog,
  newScenario,
  removeScenario,
  run,
  type Scenario,
  startCrashRig,
  straced,
  straceTest,
  workloadArgv,
} from "./crash-harness.js";

const PROMPTS = soakScaled(8, 14);

let rig: CrashRig;
const counts = new Map<string, number>();
const totals = { runs: 0, failed: 0, refusals: 0, afterFailure: 0, sentAfterFailedFence: 0 };
const startedAt = Date.now();
/** Failures of the dry run, for the claim recorded by the injection test. */
const failures: string[] = [];

test.before(async () => {
  rig = await startCrashRig();
});

test.after(() => rig.close());

function pathFilter(s: Scenario): string[] {
  const j = join(s.seat, JOURNAL_FILE);
  return ["-P", j, "-P", s.seat, "-P", `${j}.compact`];
}

async function injectOnce(type: string, errno: string, i: number): Promise<void> {
  const s = newScenario(`${errno} at ${type} #${i}`);
  try {
    const log = join(s.dir, "strace.log");
    const r = await run(
      straced(
        {
          flags: ["-y"],
          out: log,
          filter: pathFilter(s),
          trace: [type],
          inject: `${type}:error=${errno}:when=${i}`,
        },
        workloadArgv(rig.bundle.file, s, rig.socket, PROMPTS),
      ),
    );
    const trace = readFileSync(log, "utf8").split("\n");
    const injected = trace.findIndex((l) => l.includes("(INJECTED)"));
    const refused = r.lines.filter((l) => l.startsWith("REFUSED "));
    if (injected === -1) {
      assert.equal(refused, [], `${s.name}: refused without an injected error`);
    } else {
      totals.failed++;
      // The journal made no fsync or write after the failed one: fail-stop, no retry.
      const later = trace.slice(injected + 1).filter((l) => /\b(fsync|write|rename)\(/.test(l));
      assert.equal(later, [], `${s.name}: journal I/O after the injected failure`);
      assert.ok(refused.length > 0, `${s.name}: the failure was not surfaced`);
      for (const l of refused) {
        const [, , code] = l.split(" ");
        assert.is(code, "JOURNAL_IO", `${s.name}: ${l}`);
      }
      totals.refusals += refused.length;
      // Fail-stop: once a step is refused, no later prompt is acknowledged, and only the first
      // refused step can have had its frame sent (a result record failing after the send).
      const firstRefusal = r.lines.findIndex((l) => l.startsWith("REFUSED "));
      assert.equal(
        r.lines.slice(firstRefusal).filter((l) => l.startsWith("ACK ")),
        [],
        `${s.name}: acknowledged after the failure`,
      );
      assert.ok(
        refused.slice(1).every((l) => l.endsWith("sent=false")),
        `${s.name}: a send after the failure`,
      );
      const sent = new Set(leaderLog(s));
      for (const l of refused) {
        const [, id, , sentFlag] = l.split(" ");
        if (sentFlag !== "sent=false" || id === undefined) continue;
        totals.afterFailure++;
        if (sent.has(id)) totals.sentAfterFailedFence++;
        assert.not.ok(
          sent.has(id),
          `${s.name}: ${id} reached the leader although its fence failed`,
        );
      }
      if (r.code !== 0)
        assert.ok(
          refused.some((l) => l.startsWith("REFUSED admit ")),
          `${s.name}: exit ${r.code} ${r.stderr}`,
        );
    }
    checkAfterCrash(s, []);
    const finish = await run(workloadArgv(rig.bundle.file, s, rig.socket, PROMPTS));
    assert.is(finish.code, 0, `${s.name}: finishing run: ${finish.stderr}`);
    assert.equal(
      finish.lines.filter((l) => l.startsWith("REFUSED")),
      [],
    );
    checkFinal(s, PROMPTS);
    totals.runs++;
  } finally {
    rig.leader.endScenario(s.dir);
    removeScenario(s);
  }
}

straceTest("dry run: count the journal's fsync, write and rename calls (strace -c -P)", () =>
  guarded(failures, "dry run", dryRun),
);

async function dryRun(): Promise<void> {
  const s = newScenario("dry-run");
  const dry = await countSyscalls(
    s,
    ["fsync", "write", "rename"],
    pathFilter(s),
    workloadArgv(rig.bundle.file, s, rig.socket, PROMPTS),
  );
  assert.is(dry.result.code, 0, dry.result.stderr);
  for (const [name, calls] of dry.counts) counts.set(name, calls);
  assert.ok((counts.get("fsync") ?? 0) > PROMPTS && (counts.get("write") ?? 0) > PROMPTS);
  rig.leader.endScenario(s.dir);
  removeScenario(s);
}

straceTest(
  "T3: EIO/ENOSPC at every journal fsync and write, EIO at every rename: fail-stop, typed, nothing sent after",
  async () => {
    const jobs: [string, string, number][] = [];
    for (const [type, n] of counts) {
      const errnos = type === "rename" ? ["EIO"] : ["EIO", "ENOSPC"];
      for (const e of errnos) for (let i = 1; i <= n; i++) jobs.push([type, e, i]);
    }
    let next = 0;
    let failure: unknown = null;
    await Promise.all(
      [0, 1].map(async () => {
        while (failure === null && next < jobs.length) {
          const job = jobs[next++];
          if (job === undefined) continue;
          // Each run's errors name its scenario ("EIO at fsync #3: ...").
          const err = await caught(failures, "injection", () => injectOnce(...job));
          if (err !== null) failure ??= err;
        }
      }),
    );
    const held =
      failures.length === 0 &&
      jobs.length > 0 &&
      totals.runs === jobs.length &&
      totals.sentAfterFailedFence === 0;
    recordClaim(
      {
        id: "T3-io-errors",
        title: "A journal I/O error stops delivery, typed, with nothing sent after it",
        claim: sentence(
          `T3: ${jobs.length} injected errors (EIO+ENOSPC at each of ${counts.get("fsync")} fsyncs and ${counts.get("write")} writes of the journal, EIO at ${counts.get("rename")} renames), ${totals.failed} hit: every failure a typed JOURNAL_IO (${totals.refusals} refusals), 0 journal fsyncs/writes after a failure, ${totals.sentAfterFailedFence} prompts sent after a failed fence (of ${totals.afterFailure} refused); recovery + finish: 0 duplicates, 0 lost receipts`,
          failures,
        ),
        counts: {
          prompts: PROMPTS,
          fsyncCalls: counts.get("fsync") ?? 0,
          writeCalls: counts.get("write") ?? 0,
          renameCalls: counts.get("rename") ?? 0,
          injected: jobs.length,
          runs: totals.runs,
          hit: totals.failed,
          refusals: totals.refusals,
          refusedUnsent: totals.afterFailure,
          sentAfterFailedFence: totals.sentAfterFailedFence,
          failures: failures.length,
        },
        held,
        method:
          "A bundled workload (admission, journal, dispatch) against a counting leader; a dry run " +
          "under strace -f -c -P counts the journal's fsync/write/rename calls, then for each call " +
          "i: strace -f -y -P <journal> -P <seat dir> -P <journal>.compact -e trace=T " +
          "-e inject=T:error=E:when=i (E = EIO and ENOSPC for fsync and write, EIO for rename). " +
          "Checked per run: the workload's refusals are all JOURNAL_IO and nothing is acknowledged " +
          "after the first; the strace log shows no journal fsync/write/rename after the injected " +
          "one; the leader's log shows no prompt whose fence failed; then a fresh process recovers " +
          "and finishes with the T1 invariants.",
      },
      startedAt,
    );
    if (failure !== null) throw failure;
    assert.is(totals.runs, jobs.length);
  },
);

test.run();
