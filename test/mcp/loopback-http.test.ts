// @platform linux: reads /proc as its independent oracle
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveLoopbackHttp } from "../../lib/mcp/loopback-http.js";
import { OperatorBank } from "../sim/mcp-bank/bank.js";
import { loadBankTools } from "../sim/mcp-bank/fixture.js";
import { listenersOnPort, waitFor } from "./helpers.js";

function rawPost(
  port: number,
  headers: Record<string, string>,
  body: string,
  path = "/mcp",
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
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
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
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
  return { bank, http };
}

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
    const transport = new StreamableHTTPClientTransport(http.url);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(transport);
    assert.is(http.sessionCount(), 1);
    const second = new Client({ name: "t2", version: "1" });
    await second.connect(new StreamableHTTPClientTransport(http.url));
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
  const { http } = await bankServer();
  try {
    const host = `127.0.0.1:${http.port}`;
    assert.is(await rawPost(http.port, { host: `evil.example:${http.port}` }, INIT), 403);
    assert.is(await rawPost(http.port, { host: "127.0.0.1:1" }, INIT), 403);
    assert.is(await rawPost(http.port, { host, origin: "https://evil.example" }, INIT), 403);
    assert.is(await rawPost(http.port, { host }, INIT, "/other"), 404);
    assert.is(await rawPost(http.port, { host, "mcp-session-id": "nope" }, INIT), 404);
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    assert.is(await rawPost(http.port, { host }, list), 400);
    assert.is(await rawPost(http.port, { host }, "{not json"), 400);
    assert.is(http.sessionCount(), 0);
    // The same initialize from the loopback origin is accepted.
    assert.is(await rawPost(http.port, { host, origin: `http://${host}` }, INIT), 200);
    assert.is(await rawPost(http.port, { host: `localhost:${http.port}` }, INIT), 200);
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
    assert.is(await rawPost(http.port, { host: `127.0.0.1:${http.port}` }, big), 413);
  } finally {
    await http.close();
  }
});

test.run();
