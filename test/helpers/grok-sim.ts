/**
 * The simulated `grok` for tests: build it once (`ensureGrokSim`), give each test a private
 * GROK_HOME (`grokHomeFixture`), and run the TUI on a real pty as the argv command of a private
 * tmux server (`startGrokTui`), so `pane_pid` is the TUI pid and the leader it spawns is that
 * pid's child. `startGrokLeader` runs a bare leader (no TUI) for wire-level tests. Everything
 * started here is killed by its `stop()`; call it in a finally block.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  remove(): void;
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
    if (v !== undefined && !k.startsWith("GROK_") && k !== "NODE_OPTIONS" && !k.startsWith("TMUX"))
      env[k] = v;
  }
  env.GROK_HOME = grokHome;
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
  cols?: number;
  rows?: number;
}): Promise<GrokTui> {
  const grok = await ensureGrokSim();
  const sessionId = opts.sessionId ?? randomUUID();
  const socketPath = opts.socketPath ?? join(opts.grokHome, `sim-${sessionId.slice(0, 8)}.sock`);
  const paths: GrokPaths = {
    grokHome: opts.grokHome,
    cwd: opts.cwd,
    socketPath,
    lockPath: lockFor(socketPath),
    activeSessions: join(opts.grokHome, "active_sessions.json"),
    leaderLog: join(opts.grokHome, "leader.log"),
  };
  const server = `grok-sim-${process.pid}-${randomUUID().slice(0, 8)}`;
  const argv = [grok, "--leader", "--leader-socket", socketPath, "--session-id", sessionId];
  if (opts.prompt !== undefined) argv.push(opts.prompt);
  const env = simEnv(opts.grokHome, opts.env);
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
    throw err;
  }
  const tui: GrokTui = {
    tuiPid,
    sessionId,
    paths,
    tmuxServer: server,
    leaderPid: () =>
      waitFor("leader pid in lock file", () => {
        const pid = readLockPid(paths.lockPath);
        if (pid === undefined || !pidAlive(pid) || !existsSync(paths.socketPath)) return undefined;
        seenLeaders.add(pid);
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
      if (current !== undefined) seenLeaders.add(current);
      killQuiet(tuiPid);
      for (const pid of seenLeaders) killQuiet(pid);
      spawnSync("tmux", ["-L", server, "kill-server"], { stdio: "ignore" });
      await waitFor(
        "simulator processes to exit",
        () => [tuiPid, ...seenLeaders].every((p) => !pidAlive(p)),
        10_000,
      ).catch(() => undefined);
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
  const paths: GrokPaths = {
    grokHome: opts.grokHome,
    cwd: opts.cwd,
    socketPath,
    lockPath: lockFor(socketPath),
    activeSessions: join(opts.grokHome, "active_sessions.json"),
    leaderLog: join(opts.grokHome, "leader.log"),
  };
  const child = spawn(
    grok,
    [
      "agent",
      "leader",
      "--no-exit-on-disconnect",
      "--relay-on-demand",
      "--grok-ws-url",
      "wss://code.grok.com/ws/code-agent",
      "--grok-ws-origin",
      "https://grok.com",
    ],
    {
      cwd: opts.cwd,
      env: simEnv(opts.grokHome, { GROK_LEADER_SOCKET: socketPath, ...opts.env }),
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("failed to spawn the grok simulator");
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
    },
  };
}
