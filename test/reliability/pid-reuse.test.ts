/**
 * T5, PID reuse (docs/design/reliability-plan.md §2, §6 T5, Appendix A.1): inside a user + pid namespace,
 * `ns_last_pid` forces a new process (same executable, same cwd, same uid; in the tight attempts
 * the same start tick) onto the pid of a leader we proved and lost. Every such imposter must be
 * refused by the library's identity checks and handles, must receive no signal from the release
 * path (with the live handle, or restarted from the saved record without one), and must never be
 * adopted (`SeatRegistry.admit`, `verifyRecord`). The fixture is `fixtures/pid-reuse-run.ts`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { kernelInfo } from "../../lib/kernel/index.js";
import { recordClaim, scaled } from "../helpers/claims.js";
import { repoRoot } from "./fixtures/socket-world.js";

const ATTEMPTS = scaled(20, 1000);
const NS = ["--user", "--map-root-user", "--pid", "--fork", "--mount-proc"];
// If unshare is killed (the spawnSync timeout), its child, the namespace's init, dies with it,
// and with it every process of the namespace.
const KILL_CHILD = "--kill-child=SIGKILL";

const Row = v.object({
  attempt: v.number(),
  tight: v.boolean(),
  samePid: v.boolean(),
  gapMs: v.number(),
  sameTick: v.optional(v.boolean()),
  sameExe: v.optional(v.boolean()),
  sameCwd: v.optional(v.boolean()),
  sameUid: v.optional(v.boolean()),
  identityDiffers: v.optional(v.boolean()),
  failedChecks: v.optional(v.array(v.string())),
  reopen: v.optional(v.string()),
  oldHandleAlive: v.optional(v.boolean()),
  oldHandleSignal: v.optional(v.string()),
  releaseStop: v.optional(v.boolean()),
  releaseReasons: v.optional(v.array(v.string())),
  restartHandle: v.optional(v.string()),
  restartStop: v.optional(v.boolean()),
  restartReasons: v.optional(v.array(v.string())),
  verifyLeaderIdentity: v.optional(v.boolean()),
  verifyLeaderAlive: v.optional(v.nullable(v.boolean())),
  adoptRecord: v.optional(v.string()),
  adoptImposter: v.optional(v.string()),
  adoptAfterRestart: v.optional(v.string()),
  imposterSignals: v.optional(v.string()),
  controlLogged: v.optional(v.boolean()),
});
type Row = v.InferOutput<typeof Row>;

function skipReason(): string | null {
  if (process.platform !== "linux") return "PID reuse is forced with Linux pid namespaces";
  const probe = spawnSync("unshare", [...NS, "true"], { encoding: "utf8" });
  if (probe.status !== 0)
    return `unshare refused here: ${(probe.stderr || String(probe.error)).trim()}`;
  if (!kernelInfo().pidfsIdentity) {
    // docs/design/kernel-proofs.md §3: before 6.9 pidfd inodes are not identities; a same-tick imposter then
    // has the same (boot, pid, tick) identity and only the handle kept since spawn refuses it.
    return "kernel < 6.9: pidfs inodes are not unique identities, the identity half of T5 does not apply";
  }
  return null;
}

/** Which of the refusals a reused row is missing (empty: refused everywhere). */
function missing(r: Row): string[] {
  const out: string[] = [];
  if (r.identityDiffers !== true) out.push("identity differs");
  if (JSON.stringify(r.failedChecks) !== JSON.stringify(["leader.identity"]))
    out.push(`only leader.identity fails (got ${JSON.stringify(r.failedChecks)})`);
  if (r.reopen !== "NO_SUCH_PROCESS") out.push(`reopen refused (${r.reopen})`);
  if (r.oldHandleAlive !== false) out.push("old handle reports the process gone");
  if (r.oldHandleSignal !== "NO_SUCH_PROCESS") out.push(`old handle signal (${r.oldHandleSignal})`);
  if (r.releaseStop !== false || !r.releaseReasons?.includes("LEADER_GONE"))
    out.push(`release: no stop, LEADER_GONE (${JSON.stringify(r.releaseReasons)})`);
  if (r.restartHandle !== "NO_SUCH_PROCESS") out.push(`restart: no handle (${r.restartHandle})`);
  if (r.restartStop !== false || !r.restartReasons?.includes("NOT_OWNED"))
    out.push(`restart: no stop, NOT_OWNED (${JSON.stringify(r.restartReasons)})`);
  if (r.verifyLeaderIdentity !== false) out.push("verifyRecord fails leader.identity");
  if (r.adoptRecord !== "ADOPTION_REFUSED/adopt.live") out.push(`adopt record (${r.adoptRecord})`);
  if (r.adoptImposter !== "ADOPTION_REFUSED/adopt.hired_here")
    out.push(`adopt imposter (${r.adoptImposter})`);
  if (r.adoptAfterRestart !== "ADOPTION_REFUSED/adopt.hired_here")
    out.push(`adopt after restart (${r.adoptAfterRestart})`);
  if (r.imposterSignals !== "") out.push(`imposter got signals: ${r.imposterSignals}`);
  if (r.controlLogged !== true) out.push("the imposter's signal log works (control)");
  return out;
}

test("T5: forced PID reuse with the same exe, cwd and start tick is refused everywhere", () => {
  const startedAt = Date.now();
  const skip = skipReason();
  if (skip !== null) {
    console.log(`SKIP: ${skip}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "t5-pid-reuse-"));
  try {
    const r = spawnSync(
      "unshare",
      [
        ...NS,
        KILL_CHILD,
        process.execPath,
        "--import",
        "tsx",
        join(repoRoot, "test", "reliability", "fixtures", "pid-reuse-run.ts"),
        dir,
        String(ATTEMPTS),
      ],
      {
        cwd: repoRoot,
        encoding: "utf8",
        timeout: ATTEMPTS * 2_000 + 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    assert.is(r.status, 0, `fixture failed: ${r.stderr}`);
    const rows = v.parse(v.array(Row), JSON.parse(readFileSync(join(dir, "rows.json"), "utf8")));
    assert.ok(rows.length >= ATTEMPTS && rows.length <= 2 * ATTEMPTS, `${rows.length} rows`);
    const reused = rows.filter((row) => row.samePid);
    const sameTick = reused.filter((row) => row.sameTick === true).length;
    const sameExeCwd = reused.filter(
      (row) => row.sameExe === true && row.sameCwd === true && row.sameUid === true,
    ).length;
    const bad = reused
      .map((row) => ({ row, missing: missing(row) }))
      .filter((x) => x.missing.length);
    const refused = reused.length - bad.length;
    const signals = reused.filter((row) => row.imposterSignals !== "").length;
    const adoptions = reused.filter(
      (row) =>
        row.adoptRecord === "ADOPTED" ||
        row.adoptImposter === "ADOPTED" ||
        row.adoptAfterRestart === "ADOPTED",
    ).length;
    const stops = reused.filter((row) => row.releaseStop !== false || row.restartStop !== false);
    const held =
      bad.length === 0 &&
      reused.length >= rows.length / 2 &&
      sameTick > 0 &&
      sameExeCwd === reused.length;
    recordClaim(
      {
        id: "T5-pid-reuse",
        title: "A reused PID is never mistaken for the proven leader",
        claim:
          `${reused.length} forced PID reuses (same pid; same start tick in ${sameTick} of them; ` +
          `same executable, cwd and uid in ${sameExeCwd}): ${refused} refused by the identity ` +
          `checks, the kernel handles and the release and adoption paths, ${signals} signals to ` +
          `imposters, ${adoptions} adoptions, ${stops.length} stops decided (release with the ` +
          `live handle: LEADER_GONE; controller restarted from the saved record: NOT_OWNED).`,
        counts: {
          attempts: rows.length,
          reused: reused.length,
          sameTick,
          sameExeCwd,
          refused,
          signalsToImposters: signals,
          adoptions,
          stops: stops.length,
        },
        held,
        method:
          "test/reliability/pid-reuse.test.ts: unshare --user --map-root-user --pid --fork " +
          "--mount-proc, ns_last_pid set to pid-1 after the proven process was killed and reaped; " +
          "victim and imposter are the same node program in the same cwd, the imposter logs every " +
          "signal (a direct SIGUSR1 afterwards proves the log); library calls: processFacts, " +
          "checkProcess, openProcessHandle, ProcessHandle.signal/isAlive, leaderNow + " +
          "decideLeaderStop, readSeatRecord + verifyRecord, SeatRegistry.admit.",
      },
      startedAt,
    );
    for (const { row, missing: m } of bad.slice(0, 5)) {
      assert.unreachable(`attempt ${row.attempt}: ${m.join("; ")}`);
    }
    assert.ok(
      reused.length >= rows.length / 2,
      `the pid was reused in ${reused.length}/${rows.length}`,
    );
    assert.ok(sameTick > 0, "at least one imposter had the same pid and start tick");
    assert.is(sameExeCwd, reused.length, "every imposter ran the same exe in the same cwd");
    assert.ok(held);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
