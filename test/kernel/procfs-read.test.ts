// @platform linux: /proc/<pid>/cmdline and fdinfo tty-index are Linux's
/**
 * The two per-process facts read from /proc in TypeScript (lib/kernel/procfs-read.ts): argv as
 * the kernel holds it, byte for byte (empty arguments, spaces, UTF-8), and the pty masters a
 * process holds, checked against `script`(1), which opens a pty and keeps its master while its
 * child runs on the slave; typed failures for a pid that is gone.
 */
import { spawn } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isErrorCode } from "../../lib/errors.js";
import { processArgv, processFacts, ptyMasters } from "../../lib/kernel/index.js";
import { cleanup, onCleanup, spawnChild } from "../helpers/kernel-children.js";

test.after.each(cleanup);

test("processArgv: exactly the argv a process was exec'd with", async () => {
  // A shell that stays alive (`; :` keeps it from exec'ing sleep) with awkward arguments; sleep
  // itself would exit at once on them and leave a zombie, whose cmdline is empty.
  const args = ["-c", "sleep 30; :", "x", "", "two words", "ünï-cödé ✓", "--flag=x"];
  const child = spawnChild("sh", args);
  const pid = child.pid ?? 0;
  // spawn() returns after fork: the argv is the new image's once exec is done.
  for (let i = 0; i < 500 && readlinkSync(`/proc/${pid}/exe`) === process.execPath; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(processArgv(pid), ["sh", ...args]);
  assert.is(processArgv(process.pid)[0], process.argv0);
});

test("ptyMasters: script(1) holds the master of the pty its child runs on; we hold none", async () => {
  const script = spawn("script", ["-qfec", "exec sleep 30", "/dev/null"], { stdio: "ignore" });
  onCleanup(() => script.kill("SIGKILL"));
  let child = 0;
  for (let i = 0; i < 500 && child === 0; i++) {
    const kids = readFileSync(`/proc/${script.pid}/task/${script.pid}/children`, "utf8").trim();
    const pid = Number(kids.split(" ")[0]);
    if (pid > 0 && readlinkSync(`/proc/${pid}/exe`).endsWith("/sleep")) child = pid;
    else await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(child > 0, "script started sleep");
  const tty = processFacts(child).tty;
  const index = Number(/^\/dev\/pts\/(\d+)$/.exec(tty ?? "")?.[1] ?? -1);
  assert.ok(index >= 0, `sleep is on a pty: ${tty}`);
  assert.ok(ptyMasters(script.pid ?? 0)?.includes(index), "script holds its master");
  assert.not.ok(ptyMasters(process.pid)?.includes(index), "we do not");
  assert.not.ok(ptyMasters(child)?.includes(index), "the child holds the slave, not the master");
});

test("a pid that is gone: NO_SUCH_PROCESS from both", async () => {
  const child = spawnChild("true", []);
  const pid = child.pid ?? 0;
  await new Promise((r) => child.once("exit", r));
  await new Promise((r) => setTimeout(r, 50));
  for (const read of [() => processArgv(pid), () => ptyMasters(pid)]) {
    try {
      read();
      assert.unreachable("a reaped pid");
    } catch (err) {
      assert.ok(isErrorCode(err, "NO_SUCH_PROCESS"), String(err));
    }
  }
});

test.run();
