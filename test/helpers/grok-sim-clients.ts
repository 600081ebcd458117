/**
 * What the grok simulator's own tests share beyond test/helpers/grok-sim.ts: a raw ACP client on
 * the leader socket, a leader in a fresh GROK_HOME with its trace log, the trace log read back,
 * and Grok's cwd encoding as an oracle written independently of the simulator's.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RawClient } from "../sim/grok/tests/raw.js";
import {
  type GrokHomeFixture,
  type GrokLeader,
  type GrokTui,
  grokHomeFixture,
  startGrokLeader,
  startGrokTui,
} from "./grok-sim.js";

/** The simulator's GROK_SIM_LOG trace, one JSON object a line; none when it was not written. */
export function traceEvents(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

/** urlencoding::encode (xai-grok-config paths.rs encode_cwd_dirname for short cwds). */
export function encodeCwd(cwd: string): string {
  let out = "";
  for (const b of Buffer.from(cwd, "utf8")) {
    const ch = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~]/.test(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** A client registered as `clientType` that has sent ACP `initialize`. */
export async function acpClient(
  socketPath: string,
  clientType: string,
  opts: {
    capabilities?: Record<string, unknown>;
    initMeta?: Record<string, unknown> | undefined;
  } = {},
): Promise<RawClient> {
  const c = await RawClient.open(socketPath);
  await c.register(clientType, opts.capabilities);
  await c.request("initialize", {
    protocolVersion: 1,
    ...(opts.initMeta === undefined ? {} : { _meta: opts.initMeta }),
  });
  return c;
}

/** A fresh GROK_HOME and the GROK_SIM_LOG trace file every simulator started in it writes. */
export interface SimHomeCtx {
  readonly home: GrokHomeFixture;
  /** The GROK_SIM_LOG trace file, beside GROK_HOME. */
  readonly log: string;
}

/**
 * A fresh GROK_HOME (`prepare` runs on it first, e.g. to write repo-local config into its cwd)
 * with its trace file; removed after `fn`. For tests that start several TUIs or leaders in turn.
 */
export async function withSimHome(
  opts: {
    home?: Parameters<typeof grokHomeFixture>[0];
    prepare?: (home: GrokHomeFixture) => void;
  },
  fn: (ctx: SimHomeCtx) => Promise<void>,
): Promise<void> {
  const home = grokHomeFixture(opts.home);
  const log = join(home.dir, "..", "trace.log");
  try {
    opts.prepare?.(home);
    await fn({ home, log });
  } finally {
    home.remove();
  }
}

type TuiStart = Parameters<typeof startGrokTui>[0];
type LeaderStart = Parameters<typeof startGrokLeader>[0];

/** Run `fn` with the simulator process `start` resolves to; stop it after `fn`, whatever it did. */
export async function withRunning<P extends { stop(): Promise<void> }>(
  start: Promise<P>,
  fn: (p: P) => Promise<void>,
): Promise<void> {
  const p = await start;
  try {
    await fn(p);
  } finally {
    await p.stop();
  }
}

/** A TUI in `ctx.home` (in its cwd unless `cwd` is given) tracing to `ctx.log`; stopped after `fn`. */
export async function withTuiIn(
  ctx: SimHomeCtx,
  opts: {
    env?: Record<string, string>;
    cwd?: string;
    tui?: Omit<TuiStart, "grokHome" | "cwd" | "env">;
  },
  fn: (tui: GrokTui) => Promise<void>,
): Promise<void> {
  const env = { ...opts.env, GROK_SIM_LOG: ctx.log };
  const cwd = opts.cwd ?? ctx.home.cwd;
  await withRunning(startGrokTui({ grokHome: ctx.home.dir, cwd, env, ...opts.tui }), fn);
}

/** A leader in `ctx.home` tracing to `ctx.log`; stopped after `fn`. */
export async function withLeaderIn(
  ctx: SimHomeCtx,
  opts: { env?: Record<string, string>; leader?: Omit<LeaderStart, "grokHome" | "cwd" | "env"> },
  fn: (leader: GrokLeader) => Promise<void>,
): Promise<void> {
  const env = { ...opts.env, GROK_SIM_LOG: ctx.log };
  const cwd = ctx.home.cwd;
  await withRunning(startGrokLeader({ grokHome: ctx.home.dir, cwd, env, ...opts.leader }), fn);
}

/** A fresh GROK_HOME for one simulator process: its env, the home's options, and what to prepare. */
export interface FreshHomeOptions {
  env?: Record<string, string>;
  home?: Parameters<typeof grokHomeFixture>[0];
  /** Runs on the new home before the process starts (e.g. writes its auth.json or repo config). */
  prepare?: (home: GrokHomeFixture) => void;
}

export interface SimLeaderCtx extends SimHomeCtx {
  readonly leader: GrokLeader;
}

/** A leader in a fresh GROK_HOME tracing beside it; stopped and removed after `fn`. */
export async function withSimLeader(
  opts: FreshHomeOptions,
  fn: (ctx: SimLeaderCtx) => Promise<void>,
): Promise<void> {
  await withSimHome(opts, (ctx) => withLeaderIn(ctx, opts, (leader) => fn({ ...ctx, leader })));
}

export interface SimTuiCtx extends SimHomeCtx {
  readonly tui: GrokTui;
}

/**
 * A TUI in a fresh GROK_HOME tracing beside it; stopped and removed after `fn`. `tui` passes the
 * other start options (prompt, extra arguments, ...) through.
 */
export async function withSimTui(
  opts: FreshHomeOptions & { tui?: Omit<TuiStart, "grokHome" | "cwd" | "env"> },
  fn: (ctx: SimTuiCtx) => Promise<void>,
): Promise<void> {
  await withSimHome(opts, (ctx) => withTuiIn(ctx, opts, (tui) => fn({ ...ctx, tui })));
}
