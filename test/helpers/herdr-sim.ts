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
//
// Versions: the simulator is Herdr 0.8.0 unless told otherwise. `HERDR_SIM_PRESET=0.9.3 npm test`
// runs every test that does not pick a version under that preset (the runner does so by itself
// for files marked `// @herdr-presets: …`, scripts/test.mjs); `forEachHerdrPreset` runs a
// body once per preset (HERDR_PRESETS) with its own simulator. `fillEventRing` makes a server busy
// with real exiting panes until its 512-event ring is full.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { sessionMembers } from "../sim/herdr/procfs.js";
import { type PartialSwitches, VERSION_PRESETS } from "../sim/herdr/switches.js";

/** The version presets the Herdr-facing tests should hold under: "0.8.0" (default), "head", "0.9.3". */
export const HERDR_PRESETS = VERSION_PRESETS;

/**
 * The preset a simulator started without a `version` runs: $HERDR_SIM_PRESET (the test runner
 * sets it for files marked `// @herdr-presets: …`, scripts/test.mjs), else "0.8.0".
 */
export function herdrPreset(): string {
  const p = process.env.HERDR_SIM_PRESET;
  return p === undefined || p === "" ? "0.8.0" : p;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MAIN = join(ROOT, "test", "sim", "herdr", "main.ts");

export type HerdrSimOptions = {
  /** Directory for the socket tree and the simulator's files (default: a fresh temp dir). */
  readonly dir?: string;
  /** Environment of the simulator process, which every pane inherits (undefined deletes). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * "0.8.0", "head" (protocol 20) or "0.9.3" (protocol 22, 0.9 methods, live-start lifecycle
   * subscriptions, 120x40 headless panes, the top-level agent omitted after reports). Default:
   * $HERDR_SIM_PRESET, else "0.8.0".
   */
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

export const EventRingSchema = v.object({
  type: v.literal("event_ring"),
  /** Sequence of the newest event (events are numbered from 1). */
  current_sequence: v.number(),
  /** Events still retained, at most 512. */
  retained: v.number(),
  oldest_sequence: v.optional(v.number()),
  /** Retained events per snake_case kind, e.g. `pane_exited`. */
  kinds: v.record(v.string(), v.number()),
});
export type EventRing = v.InferOutput<typeof EventRingSchema>;

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
  /** How full the lifecycle event ring is (the test-only `sim.event_ring` method). */
  eventRing(): Promise<EventRing>;
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
  const version = options.version ?? process.env.HERDR_SIM_PRESET;
  if (version !== undefined && version !== "") args.push("--version", version);
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
    async eventRing() {
      const reply = await rawRequest(
        socketPath,
        JSON.stringify({ id: "sim-ring", method: "sim.event_ring", params: {} }),
      );
      const parsed = v.safeParse(
        v.object({ result: EventRingSchema }),
        JSON.parse(reply) as unknown,
      );
      if (!parsed.success) throw new Error(`sim.event_ring failed: ${reply.trim()}`);
      return parsed.output.result;
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

/**
 * Run `body` once per preset, each with a simulator of its own started with `options` (uvu has
 * no parametrized tests; call this inside one test, or register one test per preset with
 * HERDR_PRESETS). A failure names the preset.
 */
export async function forEachHerdrPreset(
  body: (sim: HerdrSimHandle, preset: string) => Promise<void>,
  options: Omit<HerdrSimOptions, "version"> = {},
  presets: readonly string[] = HERDR_PRESETS,
): Promise<void> {
  for (const preset of presets) {
    const sim = await startHerdrSim({ ...options, version: preset });
    try {
      await body(sim, preset);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(`under Herdr preset ${preset}: ${message}`, { cause: err });
    } finally {
      await sim.stop();
    }
  }
}

async function requestJson(socketPath: string, method: string, params: unknown): Promise<unknown> {
  const reply = await rawRequest(socketPath, JSON.stringify({ id: "fill", method, params }));
  return JSON.parse(reply) as unknown;
}

const PaneListReply = v.object({
  result: v.object({ panes: v.array(v.object({ pane_id: v.string() })) }),
});

/**
 * A busy server, made by real activity. First tabs of panes whose command exits at once
 * (`exit 0`) push tab_created, pane_created, layout_updated and one pane_exited per pane until at
 * least `minExits` pane_exited are retained (default 40: a pane.exited subscription then replays
 * them for about 4 s); then, if the ring is not full yet, a custom agent report on a scratch pane
 * flips its label (one pane_agent_detected per report) until 512 events are retained, and the
 * scratch pane is closed (one pane_closed). Needs an existing workspace (`workspaceId`, default the
 * active one). Returns the ring once every filler pane is gone.
 */
export async function fillEventRing(
  sim: HerdrSimHandle,
  opts: { readonly cwd: string; readonly workspaceId?: string; readonly minExits?: number },
): Promise<EventRing> {
  const perTab = 12;
  const minExits = opts.minExits ?? 40;
  const pane = { type: "pane", cwd: opts.cwd, command: ["sh", "-c", "exit 0"] };
  let root: unknown = pane;
  for (let i = 1; i < perTab; i++)
    root = { type: "split", direction: "right", ratio: 0.5, first: pane, second: root };
  const target = opts.workspaceId === undefined ? {} : { workspace_id: opts.workspaceId };
  const before = await requestJson(sim.socketPath, "pane.list", {});
  const keep = new Set(v.parse(PaneListReply, before).result.panes.map((p) => p.pane_id));
  const deadline = Date.now() + 120_000;
  const settled = async (): Promise<boolean> => {
    const now = v.parse(PaneListReply, await requestJson(sim.socketPath, "pane.list", {}));
    return now.result.panes.every((p) => keep.has(p.pane_id));
  };
  const apply = async (layout: unknown): Promise<unknown> => {
    const applied = await requestJson(sim.socketPath, "layout.apply", { ...target, root: layout });
    if (!v.is(v.object({ result: v.unknown() }), applied))
      throw new Error(`fillEventRing: layout.apply failed: ${JSON.stringify(applied)}`);
    return applied;
  };
  while (((await sim.eventRing()).kinds.pane_exited ?? 0) < minExits) {
    if (Date.now() > deadline) throw new Error("fillEventRing: too slow (120 s)");
    await apply(root);
    // Each round's panes are gone (their pane_exited pushed) before the next round starts.
    while (!(await settled())) {
      if (Date.now() > deadline) throw new Error("fillEventRing: filler panes did not exit");
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  let ring = await sim.eventRing();
  if (ring.retained < 512) {
    const scratch = await apply({ type: "pane", cwd: opts.cwd, command: ["sleep", "600"] });
    const scratchId = v.parse(
      v.object({
        result: v.object({ layout: v.object({ root: v.object({ pane_id: v.string() }) }) }),
      }),
      scratch,
    ).result.layout.root.pane_id;
    // The scratch pane's own events and the final pane_closed count too: stop 1 short.
    for (let seq = 1; (await sim.eventRing()).retained < 511; seq++)
      await requestJson(sim.socketPath, "pane.report_agent", {
        pane_id: scratchId,
        source: "custom:fill",
        agent: seq % 2 === 0 ? "filler-a" : "filler-b",
        state: "idle",
        seq,
      });
    await requestJson(sim.socketPath, "pane.close", { pane_id: scratchId });
    ring = await sim.eventRing();
  }
  return ring;
}
