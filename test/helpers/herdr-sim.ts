// Start the Herdr simulator (test/sim/herdr/main.ts) as its own process for a test, with a
// private tmux server and a private directory, and tear all of it down afterwards.
//
//   const sim = await startHerdrSim({ switches: { detectMs: 200 } });
//   ... talk to sim.socketPath ...
//   await sim.stop();
//
// or `await withHerdrSim(async (sim) => { ... })`. The socket sits where Herdr would put a named
// session's socket under `configHome`: `<configHome>/herdr/sessions/<sessionName>/herdr.sock`,
// so `XDG_CONFIG_HOME=<configHome> HERDR_SESSION=<sessionName>` discovers it.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { sessionMembers } from "../sim/herdr/procfs.js";
import type { PartialSwitches } from "../sim/herdr/switches.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MAIN = join(ROOT, "test", "sim", "herdr", "main.ts");

export type HerdrSimOptions = {
  /** Directory for the socket tree and the simulator's files (default: a fresh temp dir). */
  readonly dir?: string;
  /** Environment of the simulator process, which every pane inherits (undefined deletes). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** "0.8.0" (default), "head" (protocol 20) or "0.9.3" (omits the top-level agent after reports). */
  readonly version?: string;
  readonly switches?: PartialSwitches;
  readonly sessionName?: string;
};

export const InjectionEntrySchema = v.object({
  method: v.string(),
  id: v.string(),
  params: v.unknown(),
  at: v.string(),
});
export type InjectionEntry = v.InferOutput<typeof InjectionEntrySchema>;

export type HerdrSimHandle = {
  readonly socketPath: string;
  readonly sessionName: string;
  /** `tmux -L <tmuxSocket> attach -t w1` shows workspace w1. */
  readonly tmuxSocket: string;
  /** The simulator process (the socket's peer). */
  readonly pid: number;
  readonly dir: string;
  /** XDG_CONFIG_HOME under which the socket sits like a named Herdr session's. */
  readonly configHome: string;
  /** Every call of pane.send_text/send_keys/send_input, agent.start, agent.prompt so far. */
  injectionLog(): Promise<InjectionEntry[]>;
  /** Change switches at runtime (the test-only `sim.configure` method). */
  configure(switches: PartialSwitches): Promise<void>;
  /** Kill every pane process and the tmux server, stop the simulator, remove the directory. */
  stop(): Promise<void>;
};

function randomName(): string {
  return `sim-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** One request, one line back: the simulator's own wire, used for sim.configure. */
export function rawRequest(socketPath: string, line: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const socket = createConnection(socketPath);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no reply within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("connect", () => socket.write(`${line}\n`));
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolvePromise(Buffer.concat(chunks).toString("utf8"));
    });
  });
}

function tmux(socket: string, args: string[]): Promise<string> {
  return new Promise((res) => {
    execFile("tmux", ["-L", socket, ...args], (err, stdout) => res(err ? "" : stdout));
  });
}

/** Last-resort cleanup when the simulator process could not clean up itself. */
async function sweepTmux(socket: string): Promise<void> {
  const pids = (await tmux(socket, ["list-panes", "-a", "-F", "#{pane_pid}"]))
    .split("\n")
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
  for (const session of pids) {
    for (const pid of sessionMembers(session)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
  await tmux(socket, ["kill-server"]);
}

const ReadySchema = v.object({ ready: v.literal(true), pid: v.number() });

export async function startHerdrSim(options: HerdrSimOptions = {}): Promise<HerdrSimHandle> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "herdr-sim-"));
  const sessionName = options.sessionName ?? randomName();
  const tmuxSocket = `herdr-${sessionName}`;
  const configHome = join(dir, "config");
  const socketDir = join(configHome, "herdr", "sessions", sessionName);
  mkdirSync(socketDir, { recursive: true, mode: 0o700 });
  const socketPath = join(socketDir, "herdr.sock");
  const simDir = join(dir, "sim");
  const env: Record<string, string | undefined> = { ...process.env };
  for (const [k, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[k];
    else env[k] = value;
  }
  const args = [
    "--import",
    "tsx",
    MAIN,
    "--socket",
    socketPath,
    "--session",
    sessionName,
    "--tmux-socket",
    tmuxSocket,
    "--dir",
    simDir,
    "--test-control",
  ];
  if (ownDir) args.push("--remove-on-exit", dir);
  if (options.version !== undefined) args.push("--version", options.version);
  if (options.switches !== undefined) args.push("--switches", JSON.stringify(options.switches));
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stderr: Buffer[] = [];
  child.stderr?.on("data", (c: Buffer) => stderr.push(c));
  const ready = await new Promise<v.InferOutput<typeof ReadySchema>>((res, rej) => {
    let out = "";
    const timer = setTimeout(() => rej(new Error("herdr-sim did not start within 30 s")), 30000);
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      const parsed = v.safeParse(ReadySchema, JSON.parse(out.slice(0, nl)) as unknown);
      if (parsed.success) res(parsed.output);
      else rej(new Error(`herdr-sim printed an unexpected ready line: ${out.slice(0, nl)}`));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      rej(
        new Error(
          `herdr-sim exited with ${code}: ${Buffer.concat(stderr).toString("utf8").trim()}`,
        ),
      );
    });
  });
  const exited = new Promise<void>((res) => {
    if (child.exitCode !== null) res();
    else child.once("exit", () => res());
  });

  let stopped: Promise<void> | undefined;
  return {
    socketPath,
    sessionName,
    tmuxSocket,
    pid: ready.pid,
    dir,
    configHome,
    async injectionLog() {
      const file = join(simDir, "injections.jsonl");
      if (!existsSync(file)) return [];
      return readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => v.parse(InjectionEntrySchema, JSON.parse(l) as unknown));
    },
    async configure(switches) {
      const reply = await rawRequest(
        socketPath,
        JSON.stringify({ id: "sim-configure", method: "sim.configure", params: switches }),
      );
      if (!reply.includes('"type":"ok"')) throw new Error(`sim.configure failed: ${reply.trim()}`);
    },
    stop() {
      stopped ??= (async () => {
        child.stdin?.end();
        child.kill("SIGTERM");
        const timeout = new Promise<"timeout">((res) =>
          setTimeout(() => res("timeout"), 10000).unref(),
        );
        if ((await Promise.race([exited, timeout])) === "timeout") {
          child.kill("SIGKILL");
          await exited;
        }
        await sweepTmux(tmuxSocket);
        if (ownDir) rmSync(dir, { recursive: true, force: true });
        else {
          rmSync(simDir, { recursive: true, force: true });
          rmSync(configHome, { recursive: true, force: true });
        }
      })();
      return stopped;
    },
  };
}

export async function withHerdrSim<T>(
  fn: (sim: HerdrSimHandle) => Promise<T>,
  options: HerdrSimOptions = {},
): Promise<T> {
  const sim = await startHerdrSim(options);
  try {
    return await fn(sim);
  } finally {
    await sim.stop();
  }
}
