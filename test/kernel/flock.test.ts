import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { UsageError } from "../../lib/errors.js";
import { type FlockMode, flock } from "../../lib/kernel/flock.js";
import {
  cleanup,
  exited,
  haveCommand,
  killGroup,
  lineFrom,
  linuxOnly,
  onCleanup,
  spawnChild,
  tempDir,
  waitFor,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the flock tests");

function lockFile(): { path: string; fd: number } {
  const path = join(tempDir("flock"), "lock");
  writeFileSync(path, "");
  const fd = openSync(path, "r+");
  onCleanup(() => closeSync(fd));
  return { path, fd };
}

/** flock(1) from util-linux as the second process: can it take the lock right now? */
function otherCanLock(path: string, mode: "-x" | "-s"): boolean {
  return spawnSync("flock", ["-n", mode, path, "true"]).status === 0;
}

/** /proc/locks lines for this file's inode: "FLOCK ADVISORY WRITE <pid> <maj>:<min>:<ino> ...". */
function procLocks(path: string): { kind: string; pid: number }[] {
  const ino = String(statSync(path).ino);
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[1] === "FLOCK" && f[5]?.split(":")[2] === ino)
    .map((f) => ({ kind: f[3] ?? "", pid: Number(f[4]) }));
}

linuxTest(
  "exclusive excludes everyone; shared admits shared only; unlock releases (flock(1) as oracle)",
  () => {
    if (!haveCommand("flock")) {
      console.log("SKIP: flock(1) is not installed");
      return;
    }
    const { path, fd } = lockFile();
    assert.is(flock(fd, "exclusive", { nonBlocking: true }), true);
    assert.equal(procLocks(path), [{ kind: "WRITE", pid: process.pid }]);
    assert.is(otherCanLock(path, "-s"), false);
    assert.is(otherCanLock(path, "-x"), false);
    assert.is(flock(fd, "shared", { nonBlocking: true }), true, "convert to shared");
    assert.is(otherCanLock(path, "-s"), true);
    assert.is(otherCanLock(path, "-x"), false);
    assert.is(flock(fd, "unlock"), true);
    assert.equal(procLocks(path), []);
    assert.is(otherCanLock(path, "-x"), true);
  },
);

linuxTest(
  "a lock held by another process: non-blocking returns false; the kernel releases it on death",
  async () => {
    const { path, fd } = lockFile();
    // flock -o: only the flock(1) process holds the lock; its command does not inherit the fd.
    const holder = spawnChild("flock", ["-o", "-x", path, "sh", "-c", "echo HELD; exec sleep 30"], {
      detached: true,
    });
    await lineFrom(holder, /(HELD)/);
    assert.is(flock(fd, "exclusive", { nonBlocking: true }), false);
    assert.is(flock(fd, "shared", { nonBlocking: true }), false);
    assert.equal(procLocks(path), [{ kind: "WRITE", pid: holder.pid ?? 0 }]);
    killGroup(holder);
    await exited(holder);
    await waitFor("the lock to be released", () => flock(fd, "exclusive", { nonBlocking: true }));
    assert.equal(procLocks(path), [{ kind: "WRITE", pid: process.pid }]);
  },
);

linuxTest("blocking mode waits for the holder to go", async () => {
  const { path, fd } = lockFile();
  const holder = spawnChild("flock", ["-o", "-x", path, "sh", "-c", "echo HELD; sleep 0.3"]);
  await lineFrom(holder, /(HELD)/);
  assert.is(flock(fd, "exclusive"), true, "returns once the kernel grants it");
  assert.equal(procLocks(path), [{ kind: "WRITE", pid: process.pid }]);
});

linuxTest("bad fds and modes are INVALID_ARGUMENT", () => {
  const { fd } = lockFile();
  const code = (fn: () => unknown): string => {
    try {
      fn();
      return "OK";
    } catch (err) {
      return err instanceof UsageError ? err.code : String(err);
    }
  };
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 40, 987654]) {
    assert.is(
      code(() => flock(bad, "exclusive", { nonBlocking: true })),
      "INVALID_ARGUMENT",
      String(bad),
    );
  }
  const closed = openSync("/dev/null", "r");
  closeSync(closed);
  assert.is(
    code(() => flock(closed, "shared")),
    "INVALID_ARGUMENT",
  );
  const bogus: unknown = "sideways";
  assert.is(
    code(() => flock(fd, bogus as FlockMode)),
    "INVALID_ARGUMENT",
  );
});

test.run();
