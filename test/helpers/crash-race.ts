/**
 * One racing controller of T8 (admission race): a long-lived process that races for the seat once
 * per round, released together with the others by a FIFO barrier (everyone blocks reading the FIFO
 * until the parent closes its write end: EOF reaches all readers at once).
 *
 * stdin commands: `round <n> <fifo>` (race once), `release` (give the seat back).
 * stdout: `UP`, `WAITING n`, `OPENED n`, then `BUSY n` (LEADER_BUSY) or `WON n holders=<pids>`
 * (flock taken; the holders of the lock inode per /proc/locks, a kernel oracle) followed by
 * `ADMITTED n <epoch>` once the journal is recovered and the epoch fsynced; `RELEASED n`.
 * While admitted it appends `enter <pid> <epoch>` / `exit <pid> <epoch>` to a shared O_APPEND log.
 * Usage: node crash-race.mjs <seatDir> <sharedLog>
 */
import { appendFileSync, closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  acquireControllerLock,
  type ControllerLock,
  LOCK_FILE,
} from "../../lib/delivery/admission.js";
import { Journal } from "../../lib/delivery/journal.js";
import { isErrorCode } from "../../lib/errors.js";

const [seatArg, logArg] = process.argv.slice(2);
if (seatArg === undefined || logArg === undefined) {
  process.stdout.write("usage: crash-race <seatDir> <sharedLog>\n");
  process.exit(2);
}
const seatDir: string = seatArg;
const sharedLog: string = logArg;
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function lockHolders(): number[] {
  const ino = statSync(join(seatDir, LOCK_FILE)).ino;
  const pids: number[] = [];
  for (const line of readFileSync("/proc/locks", "utf8").split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[1] === "FLOCK" && f[3] === "WRITE" && f[5]?.endsWith(`:${ino}`)) pids.push(Number(f[4]));
  }
  return pids;
}

let held: { lock: ControllerLock; journal: Journal; epoch: number; round: string } | null = null;

out("UP");
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, round, fifo] = line.trim().split(/\s+/);
  if (cmd === "round" && round !== undefined && fifo !== undefined) {
    out(`WAITING ${round}`);
    const fd = openSync(fifo, "r"); // blocks until the parent opens the write end
    out(`OPENED ${round}`);
    const buf = Buffer.alloc(64);
    while (readSync(fd, buf) > 0) {} // blocks until the parent closes it: the start signal
    closeSync(fd);
    let lock: ControllerLock;
    try {
      lock = acquireControllerLock(seatDir);
    } catch (err) {
      if (!isErrorCode(err)) throw err;
      out(err.code === "LEADER_BUSY" ? `BUSY ${round}` : `ERROR ${round} ${err.code}`);
      continue;
    }
    out(`WON ${round} holders=${lockHolders().join(",")}`);
    const journal = Journal.open({ dir: seatDir, guard: lock });
    const epoch = journal.beginEpoch();
    journal.fence({
      promptId: `race-${epoch}`,
      sessionId: "race-session",
      leader: "linux-pidfs:race:1",
      pane: "herdr:race",
      text: `round ${round}`,
    });
    appendFileSync(sharedLog, `enter ${process.pid} ${epoch}\n`);
    held = { lock, journal, epoch, round };
    out(`ADMITTED ${round} ${epoch}`);
  } else if (cmd === "release" && held !== null) {
    appendFileSync(sharedLog, `exit ${process.pid} ${held.epoch}\n`);
    held.journal.close();
    held.lock.release();
    out(`RELEASED ${held.round}`);
    held = null;
  }
}
