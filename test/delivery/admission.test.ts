// @platform linux: reads /proc as its independent oracle
import {
  chmodSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { admitController, LOCK_FILE } from "../../lib/delivery/admission.js";
import { JOURNAL_FILE } from "../../lib/delivery/journal.js";
import { isErrorCode } from "../../lib/errors.js";
import { type Bundle, bundleHelper } from "./bundle.js";
import {
  cleanupSeats,
  errorCode,
  flockHolders,
  LineChild,
  pollUntil,
  prompt,
  tempSeat,
} from "./fixtures.js";

let controllerScript: Bundle;
const children: LineChild[] = [];
const stray: number[] = [];

test.before(async () => {
  controllerScript = await bundleHelper("crash-controller");
});
test.after(() => {
  for (const c of children) void c.kill();
  for (const pid of stray) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  controllerScript.cleanup();
});
test.after.each(cleanupSeats);

function startController(seat: string): LineChild {
  const c = new LineChild(process.execPath, [controllerScript.file, seat]);
  children.push(c);
  return c;
}

test("one controller per seat: a second one is LEADER_BUSY; epochs grow across admissions", () => {
  const seat = tempSeat();
  const a = admitController({ seatDir: seat });
  assert.is(a.epoch, 1);
  const lock = join(seat, LOCK_FILE);
  assert.is(statSync(lock).mode & 0o777, 0o600);
  assert.equal(
    flockHolders(statSync(lock).ino),
    [process.pid],
    "/proc/locks shows our exclusive flock",
  );
  const journalBefore = readFileSync(join(seat, JOURNAL_FILE));
  assert.is(
    errorCode(() => admitController({ seatDir: seat })),
    "LEADER_BUSY",
  );
  assert.equal(
    readFileSync(join(seat, JOURNAL_FILE)),
    journalBefore,
    "a refused controller wrote nothing",
  );
  a.release();
  assert.equal(flockHolders(statSync(lock).ino), []);
  const b = admitController({ seatDir: seat });
  assert.is(b.epoch, 2);
  b.release();
});

test("the kernel releases the lock when the holder dies; a child it spawned does not inherit it", async () => {
  const seat = tempSeat();
  const holder = startController(seat);
  assert.match(await holder.waitFor(/^(ADMITTED|REFUSED)/), /^ADMITTED 1 /);
  holder.send("spawn");
  const sleeper = Number((await holder.waitFor(/^SPAWNED/)).split(" ")[1]);
  stray.push(sleeper);
  const ino = statSync(join(seat, LOCK_FILE)).ino;
  assert.equal(flockHolders(ino), [holder.pid]);
  assert.is(
    errorCode(() => admitController({ seatDir: seat })),
    "LEADER_BUSY",
  );
  await holder.kill("SIGKILL");
  // The sleeper is alive (it was spawned with the lock held) and still the lock is free.
  process.kill(sleeper, 0);
  const next = await pollUntil(
    () => {
      try {
        return admitController({ seatDir: seat });
      } catch (err) {
        if (isErrorCode(err, "LEADER_BUSY")) return undefined;
        throw err;
      }
    },
    15_000,
    "the lock to be released",
  );
  assert.is(next.epoch, 2);
  assert.equal(flockHolders(ino), [process.pid]);
  next.release();
});

test("a controller whose lock file was unlinked or replaced cannot append (ADMISSION_LOST)", () => {
  const seat = tempSeat();
  const a = admitController({ seatDir: seat });
  unlinkSync(join(seat, LOCK_FILE));
  assert.is(
    errorCode(() => a.journal.fence(prompt())),
    "ADMISSION_LOST",
  );
  assert.is(a.journal.failure?.context.reason, "lock-file-unlinked");
  assert.is(a.lock.held, false);
  // Another controller can now lock a fresh inode under the same name: exactly why A had to stop.
  const b = admitController({ seatDir: seat });
  assert.is(b.epoch, 2);
  assert.is(
    errorCode(() => a.journal.fence(prompt())),
    "ADMISSION_LOST",
  );
  b.journal.fence(prompt());
  a.release();
  b.release();

  const seat2 = tempSeat();
  const c = admitController({ seatDir: seat2 });
  writeFileSync(join(seat2, "x"), "", { mode: 0o600 });
  renameSync(join(seat2, "x"), join(seat2, LOCK_FILE));
  assert.is(
    errorCode(() => c.journal.fence(prompt())),
    "ADMISSION_LOST",
  );
  assert.is(c.journal.failure?.context.reason, "lock-file-replaced");
  c.release();
});

test("a refused controller process never appends; after release the next one gets the next epoch", async () => {
  const seat = tempSeat();
  const a = startController(seat);
  assert.match(await a.waitFor(/^(ADMITTED|REFUSED)/), /^ADMITTED 1 /);
  const b = startController(seat);
  assert.is(await b.waitFor(/^(ADMITTED|REFUSED)/), "REFUSED LEADER_BUSY");
  assert.is(await b.exited(), 3);
  a.send("fence 00000000-0000-4000-8000-0000000000aa");
  await a.waitFor(/^FENCED/);
  a.send("release");
  assert.is(await a.exited(), 0);
  const c = startController(seat);
  assert.match(await c.waitFor(/^(ADMITTED|REFUSED)/), /^ADMITTED 2 /);
  c.send("release");
  await c.exited();
});

test("unsafe lock files and seat directories are refused", () => {
  const a = tempSeat();
  writeFileSync(join(a, "elsewhere"), "", { mode: 0o600 });
  symlinkSync(join(a, "elsewhere"), join(a, LOCK_FILE));
  assert.is(
    errorCode(() => admitController({ seatDir: a })),
    "JOURNAL_FILE_UNSAFE",
  );
  const b = tempSeat();
  writeFileSync(join(b, LOCK_FILE), "");
  chmodSync(join(b, LOCK_FILE), 0o644);
  assert.is(
    errorCode(() => admitController({ seatDir: b })),
    "JOURNAL_FILE_UNSAFE",
  );
  const c = tempSeat();
  chmodSync(c, 0o755);
  assert.is(
    errorCode(() => admitController({ seatDir: c })),
    "SEAT_DIR_UNSAFE",
  );
});

test.run();
