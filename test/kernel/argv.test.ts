// @platform darwin: the addon reads argv only on macOS (sysctl KERN_PROCARGS2); Linux's /proc/<pid>/cmdline half is test/kernel/procfs-read.test.ts
/**
 * processArgv on macOS (lib/kernel/argv.ts, native/darwin/argv.cc) against real processes: the
 * argv a child was exec'd with, byte for byte, `ps -o args=` as the oracle, and the typed
 * failures sysctl_procargsx hides behind EINVAL (a pid that is gone, a zombie, another user's
 * process).
 */
import { spawnSync } from "node:child_process";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { processArgv } from "../../lib/kernel/argv.js";
import { systemKernel } from "../../lib/kernel/port.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import {
  cleanup,
  exited,
  haveCommand,
  lineFrom,
  spawnChild,
  waitFor,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);

const codeOf = (fn: () => unknown): string => codeOfError(fn, "OK");

function ps(field: string, pid: number): string {
  return spawnSync("ps", ["-o", `${field}=`, "-p", String(pid)], {
    encoding: "utf8",
  }).stdout.trim();
}

test("exactly the argv a process was exec'd with, as ps shows it; the seat's port reads the same", () => {
  const args = ["30", "", "two words", "ünï-cödé ✓", "--flag=x"];
  const child = spawnChild("sleep", args);
  const pid = child.pid ?? 0;
  const argv = processArgv(pid);
  assert.equal(argv, ["sleep", ...args]);
  assert.is(ps("args", pid), argv.join(" "), "ps joins the same strings with spaces");
  assert.equal(systemKernel.processArgv(pid), argv);
  assert.is(processArgv(process.pid)[0], process.argv0);
});

test("a pid that is gone: NO_SUCH_PROCESS (the kernel says EINVAL)", async () => {
  const child = spawnChild("true", []);
  const pid = child.pid ?? 0;
  await exited(child);
  await waitFor("the pid reaped", () => ps("stat", pid) === "");
  assert.is(
    codeOf(() => processArgv(pid)),
    "NO_SUCH_PROCESS",
  );
});

test("a zombie: ZOMBIE (proc_find skips it)", async () => {
  if (!haveCommand("python3")) {
    console.log("SKIP: python3 is not installed (a parent that never reaps)");
    return;
  }
  const parent = spawnChild(
    "python3",
    [
      "-c",
      "import os, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint('Z=%d' % pid, flush=True); time.sleep(60)",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const zpid = Number(await lineFrom(parent, /Z=(\d+)/));
  await waitFor("the zombie", () => ps("stat", zpid).startsWith("Z"));
  assert.is(
    codeOf(() => processArgv(zpid)),
    "ZOMBIE",
  );
});

test("another user's process: ACCESS_DENIED unless we are root (launchd, pid 1)", () => {
  if (process.getuid?.() === 0) {
    console.log("SKIP: running as root, which may read every process's argv");
    return;
  }
  assert.is(
    codeOf(() => processArgv(1)),
    "ACCESS_DENIED",
  );
});

test.run();
