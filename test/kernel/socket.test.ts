import { type ChildProcess, spawnSync } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { UsageError } from "../../lib/errors.js";
import { KernelError } from "../../lib/kernel/kernel-error.js";
import { socketFacts } from "../../lib/kernel/socket.js";
import {
  asNobody,
  cleanup,
  exited,
  haveCommand,
  lineFrom,
  linuxOnly,
  onCleanup,
  probeAsNobody,
  renamedUnderListener,
  repoRoot,
  spawnChild,
  spawnListener,
  ssListeners,
  tempDir,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the socket listener tests");

function failure(fn: () => unknown): { code: string; errno?: number; syscall?: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof KernelError)
      return { code: err.code, errno: err.errno, syscall: err.syscall };
    if (err instanceof UsageError) return { code: err.code };
    throw err;
  }
  return { code: "OK" };
}

linuxTest(
  "a child listening in a private dir is the listener; lstat facts match; ss -xlp agrees",
  async () => {
    const dir = tempDir("sock");
    const path = join(dir, "leader.sock");
    const child = await spawnListener(path);
    const f = socketFacts(path);
    const st = lstatSync(path, { bigint: true });
    const dst = lstatSync(dir);
    assert.is(f.path, path);
    assert.is(f.type, "socket");
    assert.is(f.inode, String(st.ino));
    assert.is(f.device, String(st.dev));
    assert.is(f.uid, Number(st.uid));
    assert.is(f.mode, Number(st.mode) & 0o7777);
    assert.equal(f.dir, {
      path: dir,
      type: "directory",
      uid: dst.uid,
      mode: dst.mode & 0o7777,
      isSymlink: false,
    });
    assert.equal(f.listeners, [child.pid]);
    assert.is(f.listeningSockets, 1, "one listening socket in the kernel's table");
    if (haveCommand("ss")) assert.equal(ssListeners(path), [child.pid ?? 0], "ss -xlp");
    else console.log("SKIP (oracle): ss is not installed");

    // Its binder killed: the file stays (stale), and the kernel's table holds no listener for it.
    child.kill("SIGKILL");
    await exited(child);
    const stale = socketFacts(path);
    assert.is(stale.type, "socket");
    assert.equal(stale.listeners, []);
    assert.is(stale.listeningSockets, 0);
    if (haveCommand("ss")) assert.equal(ssListeners(path), [], "ss -xlp after the kill");
  },
);

/** The two pids a forking python holder prints as `PIDS a b`, sorted; both killed at cleanup. */
async function forkedHolders(child: ChildProcess): Promise<number[]> {
  const line = await lineFrom(child, /(PIDS \d+ \d+)/);
  const pids = line
    .split(" ")
    .slice(1)
    .map(Number)
    .sort((a, b) => a - b);
  onCleanup(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
  return pids;
}

linuxTest(
  "a listening fd shared by a forked child: both holders are listed, as ss -xlp shows",
  async () => {
    const dir = tempDir("fork");
    const path = join(dir, "s.sock");
    const py = [
      "import os, socket, time",
      "s = socket.socket(socket.AF_UNIX); s.bind(os.environ['P']); s.listen()",
      "pid = os.fork()",
      "print('PIDS', os.getpid() if pid else os.getppid(), pid if pid else os.getpid(), flush=True) if pid else None",
      "time.sleep(30)",
    ].join("\n");
    const child = spawnChild("/usr/bin/python3", ["-c", py], { env: { ...process.env, P: path } });
    const pids = await forkedHolders(child);
    const f = socketFacts(path);
    assert.equal([...f.listeners], pids);
    if (haveCommand("ss")) assert.equal(ssListeners(path), pids);
    // Checked one at a time, each holder is a listener too.
    for (const pid of pids) assert.equal(socketFacts(path, { pid }).listeners, [pid], `pid ${pid}`);
  },
);

linuxTest(
  "with many processes (two-thread scan), holders in both halves of /proc are found",
  async () => {
    const dir = tempDir("many");
    const path = join(dir, "s.sock");
    // The listener binds first (a low pid), forks a second holder after 300 sleepers (a high pid).
    const py = [
      "import os, socket, sys, time",
      "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); print('READY', flush=True)",
      "sys.stdin.readline()",
      "pid = os.fork()",
      "print('PIDS', os.getpid(), pid, flush=True) if pid else None",
      "time.sleep(30)",
    ].join("\n");
    const holder = spawnChild("/usr/bin/python3", ["-c", py, path], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    await lineFrom(holder, /(READY)/);
    const crowd = spawnChild(
      "sh",
      ["-c", "i=0; while [ $i -lt 300 ]; do sleep 60 & i=$((i+1)); done; echo SPAWNED; wait"],
      { detached: true },
    );
    await lineFrom(crowd, /(SPAWNED)/);
    holder.stdin?.write("\n");
    const pids = await forkedHolders(holder);
    const procs = readdirSync("/proc").filter((n) => /^\d+$/.test(n)).length;
    assert.ok(procs >= 256, `${procs} processes: enough for the two-thread scan`);
    assert.equal([...socketFacts(path).listeners], pids);
    if (haveCommand("ss")) assert.equal(ssListeners(path), pids);
  },
);

linuxTest(
  "matching is by the bound file (dev+ino), not the path string: a renamed socket keeps its listener",
  async () => {
    const { path, moved, first, second } = await renamedUnderListener(tempDir("swap"));
    assert.equal([...socketFacts(path).listeners], [second.pid]);
    assert.equal(
      [...socketFacts(moved).listeners],
      [first.pid],
      "the moved file still has its listener",
    );
    // Checked for one pid, the same: the file decides, not the path string it was bound with.
    assert.equal(socketFacts(path, { pid: first.pid ?? 0 }).listeners, []);
    assert.equal(socketFacts(path, { pid: second.pid ?? 0 }).listeners, [second.pid]);
    assert.equal(socketFacts(moved, { pid: first.pid ?? 0 }).listeners, [first.pid]);
  },
);

linuxTest(
  "with { pid }: a listener is [pid], a process that does not listen or is gone is [], as ss -xlp says",
  async () => {
    const dir = tempDir("bypid");
    const path = join(dir, "leader.sock");
    const listener = await spawnListener(path);
    const idle = spawnChild("sleep", ["30"]);
    const gone = spawnChild("sleep", ["0"]);
    await exited(gone);
    const lpid = listener.pid ?? 0;
    const f = socketFacts(path, { pid: lpid });
    assert.equal(f.listeners, [lpid]);
    assert.is(f.listeningSockets, 1);
    assert.is(f.type, "socket");
    assert.equal(socketFacts(path, { pid: idle.pid ?? 0 }).listeners, []);
    assert.equal(socketFacts(path, { pid: process.pid }).listeners, [], "our own process");
    const ofGone = socketFacts(path, { pid: gone.pid ?? 0 });
    assert.equal(ofGone.listeners, [], "a gone pid holds nothing");
    assert.is(ofGone.listeningSockets, 1, "the count is the kernel's, whoever holds it");
    if (haveCommand("ss")) {
      assert.equal(ssListeners(path), [lpid], "ss -xlp");
      assert.ok(!ssListeners(path).includes(idle.pid ?? 0));
    } else console.log("SKIP (oracle): ss is not installed");
    // A file that is not a socket has no listener, for any pid.
    const plain = join(dir, "plain");
    writeFileSync(plain, "x");
    assert.equal(socketFacts(plain, { pid: lpid }).listeners, []);
    listener.kill("SIGKILL");
    await exited(listener);
    const stale = socketFacts(path, { pid: lpid });
    assert.equal(stale.listeners, []);
    assert.is(stale.listeningSockets, 0);
  },
);

/** What strace logs of one probe process's calls in `trace` (e.g. "openat,open"). */
function straceProbe(trace: string, args: readonly string[]): string {
  const log = join(tempDir("strace"), "log");
  const r = spawnSync(
    "strace",
    [
      "-f",
      "-qq",
      "-e",
      `trace=${trace}`,
      "-o",
      log,
      process.execPath,
      "--import",
      "tsx",
      join(repoRoot, "test", "kernel", "fixtures", "kernel-probe.ts"),
      ...args,
    ],
    { cwd: repoRoot, encoding: "utf8" },
  );
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /"ok":true/);
  return readFileSync(log, "utf8");
}

/** The files a probe process opened (relative opens under /proc keep their name). */
function openedBy(args: readonly string[]): string[] {
  return [...straceProbe("openat,open", args).matchAll(/open(?:at)?\([^"]*"([^"]*)"/g)].map(
    (m) => m[1] ?? "",
  );
}

/**
 * The netlink flags of each request a probe process sent, as strace decodes the header. Without a
 * decoder for sock_diag it prints NLM_F_DUMP (NLM_F_ROOT|NLM_F_MATCH) as 0x300.
 */
function netlinkFlagsOf(args: readonly string[]): string[] {
  return [...straceProbe("sendto", args).matchAll(/nlmsg_flags=([^,]+)/g)].map((m) => m[1] ?? "");
}

linuxTest(
  "with { pid } the proof path never scans: only /proc/<pid>/fd is opened (strace); without, every process is",
  async () => {
    if (!haveCommand("strace")) {
      console.log("SKIP: strace is not installed (apt-get install strace)");
      return;
    }
    const dir = tempDir("noscan");
    const path = join(dir, "s.sock");
    const listener = await spawnListener(path);
    const pid = listener.pid ?? 0;
    const fdDirs = (opened: string[]) => opened.filter((p) => /^(\/proc\/)?\d+\/fd$/.test(p));
    const targeted = openedBy(["socket-pid", path, String(pid)]);
    assert.equal(fdDirs(targeted), [`/proc/${pid}/fd`]);
    assert.not.ok(targeted.includes("/proc"), "/proc itself is not listed");
    const scanned = fdDirs(openedBy(["socket", path]));
    assert.ok(scanned.length > 20, `the scan opened ${scanned.length} fd directories`);
    // Nor does it list the machine's socket table when the pid holds the listener: each of its
    // socket fds is one exact sock_diag lookup. Only a miss (or the scan) dumps the table.
    const exact = netlinkFlagsOf(["socket-pid", path, String(pid)]);
    assert.ok(exact.length >= 1, "at least one sock_diag request");
    assert.equal(
      exact.filter((f) => f !== "NLM_F_REQUEST"),
      [],
      `exact lookups only: ${exact.join(", ")}`,
    );
    const miss = netlinkFlagsOf(["socket-pid", path, String(process.pid)]);
    assert.ok(
      miss.some((f) => /NLM_F_DUMP|0x300/.test(f)),
      `a miss dumps: ${miss.join(", ")}`,
    );
  },
);

linuxTest(
  "a stale socket (listener killed) has no listener; files that are not sockets have none",
  async () => {
    const dir = tempDir("stale");
    const path = join(dir, "s.sock");
    const child = await spawnListener(path);
    child.kill("SIGKILL");
    await exited(child);
    const f = socketFacts(path);
    assert.is(f.type, "socket");
    assert.equal(f.listeners, []);
    const file = join(dir, "plain");
    writeFileSync(file, "x");
    assert.is(socketFacts(file).type, "file");
    assert.equal(socketFacts(file).listeners, []);
  },
);

linuxTest("a symlinked directory is reported as such (the socket itself is lstat'ed)", async () => {
  const dir = tempDir("link");
  const real = join(dir, "real");
  mkdirSync(real, { mode: 0o700 });
  const child = await spawnListener(join(real, "s.sock"));
  symlinkSync(real, join(dir, "alias"));
  const f = socketFacts(join(dir, "alias", "s.sock"));
  assert.is(f.dir.isSymlink, true);
  assert.is(f.dir.type, "symlink");
  assert.equal(f.listeners, [child.pid]);
  const linkedSock = join(dir, "sock-link");
  symlinkSync(join(real, "s.sock"), linkedSock);
  assert.is(socketFacts(linkedSock).type, "symlink", "the last component is not followed");
});

linuxTest("missing paths, long paths and unreadable dirs give typed errors", () => {
  const dir = tempDir("err");
  const missing = failure(() => socketFacts(join(dir, "nope.sock")));
  assert.equal(missing, { code: "SYSCALL_FAILED", errno: 2, syscall: "lstat(path)" });
  assert.is(failure(() => socketFacts(join(dir, "no", "such", "x.sock"))).syscall, "lstat(dir)");
  assert.is(failure(() => socketFacts(`/tmp/${"a".repeat(120)}`)).code, "INVALID_ARGUMENT");
  assert.is(failure(() => socketFacts("")).code, "INVALID_ARGUMENT");
  assert.is(failure(() => socketFacts("/tmp/a\u0000b")).code, "INVALID_ARGUMENT");
  // exactly sun_path - 1 bytes is allowed
  const exact = `/tmp/${"b".repeat(107 - 5)}`;
  assert.is(exact.length, 107);
  assert.is(failure(() => socketFacts(exact)).errno, 2);
});

const ProbeSocket = v.object({
  ok: v.boolean(),
  code: v.optional(v.string()),
  value: v.optional(
    v.object({
      listeners: v.array(v.number()),
      listeningSockets: v.nullable(v.number()),
      uid: v.number(),
    }),
  ),
});

linuxTest(
  "as uid 65534: another user's listener is counted but its pid not visible, our own is; a 0700 dir is ACCESS_DENIED",
  async () => {
    const dir = tempDir("nobody");
    chmodSync(dir, 0o755);
    const rootSock = join(dir, "root.sock");
    const rootListener = await spawnListener(rootSock);
    const nobodyDir = join(dir, "nobody");
    mkdirSync(nobodyDir, { mode: 0o700 });
    spawnSync("chown", ["65534:65534", nobodyDir]);
    const nobodySock = join(nobodyDir, "n.sock");
    const nobodyChild = await spawnListener(nobodySock, asNobody);

    const seenRoot = v.parse(ProbeSocket, probeAsNobody(["socket", rootSock]));
    assert.is(seenRoot.ok, true);
    assert.equal(seenRoot.value?.listeners, [], "root's fd table is not readable to nobody");
    assert.is(seenRoot.value?.listeningSockets, 1, "sock_diag still shows root's listener");
    const seenOwn = v.parse(ProbeSocket, probeAsNobody(["socket", nobodySock]));
    assert.equal(seenOwn.value?.listeners, [nobodyChild.pid]);
    assert.is(seenOwn.value?.listeningSockets, 1);

    // With { pid }: root's listener cannot be checked by nobody (an unreadable fd table is not a
    // negative proof), its own can.
    const rootPid = v.parse(
      ProbeSocket,
      probeAsNobody(["socket-pid", rootSock, String(rootListener.pid)]),
    );
    assert.is(rootPid.code, "ACCESS_DENIED");
    const ownPid = v.parse(
      ProbeSocket,
      probeAsNobody(["socket-pid", nobodySock, String(nobodyChild.pid)]),
    );
    assert.equal(ownPid.value?.listeners, [nobodyChild.pid]);
    // As root, nobody's listener is checked like any other.
    assert.equal(socketFacts(nobodySock, { pid: nobodyChild.pid ?? 0 }).listeners, [
      nobodyChild.pid,
    ]);

    const privateDir = join(dir, "private");
    mkdirSync(privateDir, { mode: 0o700 });
    const denied = v.parse(ProbeSocket, probeAsNobody(["socket", join(privateDir, "x.sock")]));
    assert.is(denied.code, "ACCESS_DENIED");
  },
);

linuxTest(
  "the scan lists our uid's holders only; allUsers lists another user's too (as root), as ss -xlp does",
  async () => {
    const dir = tempDir("scope");
    chmodSync(dir, 0o755);
    const path = join(dir, "shared.sock");
    // One listening socket held by two processes: python binds and listens as root, forks, and the
    // child drops to uid 65534 keeping the fd.
    const script = [
      "import os, socket, sys, time",
      "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
      `s.bind(${JSON.stringify(path)}); s.listen(4)`,
      "pid = os.fork()",
      "if pid == 0:",
      "    os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)",
      // One write(2): print() may split a line, and the parent's output would interleave.
      "    os.write(1, b'CHILD %d\\n' % os.getpid()); time.sleep(600)",
      "else:",
      "    os.waitpid(pid, 0)",
    ].join("\n");
    // Its own process group, so cleanup() kills the forked child too.
    const py = spawnChild("python3", ["-c", script], { detached: true });
    const child = Number((await lineFrom(py, /CHILD (\d+)/)).trim());
    const parent = py.pid ?? 0;
    // The child's uid change is visible to the kernel before it prints; check with ps' oracle.
    const uidOf = (pid: number): number =>
      Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/\nUid:\s+\d+\s+(\d+)/)?.[1]);
    assert.is(uidOf(child), 65534);
    assert.is(uidOf(parent), process.geteuid?.() ?? 0);
    assert.equal(
      ssListeners(path),
      [parent, child].sort((a, b) => a - b),
      "ss -xlp sees both",
    );

    const ours = socketFacts(path);
    assert.equal(ours.listeners, [parent], "the default scan skips another user's process");
    assert.is(ours.listeningSockets, 1);
    const all = socketFacts(path, { allUsers: true });
    assert.equal(
      all.listeners,
      [parent, child].sort((a, b) => a - b),
    );
    // With a pid, the scope does not apply: that process is read whoever owns it.
    assert.equal(socketFacts(path, { pid: child, allUsers: false }).listeners, [child]);
    assert.equal(
      failure(() => socketFacts(path, { allUsers: 1 as unknown as boolean })).code,
      "INVALID_ARGUMENT",
    );
  },
);

test.run();
