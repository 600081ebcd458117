// @platform darwin: LOCAL_PEERCRED/LOCAL_PEERTOKEN holder checks, connect-resolved listeners, flavor-17 zombie handles and Mach-O image checks exist only in the macOS backend
/**
 * The macOS backend against real processes (issue 17 items 1–5), with `ps` and `lsof` as oracles
 * where macOS has one. Runs on the macOS CI jobs; on Linux the runner skips it with the reason
 * above, and `npm run check` compiles native/darwin for syntax.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, realpathSync, renameSync, unlinkSync } from "node:fs";
import type { Socket } from "node:net";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openProcessHandle } from "../../lib/kernel/handle.js";
import { peerCredentials } from "../../lib/kernel/peer.js";
import { processFacts } from "../../lib/kernel/process.js";
import { socketFacts } from "../../lib/kernel/socket.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import {
  cleanup,
  connectUnix,
  exited,
  haveCommand,
  lineFrom,
  onCleanup,
  renamedUnderListener,
  spawnChild,
  tempDir,
  waitFor,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);

const codeOf = (fn: () => unknown): string => codeOfError(fn, "OK");

/** A private dir with /private resolved, so paths compare as the kernel reports them. */
function dir(prefix: string): string {
  return realpathSync(tempDir(prefix));
}

function python(): string | null {
  return haveCommand("python3") ? "python3" : null;
}

/** `ps -o stat=` for one pid ("" when gone): the oracle for zombies on macOS. */
function psStat(pid: number): string {
  return spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
}

function killLater(pid: number): void {
  onCleanup(() => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  });
}

function firstLine(sock: Socket, text: string): Promise<void> {
  return new Promise((resolve) => {
    let buf = "";
    const onData = (d: Buffer): void => {
      buf += d.toString();
      if (buf.includes(text)) {
        sock.off("data", onData);
        resolve();
      }
    };
    sock.on("data", onData);
  });
}

// --- item 1: peer identity only for a process that holds the other end -----------------------

test("the process that last used the peer socket but handed it on is not the peer; its new holder is", async () => {
  const path = join(dir("handoff"), "s.sock");
  // A accepts, writes (its pid becomes the socket's last_pid), passes the connection to B as fd 3
  // and closes its own copy. B writes "B" on fd 3 when A forwards a line to its stdin.
  const server = `
    const net = require("net");
    const { spawn } = require("child_process");
    const b = { child: null };
    net.createServer((c) => {
      c.write("A\\n", () => {
        b.child = spawn(process.execPath, ["-e",
          "process.stdin.on('data', () => require('fs').writeSync(3, 'B\\\\n')); setInterval(() => {}, 1000)"],
          { stdio: ["pipe", "inherit", "inherit", c] });
        console.log("B=" + b.child.pid);
        c.destroy();
      });
    }).listen(${JSON.stringify(path)}, () => console.log("LISTENING"));
    process.stdin.on("data", () => b.child && b.child.stdin.write("go\\n"));
  `;
  const a = spawnChild(process.execPath, ["-e", server], { stdio: ["pipe", "pipe", "pipe"] });
  await lineFrom(a, /(LISTENING)/);
  const bLine = lineFrom(a, /B=(\d+)/); // listening before A can print it
  const sock = await connectUnix(path, { accepted: true });
  const bPid = Number(await bLine);
  killLater(bPid);
  const aPid = a.pid ?? 0;
  // A no longer holds the connection: LOCAL_PEERTOKEN still names A (the last user), so the pid
  // is A's but there is no identity.
  const before = await waitFor("A to close its copy", () => {
    const p = peerCredentials(sock);
    return p.identity === null ? p : undefined;
  });
  assert.is(before.pid, aPid);
  assert.is(before.method, "LOCAL_PEERTOKEN");
  assert.is(before.uid, process.getuid?.());
  // Once B writes, B is the last user and holds the socket: its identity is proven.
  const gotB = firstLine(sock, "B\n");
  a.stdin?.write("go\n");
  await gotB;
  const after = peerCredentials(sock);
  assert.is(after.pid, bPid);
  assert.equal(after.identity, processFacts(bPid).identity);
});

test("before accept(): the listener the connection waits on is the peer, with its identity", async () => {
  const py = python();
  if (py === null) {
    console.log("SKIP: python3 is not installed (a listener that never accepts)");
    return;
  }
  const path = join(dir("pending"), "s.sock");
  const child = spawnChild(py, [
    "-c",
    "import socket, sys, time\ns = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)\nprint('LISTENING', flush=True); time.sleep(60)",
    path,
  ]);
  await lineFrom(child, /(LISTENING)/);
  const sock = await connectUnix(path);
  const peer = peerCredentials(sock);
  assert.is(peer.pid, child.pid);
  assert.equal(peer.identity, processFacts(child.pid ?? 0).identity);
  assert.equal(socketFacts(path).listeners, [child.pid], "a listener with a waiting connection");
});

// --- item 2: uid and gid as captured at listen() ---------------------------------------------

test("uid and gid are the peer's at listen() (LOCAL_PEERCRED), not after it dropped privileges", async () => {
  const py = python();
  const sudo = spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0;
  if (py === null || !sudo) {
    console.log("SKIP: needs python3 and passwordless sudo (the macOS CI runners have both)");
    return;
  }
  const path = join(dir("creds"), "s.sock");
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const code = [
    "import os, socket, sys, time",
    "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(4)",
    `os.setgid(${gid}); os.setuid(${uid})`,
    "print('PID', os.getpid(), flush=True)",
    "c, _ = s.accept(); c.send(b'x'); time.sleep(60)",
  ].join("\n");
  const child = spawnChild("sudo", ["-n", py, "-c", code, path]);
  const pid = Number(await lineFrom(child, /PID (\d+)/));
  killLater(pid);
  const sock = await connectUnix(path, { accepted: true });
  const peer = peerCredentials(sock);
  assert.is(peer.pid, pid);
  assert.is(peer.uid, 0, "root listened");
  assert.is(peer.gid, 0, "root's group at listen()");
  assert.is(processFacts(pid).euid, uid, "the process runs as us now");
});

// --- item 3: listeners through the kernel ----------------------------------------------------

/** What lsof says a process's unix sockets are named (the string a bound-path match compares). */
function lsofNames(pid: number): string[] {
  const out = spawnSync("lsof", ["-a", "-U", "-p", String(pid), "-F", "n"], { encoding: "utf8" });
  return out.stdout
    .split("\n")
    .filter((l) => l.startsWith("n"))
    .map((l) => l.slice(1));
}

test("a listener on a renamed file is that file's listener, not the new file's of the same name", async () => {
  const { path, moved, first, second } = await renamedUnderListener(dir("replace"));
  if (haveCommand("lsof")) {
    assert.ok(
      lsofNames(first.pid ?? 0).includes(path),
      "lsof names the first socket by the path it bound, which is now the second's",
    );
  } else console.log("SKIP (oracle): lsof is not installed");
  const now = socketFacts(path);
  assert.equal(now.listeners, [second.pid]);
  assert.is(now.listeningSockets, 1);
  assert.equal(socketFacts(moved).listeners, [first.pid]);
  assert.equal(socketFacts(path, { pid: first.pid ?? 0 }).listeners, []);
  assert.equal(socketFacts(path, { pid: second.pid ?? 0 }).listeners, [second.pid]);
  assert.equal(socketFacts(path, { pid: process.pid }).listeners, []);
  second.kill("SIGKILL");
  await exited(second);
  const stale = socketFacts(path);
  assert.equal(stale.listeners, [], "the first still listens under the same name, elsewhere");
  assert.is(stale.listeningSockets, 0);
});

test("a listener that bound a relative name is found; so is a forked second holder", async () => {
  const d = dir("relative");
  const rel = spawnChild(
    process.execPath,
    ["-e", `require("net").createServer(()=>{}).listen("rel.sock",()=>console.log("LISTENING"))`],
    { cwd: d },
  );
  await lineFrom(rel, /(LISTENING)/);
  assert.equal(socketFacts(join(d, "rel.sock")).listeners, [rel.pid]);
  const py = python();
  if (py === null) {
    console.log("SKIP (forked holder): python3 is not installed");
    return;
  }
  const path = join(d, "fork.sock");
  const child = spawnChild(py, [
    "-c",
    "import os, socket, sys, time\ns = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)\npid = os.fork()\nif pid: print('PIDS', os.getpid(), pid, flush=True)\ntime.sleep(60)",
    path,
  ]);
  const pids = (await lineFrom(child, /(PIDS \d+ \d+)/))
    .split(" ")
    .slice(1)
    .map(Number)
    .sort((x, y) => x - y);
  for (const pid of pids) killLater(pid);
  assert.equal([...socketFacts(path).listeners], pids);
  for (const pid of pids) assert.equal(socketFacts(path, { pid }).listeners, [pid]);
});

// --- item 4: zombie handles as on Linux ------------------------------------------------------

test("a handle opens on a zombie with the identity recorded while it lived; its exit is observed at once", async () => {
  const py = python();
  if (py === null) {
    console.log("SKIP: python3 is not installed (a parent that never reaps)");
    return;
  }
  const parent = spawnChild(
    py,
    [
      "-c",
      "import os, sys, time\npid = os.fork()\nif pid == 0:\n  sys.stdin.readline(); os._exit(0)\nprint('Z=%d' % pid, flush=True); time.sleep(60)",
    ],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  const zpid = Number(await lineFrom(parent, /Z=(\d+)/));
  const alive = processFacts(zpid).identity;
  const watched = openProcessHandle(zpid, alive);
  onCleanup(() => watched.close());
  const exitSeen = watched.exited;
  parent.stdin?.write("\n");
  await waitFor("the zombie", () => psStat(zpid).startsWith("Z"));
  await exitSeen; // a watch started while it lived fires on its exit
  const h = openProcessHandle(zpid, alive);
  onCleanup(() => h.close());
  assert.equal(h.identity, alive, "flavor 17 with arg 1 finds the zombie, same p_uniqueid");
  assert.is(h.isAlive(), false);
  await h.exited; // EVFILT_PROC refuses a zombie: the watch reports the exit at once
  assert.is(
    codeOf(() => h.signal("SIGTERM")),
    "NO_SUCH_PROCESS",
  );
  assert.is(
    codeOf(() => processFacts(zpid)),
    "ZOMBIE",
  );
  parent.kill("SIGKILL");
  await exited(parent);
  await waitFor("the zombie reaped", () => psStat(zpid) === "");
  assert.is(
    codeOf(() => openProcessHandle(zpid, alive)),
    "NO_SUCH_PROCESS",
  );
});

// --- item 5: the executable and the controlling terminal -------------------------------------

test("an executable replaced by rename is reported deleted with its path; a deleted one without", async () => {
  const d = dir("exe");
  const exe = join(d, "sl");
  copyFileSync("/bin/sleep", exe);
  const child = spawnChild(exe, ["60"]);
  const pid = child.pid ?? 0;
  const fresh = await waitFor("exec", () => {
    try {
      const f = processFacts(pid);
      return f.executable === exe ? f : undefined;
    } catch {
      return undefined;
    }
  });
  assert.is(fresh.executableDeleted, false);
  const other = join(d, "other");
  copyFileSync("/bin/cat", other);
  renameSync(other, exe);
  const replaced = processFacts(pid);
  assert.is(replaced.executable, exe);
  assert.is(replaced.executableDeleted, true, "the file at the path has another LC_UUID");
  unlinkSync(exe);
  const deleted = processFacts(pid);
  assert.is(deleted.executable, null, "macOS names no path for a deleted executable");
  assert.is(deleted.executableDeleted, true);
});

test("the controlling terminal is named as ps names it, the same on a second read", async () => {
  // script(1) gives sleep a fresh pty as its controlling terminal.
  const child = spawnChild("script", ["-q", "/dev/null", "sleep", "60"], { detached: true });
  const pid = await waitFor("sleep under script", () => {
    const out = spawnSync("pgrep", ["-P", String(child.pid), "sleep"], { encoding: "utf8" });
    const n = Number(out.stdout.trim().split("\n")[0]);
    return n > 0 ? n : undefined;
  });
  const tty = spawnSync("ps", ["-o", "tty=", "-p", String(pid)], {
    encoding: "utf8",
  }).stdout.trim();
  assert.match(tty, /^ttys\d+$/);
  assert.is(processFacts(pid).tty, `/dev/${tty}`);
  assert.is(processFacts(pid).tty, `/dev/${tty}`, "from the cache");
});

test.run();
