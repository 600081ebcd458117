import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { z } from "zod";
import { fetchRawTools, upstreamTransport } from "../../lib/mcp/upstream.js";
import { OperatorBank } from "../sim/mcp-bank/bank.js";
import { loadBankTools } from "../sim/mcp-bank/fixture.js";
import { bankReady } from "../sim/mcp-bank/log.js";
import { alive, isGrokSeatErrorCode, waitFor } from "./helpers.js";

const BANK_MAIN = fileURLToPath(new URL("../sim/mcp-bank/main.ts", import.meta.url));

async function clientFor(listResult: (params: unknown) => unknown): Promise<Client> {
  const server = new Server({ name: "pages", version: "1" }, { capabilities: { tools: {} } });
  Protocol.prototype.setRequestHandler.call(
    server,
    z.object({ method: z.literal("tools/list"), params: z.unknown().optional() }),
    (request) => listResult(request.params),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(a);
  return client;
}

test("all pages are fetched, in order, exactly as sent", async () => {
  for (const pageSize of [1, 3, 20, 50]) {
    const bank = new OperatorBank({ tools: loadBankTools(), pageSize });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await bank.connect(b);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(a);
    const tools = await fetchRawTools(client);
    assert.is(JSON.stringify(tools), JSON.stringify(bank.tools), `page size ${pageSize}`);
    await client.close();
  }
});

test("a repeated cursor, too many pages and a malformed page are MCP_UPSTREAM_BAD_LIST", async () => {
  const loop = await clientFor(() => ({ tools: [{ name: "a" }], nextCursor: "same" }));
  let err: unknown;
  await fetchRawTools(loop).catch((e: unknown) => {
    err = e;
  });
  assert.ok(isGrokSeatErrorCode(err, "MCP_UPSTREAM_BAD_LIST"));
  await loop.close();

  let n = 0;
  const endless = await clientFor(() => ({ tools: [], nextCursor: `c${n++}` }));
  err = undefined;
  await fetchRawTools(endless, { maxPages: 5 }).catch((e: unknown) => {
    err = e;
  });
  assert.ok(isGrokSeatErrorCode(err, "MCP_UPSTREAM_BAD_LIST"));
  assert.is(n, 5);
  await endless.close();

  const malformed = await clientFor(() => ({ items: [] }));
  err = undefined;
  await fetchRawTools(malformed).catch((e: unknown) => {
    err = e;
  });
  assert.ok(isGrokSeatErrorCode(err, "MCP_UPSTREAM_BAD_LIST"));
  await malformed.close();
});

test("a command upstream: a real child on stdio, gone after close", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-upstream-"));
  try {
    const log = join(dir, "bank.jsonl");
    const client = new Client({ name: "t", version: "1" });
    await client.connect(
      upstreamTransport({
        kind: "command",
        command: process.execPath,
        args: ["--import", "tsx", BANK_MAIN, "--log", log, "--page-size", "7"],
      }),
    );
    const tools = await fetchRawTools(client);
    assert.is(tools.length, loadBankTools().length);
    const ready = await waitFor("bank ready line", () => bankReady(log));
    assert.ok(alive(ready.pid));
    await client.close();
    await waitFor("bank exit", () => (alive(ready.pid) ? undefined : true));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
