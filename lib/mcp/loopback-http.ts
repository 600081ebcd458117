/**
 * Serve MCP over streamable HTTP on 127.0.0.1 only: one SDK `StreamableHTTPServerTransport`
 * (stateful, a session id per client) and one server per session, created by `connect`.
 *
 * Loopback is enforced three ways: the socket binds 127.0.0.1 and nothing else; a request whose
 * `Host` is not `127.0.0.1:<port>` or `localhost:<port>` is refused 403 (DNS rebinding: a page on
 * another origin that resolves to 127.0.0.1 still sends its own host name); a browser `Origin`
 * that is not that loopback origin is refused 403. The SDK's own `allowedHosts` options are
 * deprecated in 1.32.2 in favour of exactly this kind of outer check (webStandardStreamableHttp.d.ts).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { McpProjectionError } from "./mcp-error.js";

export interface LoopbackHttpOptions {
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  readonly port?: number;
  /** URL path of the MCP endpoint; default `/mcp`. */
  readonly path?: string;
  /** Attach a fresh MCP server to a new session's transport (e.g. `s => server.connect(s)`). */
  readonly connect: (transport: StreamableHTTPServerTransport) => Promise<void>;
  /** Upper bound on a request body; default 4 MiB, the SDK transport's own default. */
  readonly maxBodyBytes?: number;
}

export interface LoopbackHttpServer {
  /** `http://127.0.0.1:<port><path>` */
  readonly url: URL;
  readonly port: number;
  /** Number of live MCP sessions. */
  sessionCount(): number;
  /** Close every session, then the listening socket. */
  close(): Promise<void>;
}

export const LOOPBACK_HOST = "127.0.0.1";

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, {
    "content-type": "application/json",
    ...(status === 413 ? { connection: "close" } : {}),
  });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        // Stop buffering but keep draining, so the 413 reaches the client intact.
        req.removeAllListeners("data");
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Start the loopback MCP endpoint. Resolves once the socket is listening. */
export async function serveLoopbackHttp(options: LoopbackHttpOptions): Promise<LoopbackHttpServer> {
  const path = options.path ?? "/mcp";
  const limit = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let port = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host;
    if (host !== `${LOOPBACK_HOST}:${port}` && host !== `localhost:${port}`)
      return jsonRpcError(
        res,
        403,
        -32000,
        "Forbidden: the Host header must name this loopback endpoint",
      );
    const origin = req.headers.origin;
    if (
      origin !== undefined &&
      origin !== `http://${LOOPBACK_HOST}:${port}` &&
      origin !== `http://localhost:${port}`
    )
      return jsonRpcError(res, 403, -32000, "Forbidden: cross-origin request");
    if (new URL(req.url ?? "/", `http://${host}`).pathname !== path)
      return jsonRpcError(res, 404, -32000, "Not found");

    const sid = req.headers["mcp-session-id"];
    if (typeof sid === "string") {
      const t = sessions.get(sid);
      if (t === undefined) return jsonRpcError(res, 404, -32001, "Session not found");
      return t.handleRequest(req, res);
    }
    if (req.method !== "POST")
      return jsonRpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    const text = await readBody(req, limit);
    if (text === undefined) return jsonRpcError(res, 413, -32000, "Payload too large");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return jsonRpcError(res, 400, -32700, "Parse error");
    }
    if (!isInitializeRequest(body))
      return jsonRpcError(res, 400, -32000, "Bad Request: the first request must be initialize");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await options.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) jsonRpcError(res, 500, -32603, `Internal error: ${String(err)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, LOOPBACK_HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string")
    throw new McpProjectionError("MCP_HTTP_LISTEN", "the HTTP server has no TCP address");
  port = (address satisfies AddressInfo).port;

  return {
    url: new URL(`http://${LOOPBACK_HOST}:${port}${path}`),
    port,
    sessionCount: () => sessions.size,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((t) => t.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
