/**
 * The operator bank over streamable HTTP on 127.0.0.1, optionally behind a bearer token: every
 * request must carry `Authorization: Bearer <token>` or gets 401 with `WWW-Authenticate: Bearer`
 * (RFC 6750) before the MCP layer sees it. One SDK `StreamableHTTPServerTransport` (stateful, a
 * session id per client) and one bank connection per MCP session. The token is compared in
 * constant time. Each request's Authorization header is recorded (`authorizations`), so a test
 * can check what the client sent.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { OperatorBank } from "./bank.js";

export interface BankHttp {
  readonly url: URL;
  /** The Authorization header of every request received (undefined when absent). */
  readonly authorizations: (string | undefined)[];
  close(): Promise<void>;
}

function reject(res: ServerResponse, status: number, message: string, auth = false): void {
  res.writeHead(status, {
    "content-type": "application/json",
    ...(auth ? { "www-authenticate": 'Bearer realm="operator-bank"' } : {}),
  });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

function bearerOk(header: string | undefined, token: string): boolean {
  const expected = Buffer.from(`Bearer ${token}`);
  const got = Buffer.from(header ?? "");
  return got.length === expected.length && timingSafeEqual(got, expected);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

export async function serveBankHttp(opts: {
  bank: OperatorBank;
  token?: string;
  port?: number;
}): Promise<BankHttp> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: (string | undefined)[] = [];
  let port = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.host !== `127.0.0.1:${port}`) return reject(res, 403, "Forbidden host");
    authorizations.push(req.headers.authorization);
    if (opts.token !== undefined && !bearerOk(req.headers.authorization, opts.token))
      return reject(res, 401, "Unauthorized", true);
    if (new URL(req.url ?? "/", `http://127.0.0.1:${port}`).pathname !== "/mcp")
      return reject(res, 404, "Not found");
    const sid = req.headers["mcp-session-id"];
    if (typeof sid === "string") {
      const t = sessions.get(sid);
      if (t === undefined) return reject(res, 404, "Session not found");
      return t.handleRequest(req, res);
    }
    if (req.method !== "POST") return reject(res, 400, "Mcp-Session-Id header is required");
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      return reject(res, 400, "Parse error");
    }
    if (!isInitializeRequest(body)) return reject(res, 400, "the first request must be initialize");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await opts.bank.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) reject(res, 500, `Internal error: ${String(err)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  port = address.port;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    authorizations,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((t) => t.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
