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

export interface SimLeaderCtx {
  readonly leader: GrokLeader;
  readonly home: GrokHomeFixture;
  /** The GROK_SIM_LOG trace file. */
  readonly log: string;
}

/** A leader in a fresh GROK_HOME tracing to `trace.jsonl`; stopped and removed after `fn`. */
export async function withSimLeader(
  opts: { env?: Record<string, string>; home?: Parameters<typeof grokHomeFixture>[0] },
  fn: (ctx: SimLeaderCtx) => Promise<void>,
): Promise<void> {
  const home = grokHomeFixture(opts.home);
  const log = join(home.dir, "trace.jsonl");
  const leader = await startGrokLeader({
    grokHome: home.dir,
    cwd: home.cwd,
    env: { GROK_SIM_LOG: log, ...opts.env },
  });
  try {
    await fn({ leader, home, log });
  } finally {
    await leader.stop();
    home.remove();
  }
}

export interface SimTuiCtx {
  readonly tui: GrokTui;
  readonly home: GrokHomeFixture;
  /** The GROK_SIM_LOG trace file, beside GROK_HOME. */
  readonly log: string;
}

/**
 * A TUI in a fresh GROK_HOME tracing to `trace.log` beside it; stopped and removed after `fn`.
 * `tui` passes the other start options (prompt, extra arguments, ...) through.
 */
export async function withSimTui(
  opts: {
    env?: Record<string, string>;
    home?: Parameters<typeof grokHomeFixture>[0];
    /** Runs on the new home before the TUI starts (e.g. writes repo-local config into its cwd). */
    prepare?: (home: GrokHomeFixture) => void;
    tui?: Omit<Parameters<typeof startGrokTui>[0], "grokHome" | "cwd" | "env">;
  },
  fn: (ctx: SimTuiCtx) => Promise<void>,
): Promise<void> {
  const home = grokHomeFixture(opts.home);
  const log = join(home.dir, "..", "trace.log");
  opts.prepare?.(home);
  const tui = await startGrokTui({
    grokHome: home.dir,
    cwd: home.cwd,
    env: { ...opts.env, GROK_SIM_LOG: log },
    ...opts.tui,
  });
  try {
    await fn({ tui, home, log });
  } finally {
    await tui.stop();
    home.remove();
  }
}
