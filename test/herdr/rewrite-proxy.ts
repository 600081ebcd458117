/**
 * A line-level proxy in front of the Herdr simulator, for the two tamperings the simulator
 * cannot produce on its own (like real Herdr, it closes an argv pane when its process exits):
 * - "process restarted in the same pane": requests about pane A are answered from pane B (a
 *   fresh process on a fresh pty) under A's pane id and terminal id;
 * - "terminal changed": pane A's `terminal_id` is reported as another value (what a live handoff
 *   or a restore does to a real pane, docs/design/herdr-socket-api.md §2.3).
 * Everything else passes through byte for byte. Bind and verify through the same proxy, so the
 * session descriptor (this process as the listener) stays the same on both sides.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Rewrites {
  /** Answer requests about `from` with `to`'s data, relabelled as `from`. */
  redirect: { from: string; to: string; keepTerminalId: string } | null;
  /** Report this terminal id for the pane. */
  terminal: { paneId: string; terminalId: string } | null;
}

export interface RewriteProxy {
  readonly socketPath: string;
  readonly rewrites: Rewrites;
  stop(): Promise<void>;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

export async function startRewriteProxy(upstream: string): Promise<RewriteProxy> {
  const dir = mkdtempSync(join(tmpdir(), "gs-herdr-proxy-"));
  const socketPath = join(dir, "herdr.sock");
  const rewrites: Rewrites = { redirect: null, terminal: null };
  const sockets = new Set<Socket>();

  const rewriteRequest = (line: string): string => {
    const r = rewrites.redirect;
    const req: unknown = JSON.parse(line);
    if (r === null || !isRecord(req) || !isRecord(req.params) || req.params.pane_id !== r.from) {
      return line;
    }
    return JSON.stringify({ ...req, params: { ...req.params, pane_id: r.to } });
  };
  const rewritePane = (pane: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...pane };
    const r = rewrites.redirect;
    if (r !== null && out.pane_id === r.to)
      Object.assign(out, { pane_id: r.from, terminal_id: r.keepTerminalId });
    const t = rewrites.terminal;
    if (t !== null && out.pane_id === t.paneId) out.terminal_id = t.terminalId;
    return out;
  };
  const rewriteReply = (line: string): string => {
    const reply: unknown = JSON.parse(line);
    if (!isRecord(reply) || !isRecord(reply.result)) return line;
    const result = { ...reply.result };
    if (isRecord(result.pane)) result.pane = rewritePane(result.pane);
    const r = rewrites.redirect;
    if (r !== null && isRecord(result.process_info) && result.process_info.pane_id === r.to) {
      result.process_info = { ...result.process_info, pane_id: r.from };
    }
    return JSON.stringify({ ...reply, result });
  };

  const server = createServer({ allowHalfOpen: true }, (client) => {
    sockets.add(client);
    let buf = "";
    let up: Socket | null = null;
    client.on("error", () => {});
    client.on("close", () => {
      sockets.delete(client);
      up?.destroy();
    });
    client.on("data", (chunk: Buffer) => {
      if (up !== null) return; // one request per connection; never forward more
      buf += chunk.toString("utf8");
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      const upstreamSocket = createConnection({ path: upstream, allowHalfOpen: true });
      up = upstreamSocket;
      sockets.add(upstreamSocket);
      upstreamSocket.on("error", () => client.destroy());
      upstreamSocket.on("close", () => {
        sockets.delete(upstreamSocket);
        client.end();
      });
      let back = "";
      upstreamSocket.on("data", (d: Buffer) => {
        back += d.toString("utf8");
        let i = back.indexOf("\n");
        while (i >= 0) {
          client.write(`${rewriteReply(back.slice(0, i))}\n`);
          back = back.slice(i + 1);
          i = back.indexOf("\n");
        }
      });
      upstreamSocket.write(`${rewriteRequest(buf.slice(0, nl))}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    rewrites,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
