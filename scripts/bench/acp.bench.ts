/**
 * ACP figures (issue 5 "Performance"): one prompt round trip with an immediate reply
 * (`[[sim:chunks=1]]`, GROK_SIM_CHUNK_DELAY_MS=0), from handing the text over until the last of the
 * three result channels (the `session/prompt` response) is in, median and p99, three ways in one
 * run against the same `grok` simulator:
 *   1. bare echo: a local unix socket that answers the recorded prompt frame with the recorded reply
 *      frames (the same bytes, no Grok): the transport floor;
 *   2. raw client: hand-made frames and JSON.parse against the simulator's leader (no SDK, no tap,
 *      no journal): what Grok itself costs;
 *   3. AcpSession: leader connection + SDK client app + tap + evidence + fence journal (fsync per
 *      prompt) against the same leader.
 * Our layers' overhead is (3) − (2), also as a ratio; (1) shows what the socket alone costs, and
 * (4) the fence journal alone (fence fsync + dispatched record, no network), which is part of (3).
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attachSession } from "../../lib/acp/acp-handshake.js";
import { admitController, dispatch } from "../../lib/delivery/index.js";
import { connectLeader } from "../../lib/leader/leader-connection.js";
import {
  ensureGrokSim,
  grokHomeFixture,
  startGrokTui,
  waitFor,
} from "../../test/helpers/grok-sim.js";
import { figure, row, summarize } from "./lib/stats.js";

const WARMUP = 20;
const N = Number(process.env.ACP_BENCH_N ?? 300);
const TEXT = "[[sim:chunks=1]] ping";

function frame(obj: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(obj));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/** A minimal framed reader: calls `onFrame` with each parsed JSON frame. */
function reader(onFrame: (msg: Record<string, unknown>, raw: Buffer) => void): (c: Buffer) => void {
  let buf: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    while (buf.length >= 4) {
      const len = buf.readUInt32BE(0);
      if (buf.length < 4 + len) break;
      const raw = buf.subarray(0, 4 + len);
      const parsed: unknown = JSON.parse(buf.subarray(4, 4 + len).toString("utf8"));
      buf = buf.subarray(4 + len);
      if (typeof parsed === "object" && parsed !== null) {
        onFrame(Object.fromEntries(Object.entries(parsed)), Buffer.from(raw));
      }
    }
  };
}

/** The raw client: register, initialize, then prompts; resolves each when its response arrives. */
async function rawClient(socketPath: string, sessionId: string) {
  const sock = net.createConnection({ path: socketPath });
  await new Promise<void>((r) => sock.once("connect", () => r()));
  let waiting: { id: number; done: () => void } | null = null;
  let recording: Buffer[] | null = null;
  let registered: () => void = () => {};
  const ready = new Promise<void>((r) => {
    registered = r;
  });
  sock.on(
    "data",
    reader((msg, raw) => {
      if (msg.type === "registered") registered();
      if (msg.type !== "acp" || typeof msg.payload !== "string") return;
      recording?.push(raw);
      const p: unknown = JSON.parse(msg.payload);
      if (waiting && typeof p === "object" && p !== null && "id" in p && p.id === waiting.id) {
        const w = waiting;
        waiting = null;
        w.done();
      }
    }),
  );
  sock.write(
    frame({
      type: "register",
      client_type: "bench-raw",
      mode: "stdio",
      capabilities: { status_line: true },
    }),
  );
  await ready;
  let nextId = 1;
  const call = (method: string, params: unknown): Promise<void> =>
    new Promise((done) => {
      const id = nextId++;
      waiting = { id, done };
      sock.write(
        frame({ type: "acp", payload: JSON.stringify({ jsonrpc: "2.0", id, method, params }) }),
      );
    });
  await call("initialize", { protocolVersion: 1, _meta: { clientType: "grok-pager" } });
  let n = 0;
  return {
    prompt: (record = false): Promise<{ sent: Buffer; replies: Buffer[] }> => {
      const replies: Buffer[] = [];
      recording = record ? replies : null;
      const params = {
        sessionId,
        prompt: [{ type: "text", text: TEXT }],
        _meta: { promptId: `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}` },
      };
      const id = nextId;
      const sent = frame({
        type: "acp",
        payload: JSON.stringify({ jsonrpc: "2.0", id, method: "session/prompt", params }),
      });
      return call("session/prompt", params).then(() => ({ sent, replies }));
    },
    close: () => sock.destroy(),
  };
}

/** A bare echo server answering one request frame with the recorded reply frames. */
async function echoServer(path: string, replies: Buffer[]) {
  const all = Buffer.concat(replies);
  const server = net.createServer((s) =>
    s.on(
      "data",
      reader(() => s.write(all)),
    ),
  );
  await new Promise<void>((r) => server.listen(path, () => r()));
  const sock = net.createConnection({ path });
  await new Promise<void>((r) => sock.once("connect", () => r()));
  let remaining = 0;
  let done: () => void = () => {};
  sock.on(
    "data",
    reader(() => {
      remaining--;
      if (remaining === 0) done();
    }),
  );
  return {
    roundTrip: (sent: Buffer): Promise<void> =>
      new Promise((r) => {
        remaining = replies.length;
        done = r;
        sock.write(sent);
      }),
    close: () => {
      sock.destroy();
      server.close();
    },
  };
}

async function timeEach(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return out;
}

await ensureGrokSim();
const home = grokHomeFixture({ mcpServers: [{ name: "docs", url: "https://docs.example/mcp" }] });
const seatDir = mkdtempSync(join(tmpdir(), "acp-bench-"));
chmodSync(seatDir, 0o700);
const tui = await startGrokTui({
  grokHome: home.dir,
  cwd: home.cwd,
  env: { GROK_SIM_CHUNK_DELAY_MS: "0" },
});
try {
  await tui.leaderPid();
  await waitFor("session", () => {
    const p = tui.paths.activeSessions;
    return existsSync(p) && readFileSync(p, "utf8").includes(tui.sessionId);
  });

  // 2. raw client, and the frames of one round trip for the echo.
  const raw = await rawClient(tui.paths.socketPath, tui.sessionId);
  for (let i = 0; i < WARMUP; i++) await raw.prompt();
  const { sent, replies } = await raw.prompt(true);
  const rawUs = await timeEach(N, () => raw.prompt());
  raw.close();

  // 1. bare echo of the same frames.
  const echo = await echoServer(join(seatDir, "echo.sock"), replies);
  for (let i = 0; i < WARMUP; i++) await echo.roundTrip(sent);
  const echoUs = await timeEach(N, () => echo.roundTrip(sent));
  echo.close();

  // 3. AcpSession.
  const conn = await connectLeader(tui.paths.socketPath);
  const controller = admitController({ seatDir });
  const seat = await attachSession(conn, {
    sessionId: tui.sessionId,
    cwd: home.cwd,
    journal: controller.journal,
    leaderIdentity: "bench",
    paneIdentity: "bench",
  });
  const responses = new Map<string, () => void>();
  seat.on((e) => {
    if (e.type === "result-echo" && e.evidence.channel === "rpc-response") {
      responses.get(e.evidence.promptId)?.();
    }
  });
  const seatPrompt = async (): Promise<void> => {
    let got: () => void = () => {};
    const response = new Promise<void>((r) => {
      got = r;
    });
    const d = await seat.deliver(TEXT);
    responses.set(d.promptId, got);
    await Promise.all([d.completed, response]);
    responses.delete(d.promptId);
  };
  for (let i = 0; i < WARMUP; i++) await seatPrompt();
  const seatUs = await timeEach(N, seatPrompt);
  seat.close();
  await conn.close();
  controller.release();

  // 4. the fence journal alone, same disk: fence (fsync) + dispatched, nothing sent.
  const fenceDir = mkdtempSync(join(tmpdir(), "acp-bench-fence-"));
  chmodSync(fenceDir, 0o700);
  const fenceController = admitController({ seatDir: fenceDir });
  let k = 0;
  const fenceOnly = (): Promise<unknown> =>
    dispatch(
      fenceController.journal,
      {
        promptId: `00000000-0000-4000-9000-${String(++k).padStart(12, "0")}`,
        sessionId: tui.sessionId,
        leader: "bench",
        pane: "bench",
        text: TEXT,
      },
      async () => {},
    );
  for (let i = 0; i < WARMUP; i++) await fenceOnly();
  const fenceUs = await timeEach(N, fenceOnly);
  fenceController.release();
  rmSync(fenceDir, { recursive: true, force: true });

  const e = summarize(echoUs);
  const r = summarize(rawUs);
  const s = summarize(seatUs);
  const f = summarize(fenceUs);
  const widths = [44, 12, 12];
  process.stdout.write(
    `\nprompt round trip, immediate reply, ${replies.length} reply frames (${Buffer.concat(replies).length} bytes), n=${N} (µs)\n`,
  );
  process.stdout.write(`${row(["", "median", "p99"], widths)}\n`);
  process.stdout.write(
    `${row(["1. bare socket echo of the same frames", e.median, e.p99], widths)}\n`,
  );
  process.stdout.write(
    `${row(["2. raw frames against the grok simulator", r.median, r.p99], widths)}\n`,
  );
  process.stdout.write(
    `${row(["3. AcpSession (SDK + tap + fence fsync)", s.median, s.p99], widths)}\n`,
  );
  process.stdout.write(
    `${row(["   our layers: (3) - (2)", s.median - r.median, s.p99 - r.p99], widths)}\n`,
  );
  process.stdout.write(
    `${row(["   ratio (3) / (2)", s.median / r.median, s.p99 / r.p99], widths)}\n`,
  );
  process.stdout.write(`${row(["4. fence journal alone (part of 3)", f.median, f.p99], widths)}\n`);
  figure("acp.prompt_rtt.echo.median", e.median, "us", { n: N });
  figure("acp.prompt_rtt.echo.p99", e.p99, "us", { n: N });
  figure("acp.prompt_rtt.raw.median", r.median, "us", { n: N });
  figure("acp.prompt_rtt.raw.p99", r.p99, "us", { n: N });
  figure("acp.prompt_rtt.seat.median", s.median, "us", { n: N });
  figure("acp.prompt_rtt.seat.p99", s.p99, "us", { n: N });
  figure("acp.prompt_rtt.overhead.median", s.median - r.median, "us", { n: N });
  figure("acp.prompt_rtt.ratio_vs_raw.median", s.median / r.median, "x", { n: N });
  figure("acp.fence_dispatch.median", f.median, "us", { n: N });
  figure("acp.fence_dispatch.p99", f.p99, "us", { n: N });
} finally {
  await tui.stop();
  home.remove();
  rmSync(seatDir, { recursive: true, force: true });
}
