// @platform linux: reads /proc as its independent oracle
/**
 * The loopback MCP endpoint: 127.0.0.1 only (the kernel's listener table), sessions with the
 * official client, browser attacks refused (Host, Origin), and a bearer token per instance
 * (issue 16 item 3): a request without it, or with another one, is refused 401 before it reaches
 * a session, as our uid and as another user (uid 65534 through setpriv); the operator bank's own
 * call log is the oracle of what reached upstream.
 */
import { execFile } from "node:child_process";
import { lstatSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveLoopbackHttp } from "../../lib/mcp/loopback-http.js";
import { OperatorBank } from "../sim/mcp-bank/bank.js";
import { loadBankTools } from "../sim/mcp-bank/fixture.js";
import { isGrokSeatErrorCode, listenersOnPort, waitFor } from "./helpers.js";

interface Reply {
  status: number;
  wwwAuthenticate: string | undefined;
}

function rawRequest(
  where: { port: number } | { socketPath: string },
  headers: Record<string, string>,
  body: string,
  path = "/mcp",
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...("port" in where ? { host: "127.0.0.1", port: where.port } : where),
        path,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        res.resume();
        const h = res.headers["www-authenticate"];
        resolve({ status: res.statusCode ?? 0, wwwAuthenticate: h });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function rawPost(
  port: number,
  headers: Record<string, string>,
  body: string,
  path = "/mcp",
): Promise<number> {
  return (await rawRequest({ port }, headers, body, path)).status;
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
});

async function bankServer() {
  const bank = new OperatorBank({ tools: loadBankTools() });
  const http = await serveLoopbackHttp({
    connect: async (t) => {
      await bank.connect(t);
    },
  });
  return { bank, http, auth: { authorization: `Bearer ${http.bearerToken}` } };
}

/** The official client over HTTP, presenting `token`. */
function authed(url: URL, token: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
}

const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "hi" } },
});

test("binds 127.0.0.1 only (the kernel's listener table is the oracle)", async () => {
  const { http } = await bankServer();
  try {
    assert.is(http.url.hostname, "127.0.0.1");
    const listeners = listenersOnPort(http.port);
    if (listeners === undefined) {
      console.log("SKIP: no /proc/net/tcp on this platform; bind address checked via the URL only");
      return;
    }
    assert.equal(listeners, ["127.0.0.1"]);
  } finally {
    await http.close();
  }
  const after = listenersOnPort(http.port);
  if (after !== undefined) assert.equal(after, []);
});

test("sessions: the official client connects, lists raw tools, and its DELETE ends the session", async () => {
  const { http } = await bankServer();
  try {
    const transport = authed(http.url, http.bearerToken);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(transport);
    assert.is(http.sessionCount(), 1);
    const second = new Client({ name: "t2", version: "1" });
    await second.connect(authed(http.url, http.bearerToken));
    assert.is(http.sessionCount(), 2);
    await transport.terminateSession();
    await waitFor("session removed", () => (http.sessionCount() === 1 ? true : undefined));
    await client.close();
    await second.close();
  } finally {
    await http.close();
  }
  assert.is(http.sessionCount(), 0);
});

test("refused: foreign Host (DNS rebinding), foreign Origin, other paths, no session, bad JSON", async () => {
  const { http, auth } = await bankServer();
  try {
    const host = `127.0.0.1:${http.port}`;
    assert.is(await rawPost(http.port, { ...auth, host: `evil.example:${http.port}` }, INIT), 403);
    assert.is(await rawPost(http.port, { ...auth, host: "127.0.0.1:1" }, INIT), 403);
    assert.is(
      await rawPost(http.port, { ...auth, host, origin: "https://evil.example" }, INIT),
      403,
    );
    assert.is(await rawPost(http.port, { ...auth, host }, INIT, "/other"), 404);
    assert.is(await rawPost(http.port, { ...auth, host, "mcp-session-id": "nope" }, INIT), 404);
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    assert.is(await rawPost(http.port, { ...auth, host }, list), 400);
    assert.is(await rawPost(http.port, { ...auth, host }, "{not json"), 400);
    assert.is(http.sessionCount(), 0);
    // The same initialize from the loopback origin is accepted.
    assert.is(await rawPost(http.port, { ...auth, host, origin: `http://${host}` }, INIT), 200);
    assert.is(await rawPost(http.port, { ...auth, host: `localhost:${http.port}` }, INIT), 200);
    assert.is(http.sessionCount(), 2);
  } finally {
    await http.close();
  }
});

test("an oversized body is refused 413 before parsing", async () => {
  const bank = new OperatorBank({ tools: [] });
  const http = await serveLoopbackHttp({
    maxBodyBytes: 1024,
    connect: async (t) => {
      await bank.connect(t);
    },
  });
  try {
    const big = JSON.stringify({ pad: "x".repeat(4096) });
    const auth = { authorization: `Bearer ${http.bearerToken}` };
    assert.is(await rawPost(http.port, { ...auth, host: `127.0.0.1:${http.port}` }, big), 413);
  } finally {
    await http.close();
  }
});

const run = promisify(execFile);

/**
 * A request from a process running as uid 65534 (setpriv), asynchronously: the server answering
 * it runs in this very process.
 */
async function postAsNobody(
  port: number,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  const code = `
    const http = require("node:http");
    const req = http.request({ host: "127.0.0.1", port: ${port}, path: "/mcp", method: "POST", agent: false,
      headers: ${JSON.stringify({ "content-type": "application/json", accept: "application/json, text/event-stream", ...headers })} },
      (res) => { res.resume(); console.log(JSON.stringify({ uid: process.getuid(), status: res.statusCode })); process.exit(0); });
    req.on("error", (e) => { console.log(JSON.stringify({ error: String(e) })); });
    req.end(${JSON.stringify(body)});`;
  const r = await run(
    "setpriv",
    ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", code],
    { encoding: "utf8", timeout: 30_000 },
  );
  const out: unknown = JSON.parse(r.stdout.trim());
  assert.equal(Reflect.get(Object(out), "uid"), 65534, "ran as uid 65534");
  return Number(Reflect.get(Object(out), "status"));
}

test("a fresh random token per instance: no token or another one is refused 401 and never reaches the bank; the right one does", async () => {
  const { bank, http } = await bankServer();
  const other = await bankServer();
  try {
    assert.match(http.bearerToken, /^[A-Za-z0-9_-]{43}$/, "256 random bits, base64url");
    assert.is.not(http.bearerToken, other.http.bearerToken, "each instance has its own");
    // A live session, opened by the client that holds the token.
    const transport = authed(http.url, http.bearerToken);
    const client = new Client({ name: "owner", version: "1" });
    await client.connect(transport);
    const sid = transport.sessionId ?? "";
    assert.ok(sid !== "");
    const host = `127.0.0.1:${http.port}`;
    const session = { host, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" };
    const refusedWith = [
      {},
      { authorization: "Bearer" },
      { authorization: `Bearer ${other.http.bearerToken}` },
      { authorization: `Bearer ${http.bearerToken}x` },
      { authorization: `bearer ${http.bearerToken}` },
      { authorization: `Basic ${Buffer.from(`u:${http.bearerToken}`).toString("base64")}` },
    ];
    for (const auth of refusedWith) {
      const r = await rawRequest({ port: http.port }, { ...session, ...auth }, CALL);
      assert.is(r.status, 401, JSON.stringify(auth));
      assert.match(r.wwwAuthenticate ?? "", /^Bearer /);
    }
    // Another user of the machine, with the session id but not the token.
    assert.is(await postAsNobody(http.port, session, CALL), 401);
    assert.is(
      await postAsNobody(
        http.port,
        { ...session, authorization: `Bearer ${other.http.bearerToken}` },
        CALL,
      ),
      401,
    );
    // Even initialize is refused without it: no session is made.
    assert.is(await rawPost(http.port, { host }, INIT), 401);
    assert.is(http.sessionCount(), 1);
    assert.is(http.unauthorizedCount(), refusedWith.length + 3);
    assert.equal(bank.calls, [], "no refused request reached the bank");
    // The oracle can see a call: the same request with the token reaches it.
    const ok = await rawRequest(
      { port: http.port },
      { ...session, authorization: `Bearer ${http.bearerToken}` },
      CALL,
    );
    assert.is(ok.status, 200);
    assert.equal(
      bank.calls.map((c) => c.name),
      ["echo"],
    );
    await client.close();
  } finally {
    await http.close();
    await other.http.close();
  }
});

test("a caller's own token is used as given; a short or malformed one is refused before listening", async () => {
  const bank = new OperatorBank({ tools: [] });
  const connect = async (t: StreamableHTTPServerTransport): Promise<void> => {
    await bank.connect(t);
  };
  const token = "t".repeat(40);
  const http = await serveLoopbackHttp({ connect, bearerToken: token });
  try {
    assert.is(http.bearerToken, token);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(authed(http.url, token));
    await client.close();
  } finally {
    await http.close();
  }
  for (const bad of ["short", `${"a".repeat(40)} b`, `${"a".repeat(40)}\n`]) {
    try {
      await serveLoopbackHttp({ connect, bearerToken: bad });
      assert.unreachable("a bad token was accepted");
    } catch (err) {
      assert.ok(isGrokSeatErrorCode(err, "MCP_HTTP_TOKEN_INVALID"), String(err));
    }
  }
});

test("on a unix socket: the file is 0600, the token is still required, a browser Origin is refused", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-unix-"));
  const socketPath = join(dir, "mcp.sock");
  const bank = new OperatorBank({ tools: loadBankTools() });
  const http = await serveLoopbackHttp({
    socketPath,
    connect: async (t) => {
      await bank.connect(t);
    },
  });
  try {
    assert.is(http.socketPath, socketPath);
    const st = lstatSync(socketPath);
    assert.ok(st.isSocket());
    assert.is(st.mode & 0o777, 0o600);
    const where = { socketPath };
    const auth = { authorization: `Bearer ${http.bearerToken}` };
    assert.is((await rawRequest(where, { host: "localhost" }, INIT)).status, 401);
    assert.is(
      (await rawRequest(where, { ...auth, host: "localhost", origin: "http://localhost" }, INIT))
        .status,
      403,
    );
    assert.is((await rawRequest(where, { ...auth, host: "localhost" }, INIT)).status, 200);
    assert.is(http.sessionCount(), 1);
  } finally {
    await http.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
