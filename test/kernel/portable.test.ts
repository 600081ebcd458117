/**
 * The kernel layer on every supported OS (Linux and macOS CI): facts against `ps` and what Node
 * itself knows, listeners, peers, handles and flock between real processes. The Linux-only files
 * next to this one add procfs, ss, setpriv and unshare oracles.
 */
import { spawnSync } from "node:child_process";
import { closeSync, openSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { flock } from "../../lib/kernel/flock.js";
import { openProcessHandle } from "../../lib/kernel/handle.js";
import { kernelInfo } from "../../lib/kernel/info.js";
import { peerCredentials } from "../../lib/kernel/peer.js";
import { peerSocketFile } from "../../lib/kernel/peer-socket.js";
import { processFacts } from "../../lib/kernel/process.js";
import { socketFacts } from "../../lib/kernel/socket.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import {
  cleanup,
  connectUnix,
  exited,
  lineFrom,
  onCleanup,
  psFacts,
  repoRoot,
  signalToExit,
  spawnChild,
  spawnListener,
  tempDir,
  waitFor,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);

const darwin = process.platform === "darwin";

const codeOf = (fn: () => unknown): string => codeOfError(fn, "OK");

function sleepPath(): string {
  return realpathSync(
    spawnSync("sh", ["-c", "command -v sleep"], { encoding: "utf8" }).stdout.trim(),
  );
}

test("our own process: pid, ppid, uid, cwd and executable as Node reports them", () => {
  const f = processFacts(process.pid);
  assert.is(f.pid, process.pid);
  assert.is(f.ppid, process.ppid);
  assert.is(f.uid, process.getuid?.());
  assert.is(f.euid, process.geteuid?.());
  assert.is(f.cwd, realpathSync(process.cwd()));
  assert.is(f.executable, realpathSync(process.execPath));
  assert.is(f.identity.kind, darwin ? "darwin-uniqueid" : "linux-pidfs");
  assert.is(f.startTimePrecisionUs, darwin ? 1 : 10_000);
  assert.ok(Math.abs(f.startTimeUs / 1000 - (Date.now() - process.uptime() * 1000)) < 2000);
});

test("a child in a known cwd matches ps (ppid, uid, tty, start) and its executable", async () => {
  const dir = tempDir("portable");
  const child = spawnChild("sleep", ["30"], { cwd: dir });
  const pid = child.pid ?? 0;
  const exe = sleepPath();
  const f = await waitFor("sleep to exec", () => {
    try {
      const facts = processFacts(pid);
      return facts.executable === exe ? facts : undefined;
    } catch {
      return undefined;
    }
  });
  const ps = psFacts(pid);
  assert.ok(ps, "ps sees the child");
  assert.is(f.ppid, ps.ppid);
  assert.is(f.ppid, process.pid);
  assert.is(f.uid, ps.uid);
  assert.is(f.tty, null);
  assert.ok(ps.tty === "?" || ps.tty === "??", `ps tty ${ps.tty}`);
  assert.is(f.cwd, realpathSync(dir));
  assert.ok(Math.abs(f.startTimeUs / 1000 - ps.lstartMs) < 2000, "start time vs ps lstart");
  assert.equal(processFacts(pid).identity, f.identity, "identity is stable");
});

test("a dead pid is NO_SUCH_PROCESS; bad pids are INVALID_ARGUMENT", async () => {
  const child = spawnChild("sleep", ["0"]);
  await exited(child);
  await waitFor("gone", () => codeOf(() => processFacts(child.pid ?? 0)) === "NO_SUCH_PROCESS");
  for (const pid of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
    assert.is(
      codeOf(() => processFacts(pid)),
      "INVALID_ARGUMENT",
      String(pid),
    );
  }
});

test("a listener in a private dir is found; a killed one leaves a stale socket without listeners", async () => {
  const dir = realpathSync(tempDir("plisten"));
  const path = join(dir, "s.sock");
  const child = await spawnListener(path);
  const f = socketFacts(path);
  assert.is(f.type, "socket");
  assert.equal(f.listeners, [child.pid]);
  assert.is(f.dir.mode, 0o700);
  child.kill("SIGKILL");
  await exited(child);
  assert.equal(socketFacts(path).listeners, []);
});

test("the peer of a connection is the listening child, with processFacts' identity", async () => {
  const dir = realpathSync(tempDir("ppeer"));
  const path = join(dir, "s.sock");
  const child = await spawnListener(path);
  const sock = await connectUnix(path, { accepted: true });
  const peer = peerCredentials(sock);
  assert.is(peer.pid, child.pid);
  assert.is(peer.uid, process.getuid?.());
  assert.is(peer.method, darwin ? "LOCAL_PEERTOKEN" : "SO_PEERPIDFD");
  assert.equal(peer.identity, processFacts(child.pid ?? 0).identity);
  if (darwin)
    assert.is(
      codeOf(() => peerSocketFile(sock)),
      "UNSUPPORTED",
    );
  else assert.ok(peerSocketFile(sock).file);
});

test("a handle signals, sees the exit, then refuses; a wrong identity is refused", async () => {
  const a = spawnChild("sleep", ["30"]);
  const b = spawnChild("sleep", ["30"]);
  const h = openProcessHandle(a.pid ?? 0);
  assert.equal(h.identity, processFacts(a.pid ?? 0).identity);
  assert.is(
    codeOf(() => openProcessHandle(b.pid ?? 0, h.identity)),
    "NO_SUCH_PROCESS",
  );
  assert.is(h.isAlive(), true);
  await signalToExit(h, "SIGTERM");
  h.close();
});

test("flock between two processes: held elsewhere -> false; released when the holder dies", async () => {
  const path = join(tempDir("pflock"), "lock");
  writeFileSync(path, "");
  const script = `
    import { openSync } from "node:fs";
    import { flock } from ${JSON.stringify(join(repoRoot, "lib", "kernel", "flock.ts"))};
    const fd = openSync(${JSON.stringify(path)}, "r+");
    if (flock(fd, "exclusive", { nonBlocking: true })) console.log("HELD");
    setInterval(() => {}, 1000);
  `;
  const holder = spawnChild(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    {
      cwd: repoRoot,
    },
  );
  await lineFrom(holder, /(HELD)/, 30_000);
  const fd = openSync(path, "r+");
  onCleanup(() => closeSync(fd));
  assert.is(flock(fd, "exclusive", { nonBlocking: true }), false);
  assert.is(flock(fd, "shared", { nonBlocking: true }), false);
  holder.kill("SIGKILL");
  await exited(holder);
  await waitFor("release on death", () => flock(fd, "exclusive", { nonBlocking: true }));
  assert.is(flock(fd, "unlock"), true);
});

test("in worker threads: facts, handles and an exit watch still active when the worker exits", async () => {
  const root = JSON.stringify(join(repoRoot, "/"));
  const dir = tempDir("worker");
  for (const mode of ["facts", "watch-exit", "watch-then-exit-worker"]) {
    // The worker loads the addon itself (node-gyp-build, as lib/kernel/loader.ts does): tsx's
    // loader does not reach worker threads on node 20, and the point here is the native layer.
    const code = `
      import { parentPort } from "node:worker_threads";
      import { spawn } from "node:child_process";
      import { createRequire } from "node:module";
      const require = createRequire(${root});
      const a = require("node-gyp-build")(${root});
      const c = spawn("sleep", ["30"], { stdio: "ignore" });
      const numbers = new Float64Array(7);
      a.processFacts(process.pid, numbers);
      const ok = numbers[0] === process.pid;
      const h = a.openProcessHandle(c.pid, null);
      const mode = ${JSON.stringify(mode)};
      if (mode === "facts") { h.close(); c.kill(); parentPort.postMessage(ok); }
      if (mode === "watch-exit") {
        await new Promise((resolve) => { if (h.watchExit(resolve)) resolve(); c.kill(); });
        parentPort.postMessage(ok && !h.isAlive());
      }
      if (mode === "watch-then-exit-worker") {
        h.watchExit(() => {});
        parentPort.postMessage(ok);
        c.kill();
        process.exit(0);
      }
    `;
    const file = join(dir, `${mode}.mjs`);
    writeFileSync(file, code);
    const r = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `import { Worker } from "node:worker_threads";
         const w = new Worker(${JSON.stringify(file)}, { execArgv: ["--import", "tsx"] });
         w.on("message", (m) => console.log("MSG", m));
         w.on("exit", (c) => console.log("EXIT", c));`,
      ],
      { cwd: repoRoot, encoding: "utf8", timeout: 30_000 },
    );
    assert.is(r.status, 0, `${mode}: status ${r.status} signal ${r.signal} ${r.stderr}`);
    assert.match(r.stdout, /MSG true/, mode);
    assert.match(r.stdout, /EXIT 0/, mode);
  }
});

test("kernelInfo names this platform and its sun_path limit", () => {
  const k = kernelInfo();
  assert.is(k.platform, process.platform);
  assert.ok(k.bootId.length > 0);
  assert.is(k.sunPathMax, darwin ? 103 : 107);
  assert.is(k.pidfsIdentity, darwin ? false : k.pidfsIdentity);
});

test.run();
