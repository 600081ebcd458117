// Herdr simulator: a Herdr API socket server (0.8.0/HEAD wire behaviour, optionally 0.9.3's)
// whose panes are real terminals in a private tmux server.
//
//   node --import tsx test/sim/herdr/main.ts --socket <path> [--session <name>]
//     [--tmux-socket <name>] [--dir <path>] [--version 0.8.0|head|0.9.3|<string>]
//     [--switches <json>] [--test-control] [--remove-on-exit <dir>]
//
// Prints one JSON line `{"ready":true,...}` on stdout once the socket accepts connections, and
// shuts down (killing every pane process and the tmux server, removing the socket) on SIGTERM,
// SIGINT or when stdin closes. Watch the panes with `tmux -L <tmux-socket> attach -t w1`.
//
// Layout in tmux: one tmux session per Herdr workspace (named like it, `w1`), one window per
// Herdr pane (a tab's root pane in a window named like the tab, split panes in windows named
// `pane-w1-p3`), each of the headless size, plus a keep-alive session `herdr-<session>`.
// Each pane process is the argv itself (`pane_pid` = `shell_pid`).
//
// Presets (--version): 0.8.0 (default), head (protocol 20), 0.9.3 (protocol 22, 0.9 methods,
// live-start subscriptions, 120x40 headless panes). README.md there lists each behaviour.
// Switches (see switches.ts; also HERDR_SIM_* environment variables): detectMs
// (HERDR_SIM_DETECT_MS, default 300), omitTopLevelAgentAfterReport (HERDR_SIM_OMIT_TOP_LEVEL_AGENT,
// the 0.9.3 behaviour), agentOverride (G5), agentNull (G6), sessionFault (G7a/b/c), faultPane,
// closeBeforeReply, oversizedReplyBytes, malformedReply, replyDelayMs, faultMethods,
// eventKeyOrder, requestTimeoutMs, version, protocol, capabilities, detectedStatus.
// `sim.configure {…partial switches}` changes them at runtime, `sim.injection_log {}` lists the
// logged input-injection calls and `sim.event_ring {}` tells how full the event ring is; they
// exist only with --test-control (Herdr has none of them).
import { fstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { runHerdrSim } from "./run.js";
import {
  DEFAULT_SWITCHES,
  mergeSwitches,
  PartialSwitchesSchema,
  switchesFromEnv,
  versionPreset,
} from "./switches.js";

const ArgsSchema = v.object({
  socket: v.pipe(v.string(), v.minLength(1)),
  session: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,64}$/)), "default"),
  tmuxSocket: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,64}$/))),
  dir: v.optional(v.string()),
  version: v.optional(v.string()),
  switches: v.optional(v.string()),
  removeOnExit: v.optional(v.string()),
  testControl: v.boolean(),
});

function parseArgs(argv: readonly string[]): v.InferOutput<typeof ArgsSchema> {
  const raw: Record<string, unknown> = { testControl: false };
  const names: Record<string, string> = {
    "--socket": "socket",
    "--session": "session",
    "--tmux-socket": "tmuxSocket",
    "--dir": "dir",
    "--version": "version",
    "--switches": "switches",
    "--remove-on-exit": "removeOnExit",
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--test-control") raw.testControl = true;
    else if (names[arg] !== undefined && argv[i + 1] !== undefined)
      raw[names[arg] as string] = argv[++i];
    else throw new Error(`herdr-sim: unknown or incomplete argument ${arg}`);
  }
  const parsed = v.safeParse(ArgsSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw new Error(`herdr-sim: bad --${issue.path?.[0]?.key ?? "argument"}: ${issue.message}`);
  }
  return parsed.output;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let switches = mergeSwitches(DEFAULT_SWITCHES, switchesFromEnv(process.env));
  if (args.version !== undefined) switches = mergeSwitches(switches, versionPreset(args.version));
  if (args.switches !== undefined)
    switches = mergeSwitches(
      switches,
      v.parse(PartialSwitchesSchema, JSON.parse(args.switches) as unknown),
    );
  const tmuxSocket = args.tmuxSocket ?? `herdr-sim-${process.pid}`;
  const dir = args.dir ?? mkdtempSync(join(tmpdir(), "herdr-sim-"));
  const baseEnv: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(baseEnv)) if (key.startsWith("HERDR_SIM_")) delete baseEnv[key];
  const running = await runHerdrSim({
    socketPath: args.socket,
    sessionName: args.session,
    tmuxSocket,
    dir,
    switches,
    testControl: args.testControl,
    baseEnv,
  });
  let exiting = false;
  const shutdown = () => {
    if (exiting) return;
    exiting = true;
    void running.stop().finally(() => {
      // The test helper hands us its private directory, so a parent that died without stop()
      // leaves nothing behind once we notice (stdin closes).
      if (args.removeOnExit !== undefined)
        rmSync(args.removeOnExit, { recursive: true, force: true });
      process.exit(0);
    });
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  // A parent that started us with a pipe on stdin (the test helper) ends us by going away.
  if (fstatSync(0).isFIFO()) {
    process.stdin.on("end", shutdown);
    process.stdin.on("error", shutdown);
    process.stdin.resume();
  }
  process.stdout.write(
    `${JSON.stringify({ ready: true, socketPath: args.socket, sessionName: args.session, tmuxSocket, pid: process.pid, dir })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
