/**
 * Test helpers for the kernel tests: real child processes with cleanup, polling (never
 * sleep-and-hope), and independent oracles (`ps`, `/proc`, python's os.pidfd_open) that do not
 * go through the addon.
 */
import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readlinkSync, renameSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Callback, Test } from "uvu";
import * as assert from "uvu/assert";
import type { ProcessHandle } from "../../lib/kernel/types.js";
import { codeOf } from "./error-code.js";
import { poll } from "./poll.js";

const children = new Set<ChildProcess>();
/** Children spawned with `detached: true`: their process group is killed at cleanup. */
const groups = new Set<ChildProcess>();
const dirs = new Set<string>();
const cleanups: (() => void)[] = [];

export const repoRoot: string = fileURLToPath(new URL("../..", import.meta.url));

/** A private temp dir (mode 0700), removed by cleanup(). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `grok-seat-${prefix}-`));
  dirs.add(dir);
  return dir;
}

export function onCleanup(fn: () => void): void {
  cleanups.push(fn);
}

/** Spawn a child that cleanup() kills. */
export function spawnChild(
  cmd: string,
  args: readonly string[],
  options: SpawnOptions = {},
): ChildProcess {
  const child = spawn(cmd, [...args], { stdio: ["ignore", "pipe", "pipe"], ...options });
  children.add(child);
  if (options.detached === true) groups.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

/** Kill a child's whole process group (spawned with `detached: true`). */
export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    // the group is already gone
  }
}

export function cleanup(): void {
  for (const child of children) {
    if (groups.has(child)) killGroup(child);
    child.kill("SIGKILL");
  }
  groups.clear();
  children.clear();
  for (const fn of cleanups.splice(0)) {
    try {
      fn();
    } catch {
      // best effort: the next cleanup must still run
    }
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

/** Poll until `cond` returns a non-undefined value (every 10 ms, up to timeoutMs). */
export function waitFor<T>(
  what: string,
  cond: () => T | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  return poll(
    what,
    () => {
      const v = cond();
      return v === false ? undefined : v;
    },
    timeoutMs,
    10,
  );
}

/** The first line a child prints on stdout that matches `re` (capture group 1). */
export function lineFrom(child: ChildProcess, re: RegExp, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${re} (got ${JSON.stringify(buf)})`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer): void => {
      buf += chunk.toString("utf8");
      const m = re.exec(buf);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        resolve(m[1] ?? m[0]);
      }
    };
    child.stdout?.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(
        new Error(`child exited (${code}) before printing ${re}; output ${JSON.stringify(buf)}`),
      );
    });
  });
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

// --- oracles ---------------------------------------------------------------------------------

export interface ProcStat {
  readonly state: string;
  readonly ppid: number;
  readonly ttyNr: number;
  readonly starttime: number;
}

/** /proc/<pid>/stat parsed after the last ')', or null when the pid is gone. */
export function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    state: f[0] ?? "?",
    ppid: Number(f[1]),
    ttyNr: Number(f[4]),
    starttime: Number(f[19]),
  };
}

/** Real and effective uid from /proc/<pid>/status. */
export function procUids(pid: number): { uid: number; euid: number } | null {
  try {
    const m = /\nUid:\s+(\d+)\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? { uid: Number(m[1]), euid: Number(m[2]) } : null;
  } catch {
    return null;
  }
}

export function readlinkOrNull(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

export function pidExists(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}

export interface PsFacts {
  readonly ppid: number;
  readonly uid: number;
  readonly tty: string;
  readonly lstartMs: number;
}

/** `ps -o ppid=,uid=,tty=,lstart=` for one pid (lstart has whole seconds). */
export function psFacts(pid: number): PsFacts | null {
  const r = spawnSync("ps", ["-o", "ppid=,uid=,tty=,lstart=", "-p", String(pid)], {
    encoding: "utf8",
  });
  const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/m.exec(r.stdout);
  if (!m) return null;
  return {
    ppid: Number(m[1]),
    uid: Number(m[2]),
    tty: m[3] ?? "",
    lstartMs: Date.parse(m[4] ?? ""),
  };
}

/** The pidfs inode of a pid, from python's os.pidfd_open + fstat (no addon involved). */
export function pythonPidfsInode(pid: number): string | null {
  const r = spawnSync(
    "/usr/bin/python3",
    ["-c", "import os,sys; print(os.fstat(os.pidfd_open(int(sys.argv[1]))).st_ino)", String(pid)],
    { encoding: "utf8" },
  );
  return r.status === 0 ? r.stdout.trim() : null;
}

export function bootId(): string {
  return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
}

/** Whether a command exists on PATH. */
export function haveCommand(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

/** The argv prefix that runs a command as uid/gid 65534 with no supplementary groups. */
export const asNobody: readonly string[] = [
  "setpriv",
  "--reuid=65534",
  "--regid=65534",
  "--clear-groups",
];

/** Run test/kernel/fixtures/kernel-probe.ts as uid 65534 and parse its JSON line. */
export function probeAsNobody(args: readonly string[]): unknown {
  const r = spawnSync(
    asNobody[0] ?? "setpriv",
    [
      ...asNobody.slice(1),
      process.execPath,
      "--import",
      "tsx",
      join(repoRoot, "test", "kernel", "fixtures", "kernel-probe.ts"),
      ...args,
    ],
    {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, HOME: "/tmp" },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (r.status !== 0) throw new Error(`probe failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "null");
}

/**
 * A node child listening on a unix socket at `path` (chmod 0777 so other uids may connect); it
 * greets every accepted connection with "HELLO\n". Resolves once it listens.
 */
export async function spawnListener(
  path: string,
  prefix: readonly string[] = [],
): Promise<ChildProcess> {
  const script = `const s=require("net").createServer(c=>{c.on("error",()=>{});c.write("HELLO\\n")});s.listen(${JSON.stringify(path)},()=>{require("fs").chmodSync(${JSON.stringify(path)},0o777);console.log("LISTENING")})`;
  const argv = [...prefix, process.execPath, "-e", script];
  const child = spawnChild(argv[0] ?? process.execPath, argv.slice(1));
  await lineFrom(child, /(LISTENING)/);
  return child;
}

/**
 * A listener bound at `<dir>/s.sock` whose file is then renamed to `moved.sock`, and a second
 * listener bound at the path again: one path string, two socket files.
 */
export async function renamedUnderListener(dir: string): Promise<{
  path: string;
  moved: string;
  first: ChildProcess;
  second: ChildProcess;
}> {
  const path = join(dir, "s.sock");
  const moved = join(dir, "moved.sock");
  const first = await spawnListener(path);
  renameSync(path, moved);
  const second = await spawnListener(path);
  return { path, moved, first, second };
}

/**
 * Signal the handle's process with `sig` and wait for the exit the handle sees: it is then dead,
 * and a further signal refuses NO_SUCH_PROCESS.
 */
export async function signalToExit(h: ProcessHandle, sig: NodeJS.Signals): Promise<void> {
  const done = h.exited;
  h.signal(sig);
  await done;
  assert.is(h.isAlive(), false);
  assert.is(
    codeOf(() => h.signal("SIGTERM"), "OK"),
    "NO_SUCH_PROCESS",
  );
}

/** Pids that `ss -xlp` reports listening on exactly this path. */
export function ssListeners(path: string): number[] {
  const out = spawnSync("ss", ["-xlpH"], { encoding: "utf8" }).stdout;
  const pids = new Set<number>();
  for (const line of out.split("\n")) {
    if (!line.split(/\s+/).includes(path)) continue;
    for (const m of line.matchAll(/pid=(\d+)/g)) pids.add(Number(m[1]));
  }
  return [...pids].sort((a, b) => a - b);
}

/**
 * A zombie: python forks a child that exits at once and never reaps it (SIGCHLD stays SIG_DFL).
 * A shell is no good here: dash reaps finished background jobs on its own. Resolves once
 * /proc says the child is a zombie.
 */
export async function spawnZombie(): Promise<{ parent: ChildProcess; zpid: number }> {
  const py =
    "import os, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint('Z=%d' % pid, flush=True)\ntime.sleep(30)";
  const parent = spawnChild("/usr/bin/python3", ["-c", py]);
  const zpid = Number(await lineFrom(parent, /Z=(\d+)/));
  await waitFor("the zombie", () => procStat(zpid)?.state === "Z");
  return { parent, zpid };
}

/** A uvu test function, or its skip when not on Linux (these tests read procfs, ss, setpriv). */
export type TestFn = (name: string, fn: Callback) => void;
export function linuxOnly(test: Test, what: string): TestFn {
  if (process.platform === "linux") return test;
  console.log(
    `SKIP: ${what} use Linux oracles (/proc, ss, setpriv); test/kernel/portable.test.ts runs on ${process.platform}`,
  );
  return (name, fn) => test.skip(name, fn);
}

/** Connect to a unix socket; with `accepted`, resolve only after the server's first bytes. */
export function connectUnix(path: string, options: { accepted?: boolean } = {}): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    onCleanup(() => s.destroy());
    s.on("error", reject);
    if (options.accepted === true) s.once("data", () => resolve(s));
    else s.once("connect", () => resolve(s));
  });
}
