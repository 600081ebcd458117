/**
 * `grok agent leader ...` (agent/app.rs run_leader): take the exclusive flock on the lock file
 * and write our pid into it (set_len(0) + decimal pid, no newline, fsync), remove a stale socket,
 * bind the listener (umask-inherited mode), finish bounded "auth", then serve. SIGTERM/SIGHUP/
 * SIGINT exit at once with 143/129/130 and no cleanup, leaving the socket and lock files behind
 * (bin/main.rs run_agent_command -> std::process::exit); graceful exits unlink both.
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { SimAgent } from "../agent/agent.js";
import { startProactiveRefresh } from "../auth.js";
import type { LeaderArgs } from "../cli.js";
import { grokHome, PROD_RELAY_WS_URL, type SimEnv } from "../env.js";
import { lockExclusive } from "../flock.js";
import { leaderPaths, wsUrlSuffix } from "../paths.js";
import { selfCommand } from "../self.js";
import { trace } from "../trace.js";
import { leaderUpdateCheck, updatesEnabled } from "../update.js";
import { startAutoUpdateChecker } from "./auto-update.js";
import { LeaderServer } from "./server.js";

const LEADER_ACQUIRE_TIMEOUT_MS = 15_000;
/** OpenOptions read+write+create, no truncate (lock.rs open_lock_file); mode 0666 & ~umask. */
const LOCK_FLAGS = constants.O_RDWR | constants.O_CREAT;

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()}  INFO xai_grok_shell::leader: ${message}\n`);
}

/** Deliver lines to a consumer in order, never re-entrantly (the mpsc channels of app.rs). */
class Pipe {
  private readonly items: string[] = [];
  private scheduled = false;
  private readonly consume: (line: string) => void;
  constructor(consume: (line: string) => void) {
    this.consume = consume;
  }
  push(line: string): void {
    this.items.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }
  private drain(): void {
    this.scheduled = false;
    for (let line = this.items.shift(); line !== undefined; line = this.items.shift())
      this.consume(line);
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // NotFound is fine (cleanup_socket).
  }
}

async function acquireLock(lockPath: string, socketPath: string): Promise<number> {
  const deadline = Date.now() + LEADER_ACQUIRE_TIMEOUT_MS;
  let fd = openSync(lockPath, LOCK_FLAGS);
  if (lockExclusive(fd, true)) return fd;
  if (existsSync(socketPath)) {
    closeSync(fd);
    throw new Error(`Another leader already holds the lock at ${socketPath}`);
  }
  for (;;) {
    closeSync(fd);
    if (Date.now() >= deadline) throw new Error(`Timed out acquiring leader lock at ${socketPath}`);
    await new Promise((r) => setTimeout(r, 200));
    fd = openSync(lockPath, LOCK_FLAGS);
    if (lockExclusive(fd, true)) return fd;
  }
}

export async function runLeader(args: LeaderArgs, env: SimEnv): Promise<void> {
  mkdirSync(grokHome(), { recursive: true });
  const wsUrl = args.wsUrl ?? PROD_RELAY_WS_URL;
  const { socketPath, lockPath } = leaderPaths(wsUrl);
  let lockFd: number;
  try {
    lockFd = await acquireLock(lockPath, socketPath);
  } catch (err) {
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  // LeaderLock::write_pid: the lock was opened without truncation; rewrite it in place.
  ftruncateSync(lockFd, 0);
  writeSync(lockFd, String(process.pid), 0);
  fsyncSync(lockFd);
  unlinkQuiet(socketPath);
  log("Leader server starting");

  const signalExit = (code: number) => () => process.exit(code);
  process.on("SIGTERM", signalExit(143));
  process.on("SIGHUP", signalExit(129));
  process.on("SIGINT", signalExit(130));

  let server: LeaderServer | undefined;
  const toServer = new Pipe((line) => server?.fromAgent(line));
  const agent = new SimAgent({
    env,
    launchCwd: process.cwd(),
    emit: (line) => toServer.push(line),
    crash: () => {
      trace("fault_crash", { signal: env.crashSignal });
      if (env.crashSignal === "SIGABRT") process.abort();
      process.kill(process.pid, "SIGKILL");
    },
  });
  const toAgent = new Pipe((line) => agent.receive(line));
  server = new LeaderServer({
    socketPath,
    metadata: {
      pid: process.pid,
      socketPath,
      lockPath,
      wsUrlSuffix: wsUrlSuffix(wsUrl),
      binaryVersion: env.leaderVersion,
    },
    buildVersion: env.leaderBuildVersion,
    registrationTimeoutMs: env.registrationTimeoutMs,
    legacyRegistered: env.legacyRegistered,
    earlyRead: env.earlyRead,
    noExitOnDisconnect: args.noExitOnDisconnect,
    reportedPid: env.wrongPid ?? process.pid,
    dropAfterPrompt: env.dropAfterPrompt,
    loseAcksAfterPrompt: env.loseAcksAfterPrompt,
    halfCloseAfterPrompt: env.halfCloseAfterPrompt,
    toAgent: (line) => toAgent.push(line),
    agentBusy: () => agent.busy,
    onExit: (reason) => {
      log(`Leader server shutting down (${reason})`);
      // Graceful exit: the socket is unlinked and LeaderLock's Drop removes lock and socket;
      // the persistence actors drain their merge buffers as their channels close.
      agent.flushPersistence();
      unlinkQuiet(socketPath);
      unlinkQuiet(lockPath);
      process.exit(0);
    },
  });
  try {
    await server.listen();
  } catch (err) {
    process.stderr.write(`Error: failed to bind ${socketPath}: ${String(err)}\n`);
    process.exit(1);
  }
  log("Leader server listening");
  // agent/app.rs run_leader: the shared AuthManager refreshes ahead of expiry from the start.
  startProactiveRefresh();
  const ready = (): void => {
    server?.setReady();
    log("Leader ready: ACP forwarding enabled");
    if (env.imposter) startImposter(socketPath);
  };
  if (env.authDelayMs > 0) setTimeout(ready, env.authDelayMs);
  else ready();
  // Test-only force: the update shutdown after N ms, whatever the gate says.
  if (env.autoUpdateAfterMs !== undefined) {
    setTimeout(() => void server?.stop("auto_update"), env.autoUpdateAfterMs);
  }
  if (updatesEnabled(args.noAutoUpdate)) {
    startAutoUpdateChecker({
      intervalMs: env.autoUpdateIntervalMs,
      check: () => leaderUpdateCheck(env.leaderVersion, env),
      busy: () => (server?.agentBusyFromIpc ?? false) || agent.busy,
      shutdown: () => void server?.stop("auto_update"),
    });
  } else {
    log("Leader auto-update disabled");
  }
  // Keep the lock fd (and so the flock) for the whole life of the process.
  process.on("exit", () => void lockFd);
}

/** Fault GROK_SIM_IMPOSTER: another process takes over the socket path, posing as us. */
function startImposter(socketPath: string): void {
  mkdirSync(dirname(socketPath), { recursive: true });
  const self = selfCommand();
  const child = spawn(
    self.file,
    [...self.prefix, "__sim-imposter", socketPath, String(process.pid)],
    {
      stdio: ["ignore", "ignore", "inherit"],
      detached: true,
    },
  );
  child.unref();
  trace("fault_imposter", { imposter_pid: child.pid });
}
