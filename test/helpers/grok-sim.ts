/**
 * The simulated `grok` for tests: build it once (`ensureGrokSim`), give each test a private
 * GROK_HOME (`grokHomeFixture`), and run the TUI on a real pty as the argv command of a private
 * tmux server (`startGrokTui`), so `pane_pid` is the TUI pid and the leader it spawns is that
 * pid's child. `startGrokLeader` runs a bare leader (no TUI) for wire-level tests. Everything
 * started here is killed by its `stop()`; call it in a finally block. A safety net (below) kills
 * whatever a test process leaves behind when it exits, is interrupted or is SIGKILLed without
 * calling `stop()`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSim } from "../sim/build.js";

let built: Promise<string> | undefined;

/** Build the simulator binary if its sources changed; resolves to `.sim-build/bin/grok`. */
export function ensureGrokSim(): Promise<string> {
  built ??= buildSim();
  return built;
}

/** Poll `cond` every 20 ms until it returns something other than undefined/false. */
export async function waitFor<T>(
  what: string,
  cond: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? "" : `: ${String(last)}`}`,
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // A zombie is not alive for our purposes.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return process.platform !== "linux";
  }
}

function killQuiet(pid: number | undefined, signal: NodeJS.Signals = "SIGKILL"): void {
  if (pid === undefined || pid <= 1) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

// ---- safety net ------------------------------------------------------------------------------
//
// Everything the helpers start is registered here: private tmux servers, the TUI (pid + start
// time), leaders seen (pid + start time), bare leaders, and each TUI's lock file (whose pid is
// whatever leader the TUI spawned last, seen or not). `stop()` unregisters. Whatever is still
// registered is killed
// - when this process exits (normal end, uncaught exception, process.exit) or gets SIGINT,
//   SIGTERM or SIGHUP: synchronously, by running REAPER over the registry with spawnSync;
// - when this process dies without running any code (SIGKILL, e.g. the test runner's timeout):
//   by a watchdog running REAPER that reads the registry from a pipe and reaps at EOF. It is
//   started through a short-lived launcher, so it is not a child of the test process (tests
//   that count their children do not see it) and it survives it.
// REAPER never kills a pid whose start time changed (a reused pid), and a lock-file pid only when
// it is the simulator binary running `agent leader`; tmux servers are addressed by their unique
// `-L` name only. So nothing the test did not start is touched.

type NetEntry =
  | { tmux: string }
  | { pid: number; start: string }
  | { tui: number; start: string; exe: string }
  | { lock: string; exe: string };

/** Plain JavaScript (run with `node -e`): reads `{"op","key","entry"}` lines, reaps at EOF. */
const REAPER = String.raw`
const fs = require("node:fs");
const { spawnSync } = require("node:child_process");
const linux = process.platform === "linux";
function start(pid) {
  try {
    if (linux) {
      const s = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
      return s.slice(s.lastIndexOf(")") + 2).split(" ")[19];
    }
    const r = spawnSync("ps", ["-o", "lstart=", "-p", String(pid)], { encoding: "utf8" });
    return r.status === 0 && r.stdout.trim() !== "" ? r.stdout.trim() : undefined;
  } catch { return undefined; }
}
function isLeader(pid, exe) {
  try {
    if (linux) {
      const bin = fs.readlinkSync("/proc/" + pid + "/exe").replace(/ \(deleted\)$/, "");
      const argv = fs.readFileSync("/proc/" + pid + "/cmdline", "utf8").split("\0");
      return bin === exe && argv[1] === "agent" && argv[2] === "leader";
    }
    const r = spawnSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8" });
    return r.status === 0 && r.stdout.trim().startsWith(exe + " agent leader");
  } catch { return false; }
}
function children(pid) {
  const out = [];
  if (linux) {
    for (const name of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const s = fs.readFileSync("/proc/" + name + "/stat", "utf8");
        if (Number(s.slice(s.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(name));
      } catch {}
    }
    return out;
  }
  const r = spawnSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" });
  for (const line of (r.stdout || "").split("\n")) {
    const m = /^\s*(\d+)\s+(\d+)/.exec(line);
    if (m && Number(m[2]) === pid) out.push(Number(m[1]));
  }
  return out;
}
function kill(pid) { try { process.kill(pid, "SIGKILL"); } catch {} }
function reap(entries) {
  const all = [...entries];
  // A TUI first (it would respawn its leader), with the leaders it spawned (its children).
  for (const e of all) {
    if (e.tui === undefined || start(e.tui) !== e.start) continue;
    const kids = children(e.tui).filter((c) => isLeader(c, e.exe));
    kill(e.tui);
    for (const c of kids) kill(c);
  }
  for (const e of all) if (e.pid !== undefined && start(e.pid) === e.start) kill(e.pid);
  for (const e of all) if (e.tmux !== undefined) spawnSync("tmux", ["-L", e.tmux, "kill-server"], { stdio: "ignore" });
  for (const e of all) {
    if (e.lock === undefined) continue;
    let text = "";
    try { text = fs.readFileSync(e.lock, "utf8"); } catch {}
    if (/^\d+$/.test(text) && isLeader(Number(text), e.exe)) kill(Number(text));
  }
}
const entries = new Map();
let buf = "";
let done = false;
function finish() { if (done) return; done = true; reap(entries.values()); process.exit(0); }
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => {
  buf += d;
  for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    try {
      const m = JSON.parse(line);
      if (m.op === "add") entries.set(m.key, m.entry); else entries.delete(m.key);
    } catch {}
  }
});
process.stdin.on("end", finish);
process.stdin.on("error", finish);
`;

const registry = new Map<string, NetEntry>();
let watchdog: Socket | undefined;
let installed = false;

function nodeEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== "NODE_OPTIONS") env[k] = v;
  }
  return env;
}

function opLine(op: "add" | "drop", key: string, entry?: NetEntry): string {
  return `${JSON.stringify({ op, key, entry })}\n`;
}

/**
 * The watchdog, through a launcher that exits at once. The pipe is the launcher's fd 3, passed
 * on as the watchdog's stdin: node destroys a child's `stdin` stream when the child exits, which
 * would hand the watchdog an early EOF, but leaves extra stdio pipes alone.
 */
function startWatchdog(): Socket | undefined {
  const launcher = `require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(REAPER)}], { detached: true, stdio: [3, "ignore", "ignore"] }).unref();`;
  const child = spawn(process.execPath, ["-e", launcher], {
    stdio: ["ignore", "ignore", "ignore", "pipe"],
    env: nodeEnv(),
  });
  child.unref();
  const pipe = child.stdio[3];
  if (!(pipe instanceof Socket)) return undefined;
  pipe.on("error", () => undefined);
  pipe.unref();
  return pipe;
}

/** Synchronous reap of everything still registered (exit and signal paths). */
function reapNow(): void {
  if (registry.size === 0) return;
  const input = [...registry].map(([key, entry]) => opLine("add", key, entry)).join("");
  registry.clear();
  spawnSync(process.execPath, ["-e", REAPER], {
    input,
    stdio: ["pipe", "ignore", "ignore"],
    env: nodeEnv(),
    timeout: 15_000,
  });
}

function onSignal(signal: NodeJS.Signals): void {
  reapNow();
  process.removeListener(signal, onSignal);
  // Keep the signal's meaning: with no other listener, die of it as we would have.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function track(entry: NetEntry): string {
  if (!installed) {
    installed = true;
    process.on("exit", reapNow);
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, onSignal);
    watchdog = startWatchdog();
  }
  const key = randomUUID();
  registry.set(key, entry);
  watchdog?.write(opLine("add", key, entry));
  return key;
}

function untrack(key: string): void {
  if (!registry.delete(key)) return;
  watchdog?.write(opLine("drop", key));
}

/** A process's start time (Linux: /proc/<pid>/stat field 22; elsewhere `ps -o lstart=`). */
export function processStart(pid: number): string | undefined {
  try {
    if (process.platform === "linux") {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    }
    const r = spawnSync("ps", ["-o", "lstart=", "-p", String(pid)], { encoding: "utf8" });
    const out = r.status === 0 ? r.stdout.trim() : "";
    return out === "" ? undefined : out;
  } catch {
    return undefined;
  }
}

/** Register a live process by pid and start time; undefined when it is already gone. */
function trackPid(pid: number): string | undefined {
  const start = processStart(pid);
  return start === undefined ? undefined : track({ pid, start });
}

export interface McpServerFixture {
  name: string;
  url?: string;
  command?: string;
  args?: string[];
  enabled?: boolean;
  tools?: string[];
}

export interface GrokHomeFixture {
  /** The GROK_HOME directory (private temp dir). */
  dir: string;
  /** A private working directory for the TUI (a sibling temp dir). */
  cwd: string;
  /** Write `$GROK_HOME/config.toml` (replacing it). */
  writeConfig(toml: string): void;
  /** `$GROK_HOME/auth.json` (absent when the fixture was made signed out). */
  authPath: string;
  remove(): void;
}

/** The xAI OAuth2 scope auth.json is keyed by (issuer `::` the public client id). */
export const AUTH_SCOPE = "https://auth.x.ai::b1a00492-073a-47ea-816f-4c329264a828";

/**
 * A signed-in login as the real `grok login` leaves it in `$GROK_HOME/auth.json` (an OIDC entry
 * with a refresh token), valid for `validForMs` (negative: already expired). Fake tokens.
 */
export function authJson(opts: { validForMs?: number; refreshToken?: string } = {}): string {
  const now = Date.now();
  return `${JSON.stringify(
    {
      [AUTH_SCOPE]: {
        key: "sim-access-fixture",
        auth_mode: "oidc",
        create_time: new Date(now).toISOString(),
        user_id: "fixture-user",
        email: "owner@example.com",
        refresh_token: opts.refreshToken ?? "sim-refresh-fixture",
        expires_at: new Date(now + (opts.validForMs ?? 12 * 3600_000)).toISOString(),
        oidc_issuer: "https://auth.x.ai",
        oidc_client_id: "b1a00492-073a-47ea-816f-4c329264a828",
      },
    },
    null,
    2,
  )}\n`;
}

/**
 * The kinds of repo-local configuration that make the real TUI ask about folder trust
 * (xai-grok-workspace folder_trust.rs), each as the file (with its text) or the directory (null)
 * that stands for it.
 */
const REPO_LOCAL_CONFIG = {
  mcp_json: [".mcp.json", '{"mcpServers": {}}\n'],
  grok_config_mcp: [".grok/config.toml", '[mcp_servers.repo]\ncommand = "./serve"\n'],
  envrc: [".envrc", "export FOO=bar\n"],
  claude_settings: [".claude/settings.json", "{}\n"],
  hooks: [".grok/hooks", null],
  agents: [".grok/agents", null],
  plugins: [".grok/plugins/repo-plugin", null],
  lsp: [".grok/lsp.json", "{}\n"],
} as const satisfies Record<string, readonly [string, string | null]>;

export type RepoLocalConfig = keyof typeof REPO_LOCAL_CONFIG;

/** Put one kind of repo-local configuration into `dir`. */
export function writeRepoLocalConfig(dir: string, kind: RepoLocalConfig): void {
  const [rel, text] = REPO_LOCAL_CONFIG[kind];
  if (text === null) {
    mkdirSync(join(dir, rel), { recursive: true });
    return;
  }
  mkdirSync(join(dir, rel, ".."), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

/** Record `folder` as trusted in `$GROK_HOME/trusted_folders.toml`, as the owner's "y" does. */
export function trustFolder(grokHome: string, folder: string): void {
  const path = join(grokHome, "trusted_folders.toml");
  const prior = existsSync(path) ? readFileSync(path, "utf8") : "";
  const key = realpathSync(folder);
  const entry = `[folders.${JSON.stringify(key)}]\ntrusted = true\ndecided_at = ${Math.floor(Date.now() / 1000)}\n`;
  writeFileSync(path, prior === "" ? entry : `${prior}\n${entry}`, { mode: 0o600 });
}

function tomlString(s: string): string {
  return JSON.stringify(s);
}

/** A private GROK_HOME with a config.toml (`[mcp_servers.*]`, optional `[ui]`) and a cwd. */
export function grokHomeFixture(
  opts: {
    mcpServers?: McpServerFixture[];
    disabledMcpServers?: string[];
    combineQueuedPrompts?: boolean;
    /** Writes version.json with this stable_version (drives the [alpha]/[stable] label). */
    stableVersion?: string;
    extraToml?: string;
    /** false: no auth.json (the TUI then shows its sign-in screen). Default: signed in. */
    signedIn?: boolean;
  } = {},
): GrokHomeFixture {
  const root = mkdtempSync(join(tmpdir(), "grok-sim-"));
  const dir = join(root, "home");
  const cwd = join(root, "work");
  mkdirSync(dir, { mode: 0o700 });
  mkdirSync(cwd);
  const servers = opts.mcpServers ?? [
    { name: "linear", url: "https://mcp.linear.app/mcp", tools: ["list_issues", "create_issue"] },
    { name: "files", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] },
  ];
  const lines: string[] = [];
  if (opts.disabledMcpServers !== undefined) {
    lines.push(
      `disabled_mcp_servers = [${opts.disabledMcpServers.map(tomlString).join(", ")}]`,
      "",
    );
  }
  if (opts.combineQueuedPrompts === true) lines.push("[ui]", "combine_queued_prompts = true", "");
  for (const s of servers) {
    lines.push(`[mcp_servers.${s.name}]`);
    if (s.url !== undefined) lines.push(`url = ${tomlString(s.url)}`);
    if (s.command !== undefined) lines.push(`command = ${tomlString(s.command)}`);
    if (s.args !== undefined) lines.push(`args = [${s.args.map(tomlString).join(", ")}]`);
    if (s.enabled === false) lines.push("enabled = false");
    if (s.tools !== undefined) lines.push(`sim_tools = [${s.tools.map(tomlString).join(", ")}]`);
    lines.push("");
  }
  if (opts.extraToml !== undefined) lines.push(opts.extraToml);
  writeFileSync(join(dir, "config.toml"), lines.join("\n"));
  const authPath = join(dir, "auth.json");
  if (opts.signedIn !== false) writeFileSync(authPath, authJson(), { mode: 0o600 });
  if (opts.stableVersion !== undefined) {
    writeFileSync(
      join(dir, "version.json"),
      JSON.stringify({
        version: opts.stableVersion,
        stable_version: opts.stableVersion,
        checked_at: new Date().toISOString(),
      }),
    );
  }
  return {
    dir,
    cwd,
    writeConfig: (toml) => writeFileSync(join(dir, "config.toml"), toml),
    authPath,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The environment the simulator runs with: ours, minus anything that could hijack node. */
export function simEnv(
  grokHome: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    // npm's own variables (npm_config_user_agent, when the tests run under `npm test`) would
    // make the simulated updater, like the real one, believe npm installed it.
    if (
      v !== undefined &&
      !k.startsWith("GROK_") &&
      k !== "NODE_OPTIONS" &&
      !k.startsWith("TMUX") &&
      !k.startsWith("npm_")
    )
      env[k] = v;
  }
  env.GROK_HOME = grokHome;
  // These helpers start grok directly, without a seat, so they set what a seat sets itself
  // (lib/grok/seat-env.ts; the leader inherits it): updates are on by default in the simulator as
  // in real Grok. Tests of self-update override it. Fixtures that hire a seat must NOT set it.
  env.GROK_DISABLE_AUTOUPDATER = "1";
  env.TERM = "xterm-256color";
  return { ...env, ...extra };
}

export interface GrokPaths {
  grokHome: string;
  cwd: string;
  socketPath: string;
  lockPath: string;
  activeSessions: string;
  leaderLog: string;
}

function lockFor(socketPath: string): string {
  return `${socketPath.replace(/\.[^./]*$/, "")}.lock`;
}

/** Where a leader on `socketPath` with this GROK_HOME keeps its lock, session list and log. */
function grokPaths(grokHome: string, cwd: string, socketPath: string): GrokPaths {
  return {
    grokHome,
    cwd,
    socketPath,
    lockPath: lockFor(socketPath),
    activeSessions: join(grokHome, "active_sessions.json"),
    leaderLog: join(grokHome, "leader.log"),
  };
}

/** Read the pid a leader wrote into its lock file (decimal, no newline). */
export function readLockPid(lockPath: string): number | undefined {
  try {
    const text = readFileSync(lockPath, "utf8");
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

export interface GrokTui {
  tuiPid: number;
  sessionId: string;
  paths: GrokPaths;
  /** The private tmux server (`tmux -L <name>`). */
  tmuxServer: string;
  /** The live leader holding the lock (waits for it). */
  leaderPid(): Promise<number>;
  /** Wait until the TUI created (or reloaded) its session ("session ready" on screen). */
  sessionReady(timeoutMs?: number): Promise<void>;
  /** Type text into the pane, then Enter unless `enter: false`. */
  typeIntoTui(text: string, opts?: { enter?: boolean }): Promise<void>;
  /** Press one key as the owner answering a startup screen (`y`, `n`, `l`, `a`, `Enter`, ...). */
  pressKey(key: string): Promise<void>;
  capture(): Promise<string>;
  waitForScreen(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Kill the TUI, every leader seen at this socket, and the tmux server. */
  stop(): Promise<void>;
}

function tmux(server: string, args: string[], env?: Record<string, string>): string {
  const r = spawnSync("tmux", ["-L", server, "-f", "/dev/null", ...args], {
    encoding: "utf8",
    env: env ?? process.env,
  });
  if (r.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

export async function startGrokTui(opts: {
  grokHome: string;
  cwd: string;
  socketPath?: string;
  sessionId?: string;
  env?: Record<string, string>;
  /** An initial prompt the TUI submits once its session exists. */
  prompt?: string;
  /**
   * More TUI arguments, after `--session-id <id>` and before the prompt (e.g. `--sandbox
   * workspace`, `["--rules", text]`).
   */
  extraArgs?: string[];
  /** Replace `--session-id <id>` (e.g. `--resume <id>` of an existing session). */
  sessionArgs?: string[];
  cols?: number;
  rows?: number;
}): Promise<GrokTui> {
  const grok = await ensureGrokSim();
  const sessionId = opts.sessionId ?? randomUUID();
  const socketPath = opts.socketPath ?? join(opts.grokHome, `sim-${sessionId.slice(0, 8)}.sock`);
  const paths = grokPaths(opts.grokHome, opts.cwd, socketPath);
  const server = `grok-sim-${process.pid}-${randomUUID().slice(0, 8)}`;
  const argv = [
    grok,
    "--leader",
    "--leader-socket",
    socketPath,
    ...(opts.sessionArgs ?? ["--session-id", sessionId]),
    ...(opts.extraArgs ?? []),
  ];
  if (opts.prompt !== undefined) argv.push(opts.prompt);
  const env = simEnv(opts.grokHome, opts.env);
  const exe = realpathSync(grok);
  const keys = [track({ tmux: server }), track({ lock: paths.lockPath, exe })];
  tmux(
    server,
    [
      "new-session",
      "-d",
      "-s",
      "sim",
      "-x",
      String(opts.cols ?? 160),
      "-y",
      String(opts.rows ?? 48),
      "-c",
      opts.cwd,
      "--",
      ...argv,
    ],
    env,
  );
  const seenLeaders = new Set<number>();
  let tuiPid: number;
  try {
    tuiPid = await waitFor("tmux pane pid", () => {
      const out = tmux(server, ["list-panes", "-t", "sim", "-F", "#{pane_pid}"]).trim();
      return /^\d+$/.test(out) ? Number(out) : undefined;
    });
  } catch (err) {
    spawnSync("tmux", ["-L", server, "kill-server"]);
    for (const key of keys) untrack(key);
    throw err;
  }
  const tuiStart = processStart(tuiPid);
  if (tuiStart !== undefined) keys.push(track({ tui: tuiPid, start: tuiStart, exe }));
  const see = (pid: number): void => {
    if (seenLeaders.has(pid)) return;
    seenLeaders.add(pid);
    const key = trackPid(pid);
    if (key !== undefined) keys.push(key);
  };
  const tui: GrokTui = {
    tuiPid,
    sessionId,
    paths,
    tmuxServer: server,
    leaderPid: () =>
      waitFor("leader pid in lock file", () => {
        const pid = readLockPid(paths.lockPath);
        if (pid === undefined || !pidAlive(pid) || !existsSync(paths.socketPath)) return undefined;
        see(pid);
        return pid;
      }),
    sessionReady: async (timeoutMs = 20_000) => {
      await waitFor(
        "TUI session ready",
        () => tmux(server, ["capture-pane", "-p", "-t", "sim"]).includes("session ready"),
        timeoutMs,
      );
    },
    typeIntoTui: async (text, o = {}) => {
      tmux(server, ["send-keys", "-t", "sim", "-l", text]);
      if (o.enter !== false) tmux(server, ["send-keys", "-t", "sim", "Enter"]);
    },
    pressKey: async (key) => {
      if (key === "Enter" || key === "Escape") tmux(server, ["send-keys", "-t", "sim", key]);
      else tmux(server, ["send-keys", "-t", "sim", "-l", key]);
    },
    capture: async () => tmux(server, ["capture-pane", "-p", "-t", "sim"]),
    waitForScreen: (pattern, timeoutMs = 15_000) =>
      waitFor(
        `screen to show ${String(pattern)}`,
        () => {
          const screen = tmux(server, ["capture-pane", "-p", "-t", "sim"]);
          const hit = typeof pattern === "string" ? screen.includes(pattern) : pattern.test(screen);
          return hit ? screen : undefined;
        },
        timeoutMs,
      ),
    stop: async () => {
      const current = readLockPid(paths.lockPath);
      if (current !== undefined && pidAlive(current)) see(current);
      killQuiet(tuiPid);
      for (const pid of seenLeaders) killQuiet(pid);
      spawnSync("tmux", ["-L", server, "kill-server"], { stdio: "ignore" });
      await waitFor(
        "simulator processes to exit",
        () => [tuiPid, ...seenLeaders].every((p) => !pidAlive(p)),
        10_000,
      ).catch(() => undefined);
      for (const key of keys) untrack(key);
    },
  };
  return tui;
}

export interface GrokLeader {
  pid: number;
  child: ChildProcess;
  paths: GrokPaths;
  /** stderr of the leader so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * The simulator's JSON-lines log (`GROK_SIM_LOG`): its objects, in order; none before it exists.
 * Read while simulator processes still append to it, the text can end inside a line whose write
 * is not complete yet: a line counts once its newline is there (a torn line anywhere else throws).
 */
export function readSimLog(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  const out: Record<string, unknown>[] = [];
  const lines = readFileSync(path, "utf8").split("\n");
  lines.pop(); // "" after the last newline, or the unfinished last line
  for (const line of lines) {
    if (line.trim() === "") continue;
    const v: unknown = JSON.parse(line);
    if (typeof v === "object" && v !== null && !Array.isArray(v)) {
      out.push(Object.fromEntries(Object.entries(v)));
    }
  }
  return out;
}

/** The detached leader's arguments as the TUI spawns it (after the executable). */
export const LEADER_ARGV = [
  "agent",
  "leader",
  "--no-exit-on-disconnect",
  "--relay-on-demand",
  "--grok-ws-url",
  "wss://code.grok.com/ws/code-agent",
  "--grok-ws-origin",
  "https://grok.com",
] as const;

/** A bare leader (`grok agent leader ...`) on a private socket, no TUI. */
export async function startGrokLeader(opts: {
  grokHome: string;
  cwd: string;
  socketPath?: string;
  env?: Record<string, string>;
  /** Wait for the socket to appear (default true). */
  waitForSocket?: boolean;
}): Promise<GrokLeader> {
  const grok = await ensureGrokSim();
  const socketPath =
    opts.socketPath ?? join(opts.grokHome, `leader-${randomUUID().slice(0, 8)}.sock`);
  const paths = grokPaths(opts.grokHome, opts.cwd, socketPath);
  const child = spawn(grok, [...LEADER_ARGV], {
    cwd: opts.cwd,
    env: simEnv(opts.grokHome, { GROK_LEADER_SOCKET: socketPath, ...opts.env }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("failed to spawn the grok simulator");
  const key = trackPid(pid);
  if (opts.waitForSocket !== false) {
    // The socket file appears at bind(), a moment before listen(): wait for the leader's own
    // "listening" log line instead of probing (a probe connection would use up a client id).
    await waitFor(
      `leader listening on ${socketPath}`,
      () => err.includes("Leader server listening") && readLockPid(paths.lockPath) === pid,
    );
  }
  return {
    pid,
    child,
    paths,
    stderr: () => err,
    stop: async () => {
      killQuiet(pid);
      await waitFor(
        "leader exit",
        () => child.exitCode !== null || child.signalCode !== null,
        10_000,
      ).catch(() => undefined);
      if (key !== undefined) untrack(key);
    },
  };
}
