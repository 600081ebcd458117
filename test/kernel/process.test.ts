import { spawnSync } from "node:child_process";
import { copyFileSync, readdirSync, realpathSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { UsageError } from "../../lib/errors.js";
import { KernelError } from "../../lib/kernel/kernel-error.js";
import { processFacts } from "../../lib/kernel/process.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import {
  asNobody,
  bootId,
  cleanup,
  exited,
  haveCommand,
  lineFrom,
  linuxOnly,
  onCleanup,
  pidExists,
  probeAsNobody,
  procStat,
  procUids,
  psFacts,
  pythonPidfsInode,
  readlinkOrNull,
  spawnChild,
  spawnZombie,
  tempDir,
  waitFor,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the process facts tests");

const codeOf = (fn: () => unknown): string => codeOfError(fn, "OK");

/** Compare every fact with the oracles that do not use the addon. */
function assertMatchesOracles(pid: number): void {
  const f = processFacts(pid);
  const stat = procStat(pid);
  const uids = procUids(pid);
  const ps = psFacts(pid);
  assert.ok(stat && uids && ps, `oracles could read pid ${pid}`);
  assert.is(f.pid, pid);
  assert.is(f.ppid, stat.ppid, "ppid = /proc stat");
  assert.is(f.ppid, ps.ppid, "ppid = ps");
  assert.is(f.uid, uids.uid, "uid = /proc status");
  assert.is(f.euid, uids.euid, "euid = /proc status");
  assert.is(f.uid, ps.uid, "uid = ps");
  assert.is(f.executable, readlinkOrNull(`/proc/${pid}/exe`), "exe = readlink");
  assert.is(f.cwd, readlinkOrNull(`/proc/${pid}/cwd`), "cwd = readlink");
  assert.is(f.tty, ps.tty === "?" ? null : `/dev/${ps.tty}`, "tty = ps");
  // ps derives lstart from the whole-second btime: allow that second plus one of rounding.
  assert.ok(
    Math.abs(f.startTimeUs / 1000 - ps.lstartMs) < 2000,
    `start ${f.startTimeUs} vs ps ${ps.lstartMs}`,
  );
  const uptimeS = Number(
    spawnSync("cat", ["/proc/uptime"], { encoding: "utf8" }).stdout.split(" ")[0],
  );
  const bootMs = Date.now() - uptimeS * 1000;
  const expectedMs = bootMs + (stat.starttime * 1000) / 100;
  assert.ok(Math.abs(f.startTimeUs / 1000 - expectedMs) < 100, "start = boot + starttime ticks");
  assert.is(f.startTimePrecisionUs, 10_000, "Linux start time precision is one USER_HZ tick");
  assert.is(f.identity.kind, "linux-pidfs");
  assert.is(
    f.identity.value,
    `${bootId()}:${pythonPidfsInode(pid)}`,
    "identity = python pidfd inode",
  );
}

linuxTest("a child in a known cwd: every fact matches /proc, ps and python's pidfd", async () => {
  const dir = tempDir("cwd");
  const child = spawnChild("sleep", ["30"], { cwd: dir });
  const pid = child.pid ?? 0;
  await waitFor("sleep to exec", () => readlinkOrNull(`/proc/${pid}/exe`) === "/usr/bin/sleep");
  assertMatchesOracles(pid);
  const f = processFacts(pid);
  assert.is(f.cwd, realpathSync(dir));
  assert.is(f.ppid, process.pid);
  assert.is(f.tty, null);
  assert.is(f.executableDeleted, false);
});

linuxTest("our own process", () => {
  assertMatchesOracles(process.pid);
});

linuxTest("a child on a terminal made by script(1) reports its pty", async () => {
  if (!haveCommand("script")) {
    console.log("SKIP: script(1) is not installed");
    return;
  }
  const child = spawnChild("script", ["-qfc", "echo PID=$$; exec sleep 30", "/dev/null"]);
  const pid = Number(await lineFrom(child, /PID=(\d+)/));
  await waitFor("sleep to exec", () => readlinkOrNull(`/proc/${pid}/exe`) === "/usr/bin/sleep");
  const f = processFacts(pid);
  assert.ok(f.tty?.startsWith("/dev/pts/"), `tty ${f.tty}`);
  assert.is(f.tty, readlinkOrNull(`/proc/${pid}/fd/0`), "tty = the pty on its stdin");
  assertMatchesOracles(pid);
});

linuxTest("a process in a private tmux server's pane reports the pane tty and cwd", async () => {
  if (!haveCommand("tmux")) {
    console.log("SKIP: tmux is not installed");
    return;
  }
  const dir = tempDir("tmux");
  const server = `grok-seat-kernel-${process.pid}`;
  onCleanup(() => spawnSync("tmux", ["-L", server, "kill-server"], { stdio: "ignore" }));
  const r = spawnSync("tmux", [
    "-L",
    server,
    "-f",
    "/dev/null",
    "new-session",
    "-d",
    "-c",
    dir,
    "sleep 30",
  ]);
  assert.is(r.status, 0, String(r.stderr));
  const pane = await waitFor("the pane", () => {
    const out = spawnSync("tmux", ["-L", server, "list-panes", "-F", "#{pane_pid} #{pane_tty}"], {
      encoding: "utf8",
    }).stdout.trim();
    const [pid, tty] = out.split(" ");
    return pid && tty ? { pid: Number(pid), tty } : undefined;
  });
  await waitFor(
    "sleep to exec",
    () => readlinkOrNull(`/proc/${pane.pid}/exe`) === "/usr/bin/sleep",
  );
  const f = processFacts(pane.pid);
  assert.is(f.tty, pane.tty);
  assert.is(f.cwd, realpathSync(dir));
  assertMatchesOracles(pane.pid);
});

linuxTest("a deleted executable is flagged; a file really named '(deleted)' is not", async () => {
  const dir = tempDir("exe");
  const gone = join(dir, "gone-sleep");
  copyFileSync("/usr/bin/sleep", gone);
  spawnSync("chmod", ["755", gone]);
  const a = spawnChild(gone, ["30"]);
  await waitFor("exec", () => readlinkOrNull(`/proc/${a.pid}/exe`) === gone);
  unlinkSync(gone);
  const fa = processFacts(a.pid ?? 0);
  assert.is(fa.executable, gone);
  assert.is(fa.executableDeleted, true);

  const named = join(dir, "odd (deleted)");
  copyFileSync("/usr/bin/sleep", named);
  spawnSync("chmod", ["755", named]);
  const b = spawnChild(named, ["30"]);
  await waitFor("exec", () => readlinkOrNull(`/proc/${b.pid}/exe`) === named);
  const fb = processFacts(b.pid ?? 0);
  assert.is(fb.executable, named);
  assert.is(fb.executableDeleted, false);
});

linuxTest("exec keeps the identity and the start time (pidfs inode survives exec)", async () => {
  const child = spawnChild("sh", ["-c", "read x; exec sleep 30"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const pid = child.pid ?? 0;
  await waitFor("sh to run", () => readlinkOrNull(`/proc/${pid}/exe`)?.includes("sh"));
  const before = processFacts(pid);
  child.stdin?.write("\n");
  await waitFor("exec", () => readlinkOrNull(`/proc/${pid}/exe`) === "/usr/bin/sleep");
  const after = processFacts(pid);
  assert.equal(after.identity, before.identity);
  assert.is(after.startTimeUs, before.startTimeUs);
  assert.is.not(after.executable, before.executable);
});

linuxTest("a dead pid is NO_SUCH_PROCESS, and really gone", async () => {
  const child = spawnChild("true", []);
  const pid = child.pid ?? 0;
  await exited(child);
  await waitFor("reap", () => !pidExists(pid));
  assert.is(
    codeOf(() => processFacts(pid)),
    "NO_SUCH_PROCESS",
  );
});

linuxTest("a zombie is ZOMBIE (parent sh exec'd sleep and never waits)", async () => {
  const { zpid } = await spawnZombie();
  assert.is(
    codeOf(() => processFacts(zpid)),
    "ZOMBIE",
  );
});

linuxTest(
  "a process read before it died: ZOMBIE while unreaped, then NO_SUCH_PROCESS (no stale facts)",
  async () => {
    const child = spawnChild("sleep", ["30"]);
    const pid = child.pid ?? 0;
    await waitFor("exec", () => readlinkOrNull(`/proc/${pid}/exe`) === "/usr/bin/sleep");
    const before = processFacts(pid);
    child.kill("SIGKILL");
    // libuv reaps on the event loop (docs/design/reliability-plan.md finding 3): spin without yielding.
    const deadline = Date.now() + 5000;
    while (procStat(pid)?.state !== "Z" && Date.now() < deadline) {
      // busy-wait on purpose
    }
    assert.is(procStat(pid)?.state, "Z");
    assert.is(
      codeOf(() => processFacts(pid)),
      "ZOMBIE",
    );
    await exited(child);
    await waitFor("reap", () => !pidExists(pid));
    assert.is(
      codeOf(() => processFacts(pid)),
      "NO_SUCH_PROCESS",
    );
    assert.is(before.pid, pid);
  },
);

linuxTest("a process of another uid (setpriv 65534): facts for root, uid/euid 65534", async () => {
  const child = spawnChild(asNobody[0] ?? "setpriv", [...asNobody.slice(1), "sleep", "30"]);
  const pid = child.pid ?? 0;
  await waitFor("sleep as nobody", () => readlinkOrNull(`/proc/${pid}/exe`) === "/usr/bin/sleep");
  const f = processFacts(pid);
  assert.is(f.uid, 65534);
  assert.is(f.euid, 65534);
  assertMatchesOracles(pid);
});

const ProbeFacts = v.array(
  v.object({
    pid: v.number(),
    ok: v.boolean(),
    code: v.optional(v.string()),
    value: v.optional(v.unknown()),
  }),
);

linuxTest(
  "as an unprivileged caller: denied is ACCESS_DENIED, never gone; own and dead are right",
  async () => {
    const rootChild = spawnChild("sleep", ["30"]);
    const nobodyChild = spawnChild(asNobody[0] ?? "setpriv", [...asNobody.slice(1), "sleep", "30"]);
    const { zpid } = await spawnZombie();
    const dead = spawnChild("true", []);
    await exited(dead);
    await waitFor(
      "children ready",
      () =>
        readlinkOrNull(`/proc/${nobodyChild.pid}/exe`) === "/usr/bin/sleep" &&
        readlinkOrNull(`/proc/${rootChild.pid}/exe`) === "/usr/bin/sleep" &&
        procStat(zpid)?.state === "Z" &&
        !pidExists(dead.pid ?? 0),
    );
    const results = v.parse(
      ProbeFacts,
      probeAsNobody([
        "facts",
        String(rootChild.pid),
        String(nobodyChild.pid),
        String(zpid),
        String(dead.pid),
      ]),
    );
    const byPid = new Map(results.map((r) => [r.pid, r]));
    assert.is(
      byPid.get(rootChild.pid ?? 0)?.code,
      "ACCESS_DENIED",
      "root's process is denied, not gone",
    );
    assert.is(byPid.get(nobodyChild.pid ?? 0)?.ok, true, "own-uid process is readable");
    assert.is(byPid.get(zpid)?.code, "ZOMBIE");
    assert.is(byPid.get(dead.pid ?? 0)?.code, "NO_SUCH_PROCESS");
  },
);

const Sweep = v.array(
  v.object({
    pid: v.number(),
    before: v.nullable(v.string()),
    ok: v.boolean(),
    code: v.optional(v.string()),
    value: v.optional(v.unknown()),
  }),
);

/** Each pid gives facts or an allowed code; every NO_SUCH_PROCESS / ZOMBIE is checked independently. */
function checkSweep(rows: v.InferOutput<typeof Sweep>, who: string): void {
  const allowed = new Set(["NO_SUCH_PROCESS", "ZOMBIE", "ACCESS_DENIED"]);
  let ok = 0;
  for (const row of rows) {
    if (row.ok) {
      ok++;
      continue;
    }
    assert.ok(allowed.has(row.code ?? ""), `${who}: pid ${row.pid} gave ${row.code}`);
    if (row.code === "NO_SUCH_PROCESS") {
      const now = procStat(row.pid);
      // Gone, or the number now belongs to a process that started later (reuse).
      assert.ok(
        now === null || String(now.starttime) !== row.before,
        `${who}: pid ${row.pid} is not gone`,
      );
    }
    if (row.code === "ZOMBIE") {
      const now = procStat(row.pid);
      assert.ok(
        now === null || now.state === "Z" || now.state === "X",
        `${who}: ${row.pid} not a zombie`,
      );
    }
  }
  assert.ok(ok > 0, `${who}: some pid was readable`);
}

linuxTest("sweep every pid on the machine as root", () => {
  const rows = readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .map((pid) => {
      const before = procStat(pid);
      try {
        processFacts(pid);
        return { pid, before: before ? String(before.starttime) : null, ok: true };
      } catch (err) {
        if (!(err instanceof KernelError)) throw err;
        return { pid, before: before ? String(before.starttime) : null, ok: false, code: err.code };
      }
    });
  assert.ok(rows.length > 3);
  checkSweep(rows, "root");
});

linuxTest("sweep every pid on the machine as uid 65534", () => {
  const rows = v.parse(Sweep, probeAsNobody(["sweep"]));
  checkSweep(rows, "nobody");
  assert.ok(
    rows.some((r) => r.code === "ACCESS_DENIED"),
    "root's processes are denied to nobody",
  );
});

linuxTest("a kernel thread has no executable path (null), not an error", () => {
  const comm = spawnSync("cat", ["/proc/2/comm"], { encoding: "utf8" }).stdout.trim();
  if (comm !== "kthreadd") {
    console.log(`SKIP: pid 2 is ${JSON.stringify(comm)}, not kthreadd, in this pid namespace`);
    return;
  }
  const f = processFacts(2);
  assert.is(f.executable, null);
  assert.is(f.cwd, "/");
});

linuxTest("bad pids are INVALID_ARGUMENT usage errors, never crashes", () => {
  for (const pid of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 2 ** 53, -0]) {
    assert.is(
      codeOf(() => processFacts(pid)),
      "INVALID_ARGUMENT",
      `pid ${pid}`,
    );
  }
  assert.ok(
    (() => {
      try {
        processFacts(0);
      } catch (err) {
        return err instanceof UsageError;
      }
      return false;
    })(),
  );
  // 2^31-1 is a valid pid_t that cannot exist (pid_max <= 2^22).
  assert.is(
    codeOf(() => processFacts(2 ** 31 - 1)),
    "NO_SUCH_PROCESS",
  );
});

test.run();
