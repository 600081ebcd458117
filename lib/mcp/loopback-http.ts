/**
 * Serve MCP over streamable HTTP on 127.0.0.1 only (or on a unix socket): one SDK
 * `StreamableHTTPServerTransport` (stateful, a session id per client) and one server per session,
 * created by `connect`.
 *
 * Every request must carry `Authorization: Bearer <token>`, the token of this instance (a fresh
 * 256-bit random one unless the caller supplies its own), or it is refused 401 with
 * `WWW-Authenticate: Bearer` (RFC 6750 §3) before anything else sees it: any local user can
 * connect to a loopback port, so the port alone proves nothing (issue 16 item 3). The comparison
 * is constant-time over SHA-256 digests, so neither the token nor its length leaks by timing.
 *
 * Loopback is enforced three ways besides: the socket binds 127.0.0.1 and nothing else; a request
 * whose `Host` is not `127.0.0.1:<port>` or `localhost:<port>` is refused 403 (DNS rebinding: a
 * page on another origin that resolves to 127.0.0.1 still sends its own host name); a browser
 * `Origin` that is not that loopback origin is refused 403. The SDK's own `allowedHosts` options
 * are deprecated in 1.32.2 in favour of exactly this kind of outer check
 * (webStandardStreamableHttp.d.ts). On a unix socket (`socketPath`) the file is made 0600 and any
 * `Origin` is refused (no browser reaches a unix socket); the token is still required.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { chmodSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { McpProjectionError } from "./mcp-error.js";

export interface LoopbackHttpOptions {
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  readonly port?: number;
  /**
   * Listen on this unix socket path instead of TCP (made 0600; put it in a directory only you can
   * enter). The URL then names `localhost` and the path.
   */
  readonly socketPath?: string;
  /**
   * The bearer token clients must present (RFC 6750 `b64token` characters, at least 32). Default:
   * a fresh random one per instance, returned as `bearerToken`.
   */
  readonly bearerToken?: string;
  /** URL path of the MCP endpoint; default `/mcp`. */
  readonly path?: string;
  /** Attach a fresh MCP server to a new session's transport (e.g. `s => server.connect(s)`). */
  readonly connect: (transport: StreamableHTTPServerTransport) => Promise<void>;
  /** Upper bound on a request body; default 4 MiB, the SDK transport's own default. */
  readonly maxBodyBytes?: number;
}

export interface LoopbackHttpServer {
  /** `http://127.0.0.1:<port><path>` (on a unix socket: `http://localhost<path>`). */
  readonly url: URL;
  /** The TCP port; 0 on a unix socket. */
  readonly port: number;
  /** The unix socket path, or null on TCP. */
  readonly socketPath: string | null;
  /** What a client must send: `Authorization: Bearer <bearerToken>`. Give it only to the client. */
  readonly bearerToken: string;
  /** Number of live MCP sessions. */
  sessionCount(): number;
  /** Requests refused 401 so far (no or another token). */
  unauthorizedCount(): number;
  /** Close every session, then the listening socket. */
  close(): Promise<void>;
}

export const LOOPBACK_HOST = "127.0.0.1";

/** RFC 6750 §2.1 `b64token`, and long enough to be a secret. */
const TOKEN = /^[A-Za-z0-9\-._~+/]{32,}=*$/;

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, {
    "content-type": "application/json",
    ...(status === 413 ? { connection: "close" } : {}),
    ...(status === 401 ? { "www-authenticate": 'Bearer realm="grok-seat-mcp"' } : {}),
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
  const unix = options.socketPath;
  const token = options.bearerToken ?? randomBytes(32).toString("base64url");
  if (!TOKEN.test(token))
    throw new McpProjectionError(
      "MCP_HTTP_TOKEN_INVALID",
      "a bearer token needs at least 32 characters of [A-Za-z0-9-._~+/] (RFC 6750 b64token)",
    );
  const expected = digest(`Bearer ${token}`);
  let port = 0;
  let unauthorized = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host;
    const origin = req.headers.origin;
    if (unix === undefined) {
      if (host !== `${LOOPBACK_HOST}:${port}` && host !== `localhost:${port}`)
        return jsonRpcError(
          res,
          403,
          -32000,
          "Forbidden: the Host header must name this loopback endpoint",
        );
      if (
        origin !== undefined &&
        origin !== `http://${LOOPBACK_HOST}:${port}` &&
        origin !== `http://localhost:${port}`
      )
        return jsonRpcError(res, 403, -32000, "Forbidden: cross-origin request");
    } else if (origin !== undefined)
      return jsonRpcError(res, 403, -32000, "Forbidden: cross-origin request");
    // Before the path, the body or a session is looked at: without the token nothing is revealed.
    if (!timingSafeEqual(digest(req.headers.authorization ?? ""), expected)) {
      unauthorized++;
      return jsonRpcError(res, 401, -32001, "Unauthorized: a bearer token is required");
    }
    if (new URL(req.url ?? "/", "http://localhost").pathname !== path)
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
    const listening = (): void => {
      server.off("error", reject);
      resolve();
    };
    if (unix === undefined) server.listen(options.port ?? 0, LOOPBACK_HOST, listening);
    else server.listen(unix, listening);
  });
  if (unix === undefined) {
    const address = server.address();
    if (address === null || typeof address === "string")
      throw new McpProjectionError("MCP_HTTP_LISTEN", "the HTTP server has no TCP address");
    port = (address satisfies AddressInfo).port;
  } else {
    try {
      chmodSync(unix, 0o600);
    } catch (cause) {
      server.close();
      throw new McpProjectionError("MCP_HTTP_LISTEN", `cannot make ${unix} private`, { cause });
    }
  }

  return {
    url: new URL(
      unix === undefined ? `http://${LOOPBACK_HOST}:${port}${path}` : `http://localhost${path}`,
    ),
    port,
    socketPath: unix ?? null,
    bearerToken: token,
    sessionCount: () => sessions.size,
    unauthorizedCount: () => unauthorized,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((t) => t.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
