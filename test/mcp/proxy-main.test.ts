// @platform linux: reads /proc as its independent oracle
/**
 * The regression guard across real processes (ADR 0224 (docs/design/adr-0224.md), "root-schema regression"): the
 * official SDK client's listTools() fails on the raw operator bank and succeeds through the
 * projecting proxy, over stdio (proxy-main spawned as a child, the bank as its child) and over
 * streamable HTTP on loopback (bank and proxy both children). The bank's JSON-lines log, written
 * at its transport, proves what reached upstream; /proc/net/tcp proves the loopback bind.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ErrorCode,
  McpError,
  ResultSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { z } from "zod";
import { projectTools } from "../../lib/mcp/project.js";
import { ERROR_META } from "../../lib/mcp/proxy.js";
import { loadBankTools, loadCallCases, NEVER_OBJECT_TOOLS } from "../sim/mcp-bank/fixture.js";
import { bankCalls, bankReady, bankToolChanges } from "../sim/mcp-bank/log.js";
import {
  alive,
  canonical,
  listenersOnPort,
  rawListFails,
  startHttpProxy,
  undoRewrites,
  waitFor,
} from "./helpers.js";

const PROXY_MAIN = fileURLToPath(new URL("../../lib/mcp/proxy-main.ts", import.meta.url));
const BANK_MAIN = fileURLToPath(new URL("../sim/mcp-bank/main.ts", import.meta.url));
const TSX = ["--import", "tsx"];

const Refusal = v.object({
  isError: v.literal(true),
  content: v.tuple([v.object({ type: v.literal("text"), text: v.string() })]),
  _meta: v.object({ [ERROR_META]: v.object({ code: v.literal("MCP_INVALID_ARGUMENTS") }) }),
});

interface Ctx {
  dir: string;
  log: string;
  client: Client;
  stderr: () => string;
  children: ChildProcess[];
  proxyPid: number | undefined;
}

function emptyCtx(): Ctx {
  return {
    dir: "",
    log: "",
    client: new Client({ name: "downstream", version: "1.0.0" }),
    stderr: () => "",
    children: [],
    proxyPid: undefined,
  };
}

/** Every claim about the projected list, the calls and list_changed, over any transport. */
async function checkProjectedList(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const expected = projectTools(loadBankTools()).tools;
  assert.equal(
    tools.map((t) => t.name),
    expected.map((t) => t.name),
  );
  const raw = await client.request({ method: "tools/list" }, z.unknown());
  assert.ok(v.is(v.object({ tools: v.array(v.looseObject({ inputSchema: v.unknown() })) }), raw));
  if (!v.is(v.object({ tools: v.array(v.looseObject({ inputSchema: v.unknown() })) }), raw)) return;
  for (const [i, p] of expected.entries()) {
    const wire = raw.tools[i];
    assert.is(canonical(wire), canonical(p.listed), p.name);
    assert.is(
      canonical(undoRewrites(wire?.inputSchema, p.rewrites.inputSchema)),
      canonical(p.original.inputSchema),
      p.name,
    );
  }
}

async function checkCalls(client: Client, log: string): Promise<void> {
  const before = bankCalls(log, "received").length;
  let forwarded = 0;
  for (const c of loadCallCases()) {
    const result = await client.request(
      { method: "tools/call", params: { name: c.tool, arguments: c.arguments } },
      z.unknown(),
    );
    if (!c.valid) {
      assert.ok(v.is(Refusal, result), `${c.tool}: ${c.note}`);
      continue;
    }
    forwarded++;
    const answered = await waitFor("the bank's answer", () => {
      const calls = bankCalls(log, "answered");
      return calls.length >= before + forwarded ? calls[calls.length - 1] : undefined;
    });
    assert.is(answered.name, c.tool);
    assert.is(answered.argumentsJson, JSON.stringify(c.arguments), `${c.tool}: ${c.note}`);
    // Exactly what a client connected straight to the bank would get: the SDK's own JSON-RPC
    // parse (ResultSchema, a zod looseObject) moves a result's `_meta` to the front on every
    // hop, with or without the proxy; everything else keeps its bytes and order.
    const direct = ResultSchema.parse(JSON.parse(answered.resultJson ?? "null"));
    assert.is(JSON.stringify(result), JSON.stringify(direct), `${c.tool}: ${c.note}`);
    assert.is(canonical(result), canonical(JSON.parse(answered.resultJson ?? "null")), c.note);
  }
  // Nothing refused ever reached upstream: the log holds exactly the valid calls, in order.
  const received = bankCalls(log, "received").slice(before);
  assert.equal(
    received.map((r) => r.argumentsJson),
    loadCallCases()
      .filter((c) => c.valid)
      .map((c) => JSON.stringify(c.arguments)),
  );
  let err: unknown;
  await client.callTool({ name: NEVER_OBJECT_TOOLS[0], arguments: {} }).catch((e: unknown) => {
    err = e;
  });
  assert.ok(err instanceof McpError && err.code === ErrorCode.InvalidParams);
}

async function checkListChanged(client: Client, log: string): Promise<void> {
  let announced = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    announced++;
  });
  const ready = bankReady(log);
  assert.ok(ready);
  if (!ready) return;
  process.kill(ready.pid, "SIGUSR2");
  await waitFor("bank tools changed", () => (bankToolChanges(log) > 0 ? true : undefined));
  await waitFor("downstream list_changed", () => (announced > 0 ? true : undefined));
  const names = await waitFor("the new list", async () => {
    const n = (await client.listTools()).tools.map((t) => t.name);
    return n.includes("late_union") ? n : undefined;
  });
  assert.not.ok(names.includes("echo"));
  const refused = await client.request(
    { method: "tools/call", params: { name: "late_union", arguments: { on: "yes" } } },
    z.unknown(),
  );
  assert.ok(v.is(Refusal, refused));
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await exited;
}

// ── stdio ───────────────────────────────────────────────────────────────────────────────
const stdio = suite<Ctx>("stdio", emptyCtx());

stdio.before(async (ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), "mcp-proxy-stdio-"));
  ctx.log = join(ctx.dir, "bank.jsonl");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...TSX,
      PROXY_MAIN,
      "--",
      process.execPath,
      ...TSX,
      BANK_MAIN,
      "--log",
      ctx.log,
      "--page-size",
      "3",
    ],
    stderr: "pipe",
  });
  let text = "";
  transport.stderr?.on("data", (c: Buffer) => {
    text += c.toString("utf8");
  });
  ctx.stderr = () => text;
  await ctx.client.connect(transport);
  ctx.proxyPid = transport.pid ?? undefined;
});

stdio.after(async (ctx) => {
  await ctx.client.close().catch(() => {});
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

stdio(
  "the official client's listTools() fails on the raw bank (a real stdio child)",
  async (ctx) => {
    const direct = new Client({ name: "direct", version: "1.0.0" });
    await direct.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...TSX, BANK_MAIN, "--log", join(ctx.dir, "raw.jsonl")],
        stderr: "ignore",
      }),
    );
    try {
      await rawListFails(direct, loadBankTools().length);
    } finally {
      await direct.close();
    }
  },
);

stdio(
  "through proxy-main it succeeds; every schema equals its original but for the rewrites",
  async (ctx) => {
    await checkProjectedList(ctx.client);
    for (const name of NEVER_OBJECT_TOOLS)
      await waitFor(`stderr names ${name}`, () =>
        ctx.stderr().includes(`not listed: MCP_SCHEMA_NEVER_OBJECT tool "${name}"`)
          ? true
          : undefined,
      );
  },
);

stdio(
  "calls: refusals never reach the bank; valid calls and results are byte-identical",
  async (ctx) => {
    await checkCalls(ctx.client, ctx.log);
  },
);

stdio("list_changed from the bank (SIGUSR2) reaches the downstream client", async (ctx) => {
  await checkListChanged(ctx.client, ctx.log);
});

stdio("closing the client ends the proxy and, through it, the bank", async (ctx) => {
  const bank = bankReady(ctx.log);
  assert.ok(bank && ctx.proxyPid !== undefined);
  await ctx.client.close();
  const proxyPid = ctx.proxyPid;
  if (proxyPid !== undefined)
    await waitFor("proxy exit", () => (alive(proxyPid) ? undefined : true));
  if (bank) await waitFor("bank exit", () => (alive(bank.pid) ? undefined : true));
});

stdio.run();

// ── streamable HTTP on loopback ─────────────────────────────────────────────────────────
const http = suite<Ctx & { proxyUrl: URL; bankUrl: URL; token: string }>("http", {
  ...emptyCtx(),
  proxyUrl: new URL("http://127.0.0.1/"),
  bankUrl: new URL("http://127.0.0.1/"),
  token: "",
});

http.before(async (ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), "mcp-proxy-http-"));
  ctx.log = join(ctx.dir, "bank.jsonl");
  const bank = spawn(process.execPath, [...TSX, BANK_MAIN, "--http", "0", "--log", ctx.log], {
    stdio: ["ignore", "ignore", "ignore"],
  });
  ctx.children.push(bank);
  const ready = await waitFor("bank listening", () => bankReady(ctx.log));
  assert.ok(ready.url);
  ctx.bankUrl = new URL(ready.url ?? "");
  const proxy = spawn(
    process.execPath,
    [...TSX, PROXY_MAIN, "--http", "0", "--upstream-url", ctx.bankUrl.href],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  ctx.children.push(proxy);
  ctx.proxyPid = proxy.pid;
  let text = "";
  proxy.stderr?.on("data", (c: Buffer) => {
    text += c.toString("utf8");
  });
  ctx.stderr = () => text;
  const url = await waitFor("proxy listening", () => /listening (http:\/\/\S+)/.exec(text)?.[1]);
  ctx.proxyUrl = new URL(url);
  // No --bearer-env: the proxy made a token and printed it once on stderr, for its configurer.
  ctx.token = await waitFor("proxy token", () => /mcp-projection: bearer (\S+)/.exec(text)?.[1]);
  await ctx.client.connect(
    new StreamableHTTPClientTransport(ctx.proxyUrl, {
      requestInit: { headers: { Authorization: `Bearer ${ctx.token}` } },
    }),
  );
});

http.after(async (ctx) => {
  await ctx.client.close().catch(() => {});
  for (const child of ctx.children.reverse()) await stop(child);
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

http("the official client's listTools() fails on the raw bank over HTTP", async (ctx) => {
  const direct = new Client({ name: "direct", version: "1.0.0" });
  await direct.connect(new StreamableHTTPClientTransport(ctx.bankUrl));
  try {
    await rawListFails(direct, loadBankTools().length);
  } finally {
    await direct.close();
  }
});

http("through the proxy on loopback it succeeds; schemas equal their originals", async (ctx) => {
  await checkProjectedList(ctx.client);
  const listeners = listenersOnPort(Number(ctx.proxyUrl.port));
  if (listeners === undefined)
    console.log("SKIP: no /proc/net/tcp; loopback bind not checked by the kernel");
  else assert.equal(listeners, ["127.0.0.1"]);
});

http(
  "calls: refusals never reach the bank; valid calls and results are byte-identical",
  async (ctx) => {
    await checkCalls(ctx.client, ctx.log);
  },
);

http("list_changed from the bank reaches the downstream HTTP session", async (ctx) => {
  await checkListChanged(ctx.client, ctx.log);
});

http(
  "a request without the printed token is refused 401 and never reaches the bank",
  async (ctx) => {
    const before = bankCalls(ctx.log, "received").length;
    for (const authorization of [undefined, "Bearer x", `Bearer ${ctx.token.slice(1)}`]) {
      const res = await fetch(ctx.proxyUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "x" } },
        }),
      });
      assert.is(res.status, 401);
    }
    assert.is(bankCalls(ctx.log, "received").length, before, "nothing reached the bank");
    const unauthenticated = new Client({ name: "stranger", version: "1.0.0" });
    try {
      await unauthenticated.connect(new StreamableHTTPClientTransport(ctx.proxyUrl));
      assert.unreachable("connected without the token");
    } catch (err) {
      assert.match(String(err), /401|Unauthorized/);
    }
  },
);

http("SIGTERM ends the proxy cleanly (exit 0)", async (ctx) => {
  const proxy = ctx.children[1];
  assert.ok(proxy);
  if (!proxy) return;
  await ctx.client.close();
  const code = new Promise<number | null>((resolve) => proxy.once("exit", (c) => resolve(c)));
  proxy.kill("SIGTERM");
  assert.is(await code, 0);
});

http.run();

// ── the upstream goes away ──────────────────────────────────────────────────────────────
const gone = suite("upstream exit");

gone("when the spawned bank dies, proxy-main exits 1 instead of serving a dead list", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-proxy-gone-"));
  const log = join(dir, "bank.jsonl");
  const proxy = spawn(
    process.execPath,
    [...TSX, PROXY_MAIN, "--", process.execPath, ...TSX, BANK_MAIN, "--log", log],
    { stdio: ["pipe", "ignore", "pipe"] },
  );
  let text = "";
  proxy.stderr?.on("data", (c: Buffer) => {
    text += c.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => proxy.once("exit", (c) => resolve(c)));
  try {
    await waitFor("proxy ready", () => (/tools listed/.test(text) ? true : undefined));
    const bank = await waitFor("bank ready", () => bankReady(log));
    process.kill(bank.pid, "SIGKILL");
    assert.is(await exited, 1);
    assert.ok(text.includes("upstream closed"));
  } finally {
    await stop(proxy);
    rmSync(dir, { recursive: true, force: true });
  }
});

gone(
  "--bearer-env and --upstream-header-env: the token comes from the environment and is never printed; the upstream's own auth header reaches it",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-proxy-env-"));
    const log = join(dir, "bank.jsonl");
    const bankToken = "b".repeat(40);
    const proxyToken = "p".repeat(40);
    const bank = spawn(
      process.execPath,
      [...TSX, BANK_MAIN, "--http", "0", "--bearer-env", "BANK_TOKEN", "--log", log],
      { stdio: ["ignore", "ignore", "ignore"], env: { ...process.env, BANK_TOKEN: bankToken } },
    );
    let proxy: ChildProcess | undefined;
    const client = new Client({ name: "downstream", version: "1.0.0" });
    try {
      const ready = await waitFor("bank listening", () => bankReady(log));
      const started = await startHttpProxy(
        ready.url ?? "",
        { PROXY_TOKEN: proxyToken, BANK_AUTH: `Bearer ${bankToken}` },
        ["--upstream-header-env", "Authorization=BANK_AUTH"],
      );
      proxy = started.child;
      const text = started.stderr();
      assert.not.match(text, /bearer/, "no token printed");
      assert.not.ok(text.includes(proxyToken) || text.includes(bankToken));
      await client.connect(
        new StreamableHTTPClientTransport(started.url, {
          requestInit: { headers: { Authorization: `Bearer ${proxyToken}` } },
        }),
      );
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0, "listed through the bank's own bearer token");
    } finally {
      await client.close().catch(() => {});
      if (proxy !== undefined) await stop(proxy);
      await stop(bank);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

gone("a usage error exits 2 and prints the usage", async () => {
  const proxy = spawn(process.execPath, [...TSX, PROXY_MAIN, "--http", "99999", "--", "true"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let text = "";
  proxy.stderr?.on("data", (c: Buffer) => {
    text += c.toString("utf8");
  });
  const code = await new Promise<number | null>((resolve) => proxy.once("exit", (c) => resolve(c)));
  assert.is(code, 2);
  assert.ok(text.includes("usage: grok-seat-mcp-proxy"));
});

gone.run();
