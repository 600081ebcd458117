// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The helpers' safety net (test/helpers/grok-sim.ts): a test process that starts a TUI (tmux
 * server + TUI + the leader it spawns, never "seen" by the test) and a bare leader, then dies
 * without calling stop() — process.exit, an uncaught exception, SIGTERM, SIGINT or SIGKILL —
 * leaves nothing running. Signals keep their meaning (the process still dies of them). A leader
 * the dying process did not start, in the same GROK_HOME, survives. The kernel (/proc, kill 0)
 * and tmux itself are the oracles.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  grokHomeFixture,
  pidAlive,
  processStart,
  readLockPid,
  startGrokLeader,
  waitFor,
} from "../../../helpers/grok-sim.js";

const repoRoot = resolve(fileURLToPath(new URL("../../../..", import.meta.url)));
const helperUrl = pathToFileURL(join(repoRoot, "test", "helpers", "grok-sim.ts")).href;

/** The dying test process: starts everything, prints what it started, then ends per `mode`. */
const DRIVER = `
const sim = await import(${JSON.stringify(helperUrl)});
const [mode, grokHome, cwd] = process.argv.slice(2);
const tui = await sim.startGrokTui({ grokHome, cwd });
await tui.sessionReady();
const leader = await sim.startGrokLeader({ grokHome, cwd });
process.stdout.write(JSON.stringify({
  tmux: tui.tmuxServer, tuiPid: tui.tuiPid, lock: tui.paths.lockPath, bare: leader.pid,
}) + "\\n");
if (mode === "exit") process.exit(0);
else if (mode === "throw") setTimeout(() => { throw new Error("boom"); }, 0);
else setInterval(() => {}, 1000);
`;

interface Started {
  tmux: string;
  tuiPid: number;
  lock: string;
  bare: number;
}

function parseStarted(line: string): Started {
  const v: unknown = JSON.parse(line);
  const num = (k: string): number => Number(Reflect.get(Object(v), k));
  const s = (k: string): string => String(Reflect.get(Object(v), k));
  return { tmux: s("tmux"), tuiPid: num("tuiPid"), lock: s("lock"), bare: num("bare") };
}

function tmuxServerUp(name: string): boolean {
  return spawnSync("tmux", ["-L", name, "list-sessions"], { stdio: "ignore" }).status === 0;
}

/** Alive and still the same process (pid not reused). */
function same(pid: number, start: string | undefined): boolean {
  return start !== undefined && pidAlive(pid) && processStart(pid) === start;
}

/**
 * The watchdog started by the process that ran with `marker` in its environment (Linux, through
 * /proc): a `node -e` process running the reaper that inherited that environment.
 */
function watchdogWith(marker: string): { pid: number; ppid: number } | undefined {
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (argv[1] !== "-e" || !String(argv[2]).includes("function reap(entries)")) continue;
      const env = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      if (!env.includes(`GROK_SIM_NET_MARKER=${marker}`)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      return {
        pid: Number(name),
        ppid: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]),
      };
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

async function firstLine(child: ChildProcess): Promise<string> {
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  return await new Promise<string>((res, rej) => {
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      const nl = out.indexOf("\n");
      if (nl >= 0) res(out.slice(0, nl));
    });
    child.once("exit", (code, signal) =>
      rej(new Error(`driver exited early (${code ?? signal}): ${err}`)),
    );
  });
}

async function dieWithout(
  mode: "exit" | "throw" | "SIGTERM" | "SIGINT" | "SIGKILL",
): Promise<void> {
  const home = grokHomeFixture();
  const dir = mkdtempSync(join(tmpdir(), "grok-sim-net-"));
  const driver = join(dir, "driver.mjs");
  writeFileSync(driver, DRIVER);
  // Not the dying process's: a leader in the same GROK_HOME, started by this test.
  const bystander = await startGrokLeader({ grokHome: home.dir, cwd: home.cwd });
  const marker = randomUUID();
  const child = spawn(process.execPath, ["--import", "tsx", driver, mode, home.dir, home.cwd], {
    cwd: repoRoot,
    env: { ...process.env, GROK_SIM_NET_MARKER: marker },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    const started = parseStarted(await firstLine(child));
    const tuiLeader = await waitFor("the TUI's leader in its lock file", () =>
      readLockPid(started.lock),
    );
    const starts = new Map(
      [started.tuiPid, tuiLeader, started.bare].map((p) => [p, processStart(p)] as const),
    );
    for (const [pid, start] of starts) assert.ok(same(pid, start), `pid ${pid} runs`);
    assert.ok(tmuxServerUp(started.tmux));
    const driverPid = child.pid ?? 0;
    const dog =
      process.platform === "linux"
        ? await waitFor("the watchdog", () => watchdogWith(marker))
        : undefined;
    if (dog !== undefined) {
      assert.ok(dog.ppid !== driverPid, "the watchdog is not a child of the test process");
    }
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((res) =>
      child.once("exit", (code, signal) => res([code, signal])),
    );
    if (mode !== "exit" && mode !== "throw") child.kill(mode);
    const [code, signal] = await exited;
    if (mode === "exit") assert.is(code, 0);
    else if (mode === "throw") assert.is(code, 1);
    else assert.is(signal, mode, "the process still dies of the signal");
    await waitFor(
      "everything the dead test started to be gone",
      () => [...starts].every(([pid, start]) => !same(pid, start)) && !tmuxServerUp(started.tmux),
      15_000,
    );
    assert.ok(pidAlive(bystander.pid), "a leader the dying process did not start survives");
    if (dog !== undefined) {
      await waitFor("the watchdog to exit after reaping", () => !pidAlive(dog.pid));
    }
  } finally {
    child.kill("SIGKILL");
    await bystander.stop();
    home.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

test.before(async () => {
  await ensureGrokSim();
});

test("process.exit without stop(): tmux server, TUI, unseen leader and bare leader are killed", async () => {
  await dieWithout("exit");
});

test("an uncaught exception without stop(): everything is killed", async () => {
  await dieWithout("throw");
});

test("SIGTERM: everything is killed and the process still dies of SIGTERM", async () => {
  await dieWithout("SIGTERM");
});

test("SIGINT: everything is killed and the process still dies of SIGINT", async () => {
  await dieWithout("SIGINT");
});

test("SIGKILL (no code runs): the watchdog kills everything", async () => {
  await dieWithout("SIGKILL");
});

test.run();
