/**
 * The pause under the `leader_wait` and `active_sessions` looks (lib/seat/steps/dir-wake.ts): a
 * change in the watched directory wakes it long before its poll would, so the steps can poll
 * slowly without answering late; the TUI's exit wakes it; without a watch it still polls.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { watchDir } from "../../../lib/seat/steps/dir-wake.js";

const never = { exited: new Promise<never>(() => {}) };

/** Which settles first: the pause, or a bound far beyond any watch delivery (the test's failure). */
function first(p: Promise<void>, boundMs: number): Promise<"woke" | "bound"> {
  let t: NodeJS.Timeout | undefined;
  const bound = new Promise<"bound">((r) => {
    t = setTimeout(() => r("bound"), boundMs);
  });
  return Promise.race([p.then(() => "woke" as const), bound]).finally(() => clearTimeout(t));
}

test("a file created in the directory wakes a pause whose poll is an hour away", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dir-wake-"));
  // The poll: an hour, doubling; only the change can end this pause within the bound.
  const wake = watchDir(dir, 3_600_000, 3_600_000);
  try {
    assert.ok(wake.watching, "the directory is watched");
    const pause = wake.pause(never);
    setTimeout(() => writeFileSync(join(dir, "leader.sock.lock"), "123\n"), 20);
    assert.is(await first(pause, 20_000), "woke");
  } finally {
    wake.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the TUI's exit wakes a pause", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dir-wake-"));
  const wake = watchDir(dir, 3_600_000, 3_600_000);
  try {
    let exit: () => void = () => {};
    const exited = new Promise<void>((r) => {
      exit = r;
    });
    const pause = wake.pause({ exited });
    exit();
    assert.is(await first(pause, 20_000), "woke");
  } finally {
    wake.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a directory that cannot be watched leaves the plain poll", async () => {
  const gone = join(mkdtempSync(join(tmpdir(), "dir-wake-")), "missing");
  const wake = watchDir(gone, 5);
  try {
    assert.not.ok(wake.watching);
    for (let i = 0; i < 3; i++) assert.is(await first(wake.pause(never), 20_000), "woke");
  } finally {
    wake.close();
  }
});

test.run();
