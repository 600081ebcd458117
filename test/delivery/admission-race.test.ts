// @platform linux: reads /proc as its independent oracle
/**
 * T8 (docs/design/reliability-plan.md §6): K = 32 controller processes race for one seat, round after round,
 * released together by a FIFO barrier; in some rounds the winner is killed -9 a random moment
 * after it took the lock (during recovery, the epoch fsync, the fence, or while holding).
 * Claims: exactly one controller admitted per epoch; epochs strictly increasing (journal order and
 * admission order); every other racer refused with LEADER_BUSY while the seat is held; a killed
 * winner's lock is released by the kernel (someone wins the next round); the kernel's /proc/locks
 * shows exactly the winner holding the lock when it wins; admitted intervals never overlap.
 * The full run (GROK_SEAT_RELIABILITY=full, or GROK_SEAT_SOAK=1): 500 rounds, 200 of them with a
 * kill. The figures are recorded as the claim T8-admission-race.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { open as openAsync } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { acquireControllerLock } from "../../lib/delivery/admission.js";
import { decodeJournal } from "../../lib/delivery/codec.js";
import { JOURNAL_FILE } from "../../lib/delivery/journal.js";
import { recordClaim } from "../helpers/claims.js";
import { pollTrue } from "../helpers/poll.js";
import { type Bundle, bundleHelper } from "./bundle.js";
import { caught, sentence, soakScaled } from "./claim-run.js";
import { cleanupSeats, LineChild, tempSeat } from "./fixtures.js";

const K = 32;
const ROUNDS = soakScaled(40, 500);
const KILL_ROUNDS = soakScaled(16, 200);

let bundle: Bundle;
test.before(async () => {
  bundle = await bundleHelper("crash-race");
});
test.after(() => {
  bundle.cleanup();
  cleanupSeats();
});

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Protocol violations in the shared enter/exit log: an enter while a live holder had not exited, an exit by a non-holder. */
function overlapsIn(log: readonly string[], killed: ReadonlySet<number>): number {
  let open: number | null = null;
  let bad = 0;
  for (const entry of log) {
    const [what, pidText] = entry.split(" ");
    const pid = Number(pidText);
    if (what === "enter") {
      if (!(open === null || killed.has(open))) bad++;
      open = pid;
    } else {
      if (pid !== open) bad++;
      open = null;
    }
  }
  return bad;
}

const until = (cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> =>
  pollTrue(what, cond, timeoutMs, 1);

test("T8: 32 controllers race for one seat; one admitted per epoch, epochs strictly increasing", async () => {
  const startedAt = Date.now();
  const failures: string[] = [];
  const seat = tempSeat();
  const work = mkdtempSync(join(tmpdir(), "grok-seat-race-"));
  const shared = join(work, "holders.log");
  const seed = Number(process.env.GROK_SEAT_SEED ?? Date.now() % 1_000_000);
  const random = rng(seed);
  const spawnWorker = (): LineChild => new LineChild(process.execPath, [bundle.file, seat, shared]);
  let workers = Array.from({ length: K }, spawnWorker);
  const killed = new Set<number>();
  const admitted: { round: number; epoch: number; pid: number }[] = [];
  let busy = 0;
  let kills = 0;
  let holderChecks = 0;
  const seen = (w: LineChild, re: RegExp): boolean => w.lines.some((l) => re.test(l));
  const raceFailure = await caught(failures, "race", async () => {
    try {
      await until(() => workers.every((w) => seen(w, /^UP$/)), "workers up");
      const killRounds = new Set<number>();
      while (killRounds.size < KILL_ROUNDS) killRounds.add(1 + Math.floor(random() * ROUNDS));
      for (let round = 1; round <= ROUNDS; round++) {
        const fifo = join(work, `barrier-${round}`);
        execFileSync("mkfifo", ["-m", "600", fifo]);
        for (const w of workers) w.send(`round ${round} ${fifo}`);
        await until(
          () => workers.every((w) => seen(w, new RegExp(`^WAITING ${round}$`))),
          `round ${round} waiting`,
        );
        const barrier = await openAsync(fifo, "w");
        await until(
          () => workers.every((w) => seen(w, new RegExp(`^OPENED ${round}$`))),
          `round ${round} opened`,
        );
        await barrier.close(); // EOF for all 32 readers at once: the race starts
        const done = (w: LineChild): boolean =>
          seen(w, new RegExp(`^(ADMITTED|BUSY) ${round}( |$)`));
        if (killRounds.has(round)) {
          let victim: LineChild | undefined;
          await until(() => {
            victim = workers.find((w) => seen(w, new RegExp(`^WON ${round} `)));
            return victim !== undefined;
          }, `round ${round} winner`);
          const v = victim as LineChild;
          const delayMs = random() * 4;
          await new Promise((r) => setTimeout(r, delayMs));
          killed.add(v.pid);
          await v.kill("SIGKILL");
          kills++;
          workers = workers.filter((w) => w !== v);
        }
        await until(
          () => workers.every((w) => done(w) || w.child.exitCode !== null),
          `round ${round} outcomes`,
        );
        const winners = workers.filter((w) => seen(w, new RegExp(`^ADMITTED ${round} `)));
        for (const w of workers) {
          assert.not.ok(
            seen(w, new RegExp(`^ERROR ${round} `)),
            `round ${round}: ${w.lines.at(-1)}`,
          );
          if (seen(w, new RegExp(`^BUSY ${round}$`))) busy++;
          const won = w.lines.find((l) => l.startsWith(`WON ${round} `));
          if (won !== undefined) {
            holderChecks++;
            assert.is(
              won,
              `WON ${round} holders=${w.pid}`,
              "the kernel shows exactly the winner holding the lock",
            );
          }
        }
        if (!killRounds.has(round)) {
          assert.is(winners.length, 1, `round ${round}: ${winners.length} admitted`);
          assert.is(workers.filter((w) => seen(w, new RegExp(`^BUSY ${round}$`))).length, K - 1);
        }
        for (const w of winners) {
          const line = w.lines.find((l) => l.startsWith(`ADMITTED ${round} `)) ?? "";
          admitted.push({ round, epoch: Number(line.split(" ")[2]), pid: w.pid });
          w.send("release");
        }
        await until(
          () => winners.every((w) => seen(w, new RegExp(`^RELEASED ${round}$`))),
          `round ${round} released`,
        );
        unlinkSync(fifo);
        while (workers.length < K) workers.push(spawnWorker());
        await until(() => workers.every((w) => seen(w, /^UP$/)), "replacement workers up");
      }
    } finally {
      await Promise.all(workers.map((w) => w.kill("SIGKILL")));
    }
  });

  // The oracles after the race: the journal's epoch records and the holders' enter/exit log.
  let epochs: { epoch: number; pid: number }[] = [];
  let log: string[] = [];
  const readFailure = await caught(failures, "reading the journal and the holders log", () => {
    const lock = acquireControllerLock(seat);
    try {
      const records = decodeJournal(readFileSync(join(seat, JOURNAL_FILE))).lines.map(
        (l) => l.record,
      );
      epochs = records.flatMap((r) => (r.t === "epoch" ? [r] : []));
    } finally {
      lock.release();
    }
    log = readFileSync(shared, "utf8").trim().split("\n");
  });
  rmSync(work, { recursive: true, force: true });
  const increasing = admitted.every((a, i) => i === 0 || a.epoch > (admitted[i - 1]?.epoch ?? 0));
  const journalSequential = epochs.every((e, i) => e.epoch === i + 1);
  const recordedByAdmitted = admitted.every((a) => epochs[a.epoch - 1]?.pid === a.pid);
  const overlaps = overlapsIn(log, killed);
  recordClaim(
    {
      id: "T8-admission-race",
      title: "One controller admitted per epoch, under a 32-way race with kills",
      claim: sentence(
        `T8 (seed ${seed}): ${K} controllers x ${ROUNDS} rounds (${kills} with the winner killed -9): exactly 1 admitted per epoch (${epochs.length} epochs, ${admitted.length} admissions seen, strictly increasing), ${busy} refusals all LEADER_BUSY, ${overlaps} overlapping holders, every killed winner's lock released by the kernel`,
        failures,
      ),
      counts: {
        controllers: K,
        rounds: ROUNDS,
        killedWinners: kills,
        epochs: epochs.length,
        admissions: admitted.length,
        busyRefusals: busy,
        procLocksChecks: holderChecks,
        overlappingHolders: overlaps,
        failures: failures.length,
      },
      held:
        failures.length === 0 &&
        increasing &&
        journalSequential &&
        recordedByAdmitted &&
        overlaps === 0,
      seeds: [seed],
      method:
        `${K} long-lived controller processes (test/helpers/crash-race.ts) block reading a FIFO; ` +
        "closing its write end releases them at once (EOF to every reader) and each calls " +
        "acquireControllerLock + journal recovery + an fsynced epoch. In seeded rounds the " +
        "winner is SIGKILLed 0-4 ms after it took the lock. Oracles: /proc/locks (exactly the " +
        "winner holds the flock), the journal's epoch records (1, 2, 3, ... each by the process " +
        "admitted with it), and an O_APPEND enter/exit log written while admitted.",
    },
    startedAt,
  );
  if (raceFailure !== null) throw raceFailure;
  if (readFailure !== null) throw readFailure;

  // Epochs: strictly increasing in admission order and in the journal; one process per epoch.
  for (let i = 1; i < admitted.length; i++) {
    assert.ok(
      (admitted[i]?.epoch ?? 0) > (admitted[i - 1]?.epoch ?? 0),
      "admission epochs strictly increase",
    );
  }
  for (const [i, e] of epochs.entries()) {
    assert.is(e.epoch, i + 1, "journal epochs are 1, 2, 3, ... with no repeat");
  }
  for (const a of admitted) {
    assert.is(
      epochs[a.epoch - 1]?.pid,
      a.pid,
      `epoch ${a.epoch} was recorded by the process admitted with it`,
    );
  }
  // Admitted intervals never overlap: enter A is followed by exit A, or A was killed.
  let open: number | null = null;
  for (const entry of log) {
    const [what, pidText] = entry.split(" ");
    const pid = Number(pidText);
    if (what === "enter") {
      assert.ok(open === null || killed.has(open), `enter ${pid} while ${open} was admitted`);
      open = pid;
    } else {
      assert.is(pid, open, `exit ${pid} without being the holder`);
      open = null;
    }
  }
});

test.run();
