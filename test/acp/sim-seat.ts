/**
 * End-to-end fixture: the simulated `grok --leader` TUI in a private tmux pane, one real leader
 * connection, an admitted controller with its journal in a private seat directory, and the
 * seat. The simulator's frame log (GROK_SIM_LOG) is the independent oracle for what our client
 * put on the wire.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attachSession } from "../../lib/acp/acp-handshake.js";
import type { AcpSession, AcpSessionEvent } from "../../lib/acp/acp-session.js";
import { parseAcpPayload, type RpcMessage } from "../../lib/acp/json-rpc.js";
import { admitController, type Controller } from "../../lib/delivery/index.js";
import { GrokSeatError } from "../../lib/errors.js";
import { connectLeader, type LeaderConnection } from "../../lib/leader/leader-connection.js";
import {
  type GrokHomeFixture,
  type GrokTui,
  grokHomeFixture,
  type McpServerFixture,
  readSimLog,
  startGrokTui,
  waitFor,
} from "../helpers/grok-sim.js";

/** The code a promise rejected with, or null when it resolved. */
export { rejectionCode as refusal } from "../helpers/error-code.js";

export const NO_LINEAR: McpServerFixture[] = [
  { name: "docs", url: "https://docs.example/mcp", tools: ["search"] },
  { name: "files", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] },
];

export interface Sim {
  readonly tui: GrokTui;
  readonly home: GrokHomeFixture;
  readonly logPath: string;
  /** Every ACP message a client of `clientType` sent, as the leader read it. */
  acpFrom(clientType?: string): RpcMessage[];
  /** Trace events of one kind. */
  traced(event: string): Record<string, unknown>[];
  /** The session's `updates.jsonl` (the agent's durable record), as text. */
  updatesJsonl(): string;
  stop(): Promise<void>;
}

export async function startSim(
  opts: { mcpServers?: McpServerFixture[]; env?: Record<string, string> } = {},
): Promise<Sim> {
  const home = grokHomeFixture({ mcpServers: opts.mcpServers ?? NO_LINEAR });
  const logPath = join(home.dir, "sim-frames.log");
  const tui = await startGrokTui({
    grokHome: home.dir,
    cwd: home.cwd,
    env: { GROK_SIM_LOG: logPath, ...opts.env },
  });
  const sim: Sim = {
    tui,
    home,
    logPath,
    acpFrom: (clientType = "grok-seat") =>
      readSimLog(logPath).flatMap((l) => {
        if (l.event !== "frame_in" || l.client_type !== clientType) return [];
        const frame = l.frame;
        if (typeof frame !== "object" || frame === null || !("payload" in frame)) return [];
        const payload = frame.payload;
        if (typeof payload !== "string") return [];
        const m = parseAcpPayload(payload);
        return m instanceof GrokSeatError ? [] : [m];
      }),
    traced: (event) => readSimLog(logPath).filter((l) => l.event === event),
    updatesJsonl: () => {
      const root = join(home.dir, "sessions");
      for (const dir of existsSync(root) ? readdirSync(root) : []) {
        const f = join(root, dir, tui.sessionId, "updates.jsonl");
        if (existsSync(f)) return readFileSync(f, "utf8");
      }
      return "";
    },
    stop: async () => {
      await tui.stop();
      home.remove();
    },
  };
  try {
    await tui.leaderPid();
    await waitFor("the TUI's session in active_sessions.json", () => {
      const p = tui.paths.activeSessions;
      return existsSync(p) && readFileSync(p, "utf8").includes(tui.sessionId);
    });
  } catch (err) {
    await sim.stop();
    throw err;
  }
  return sim;
}

export interface Attached {
  readonly conn: LeaderConnection;
  readonly controller: Controller;
  readonly seat: AcpSession;
  readonly events: AcpSessionEvent[];
  /** Close the seat, the leader connection and the controller (the seat dir stays). */
  close(): Promise<void>;
}

export function newSeatDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "acp-seat-"));
  chmodSync(dir, 0o700);
  return dir;
}

export function removeSeatDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

type SimOptions = NonNullable<Parameters<typeof startSim>[0]>;
type SimBody = (sim: Sim, seatDir: string) => Promise<void>;

/** Run `body` with a fresh simulator and seat directory; both are removed after it, whatever it did. */
export async function withSim(body: SimBody): Promise<void>;
export async function withSim(opts: SimOptions, body: SimBody): Promise<void>;
export async function withSim(a: SimOptions | SimBody, b?: SimBody): Promise<void> {
  const [opts, body] = typeof a === "function" ? [{}, a] : [a, b];
  if (body === undefined) throw new Error("withSim: no body");
  const sim = await startSim(opts);
  const seatDir = newSeatDir();
  try {
    await body(sim, seatDir);
  } finally {
    await sim.stop();
    removeSeatDir(seatDir);
  }
}

type AttachedBody = (sim: Sim, a: Attached, seatDir: string) => Promise<void>;

/** `withSim`, with a seat attached to the TUI's session for `body` and closed after it. */
export async function withAttachedSeat(body: AttachedBody): Promise<void>;
export async function withAttachedSeat(opts: SimOptions, body: AttachedBody): Promise<void>;
export async function withAttachedSeat(
  a: SimOptions | AttachedBody,
  b?: AttachedBody,
): Promise<void> {
  const [opts, body] = typeof a === "function" ? [{}, a] : [a, b];
  if (body === undefined) throw new Error("withAttachedSeat: no body");
  await withSim(opts, async (sim, seatDir) => {
    const attached = await attachSeat(sim, seatDir);
    try {
      await body(sim, attached, seatDir);
    } finally {
      await attached.close();
    }
  });
}

/** Connect once, admit a controller on `seatDir`, attach to `sessionId` (default: the TUI's). */
export async function attachSeat(
  sim: Sim,
  seatDir: string,
  opts: { sessionId?: string; cwd?: string } = {},
): Promise<Attached> {
  const conn = await connectLeader(sim.tui.paths.socketPath);
  const controller = admitController({ seatDir });
  const release = async (): Promise<void> => {
    await conn.close();
    controller.release();
  };
  let seat: AcpSession;
  try {
    seat = await attachSession(conn, {
      sessionId: opts.sessionId ?? sim.tui.sessionId,
      cwd: opts.cwd ?? sim.home.cwd,
      journal: controller.journal,
      leaderIdentity: `pid:${await sim.tui.leaderPid()}`,
      paneIdentity: `tmux:${sim.tui.tmuxServer}`,
      requestTimeoutMs: 10_000,
    });
  } catch (err) {
    await release();
    throw err;
  }
  const events: AcpSessionEvent[] = [];
  seat.on((e) => events.push(e));
  return {
    conn,
    controller,
    seat,
    events,
    close: async () => {
      seat.close();
      await release();
    },
  };
}

/** Methods of the requests/notifications in `msgs`, in order. */
export function methods(msgs: readonly RpcMessage[]): string[] {
  return msgs.flatMap((m) => (m.kind === "response" ? [] : [m.method]));
}
