// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The operator's MCP bank as a session sees it (issue 14), against a real MCP server from
 * test/sim/mcp-bank over loopback HTTP behind a bearer token:
 *
 * - `[mcp_servers.bank] url + headers = { Authorization = "Bearer ${VAR}" }` is expanded like
 *   the real loader (xai-grok-config loader.rs → shellexpand; an unset variable stays verbatim),
 *   connected with the official MCP SDK client at session init, its tools registered as
 *   `<server>__<tool>` under xai-grok-mcp servers.rs's naming rules, and listed by `x.ai/mcp/list`
 *   with `session.status` (extensions/mcp.rs build_mcp_status / handle_list);
 * - `x.ai/session/update_mcp_servers` replaces the live set and answers after the handshake
 *   (extensions/session_admin.rs); the next load replaces it again;
 * - a `[[sim:call]]` turn: tool_call, the owner's permission in the TUI (unless a `[permission]`
 *   rule allows `MCPTool(...)`), the call through MCP, tool_call_update with the MCP output, a
 *   reply carrying the result (session/acp_session_impl/tool_calls.rs, acp_conversion.rs), and
 *   tool errors surfaced like the real agent: an `isError` result, a JSON-RPC error, and the
 *   projecting proxy's refusal of invalid arguments;
 * - the `no-update-mcp` version preset answers -32601.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  type GrokHomeFixture,
  type GrokTui,
  grokHomeFixture,
  startGrokLeader,
  startGrokTui,
  waitFor,
} from "../../../helpers/grok-sim.js";
import { acpClient, withRunning } from "../../../helpers/grok-sim-clients.js";
import { startHttpProxy } from "../../../mcp/helpers.js";
import { type Behaviour, echoBehaviour, OperatorBank } from "../../mcp-bank/bank.js";
import { loadBankTools } from "../../mcp-bank/fixture.js";
import { type BankHttp, serveBankHttp } from "../../mcp-bank/http.js";
import { get, promptParams, RawClient, record } from "./raw.js";

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

type Msg = Record<string, unknown>;

/** Names a client can never call: not `<server>__<tool>`-valid, or app-only. */
const UNREGISTRABLE = [
  { name: "dotted.name", inputSchema: { type: "object" } },
  { name: "two__parts", inputSchema: { type: "object" } },
  { name: "app_only", inputSchema: { type: "object" }, _meta: { ui: { visibility: ["app"] } } },
];

/**
 * The fixture's tools whose inputSchema is a JSON object. rmcp's `Tool.input_schema` is an
 * `Arc<JsonObject>`, so a page listing a boolean schema (`anything_goes`, `refuse_all`) does not
 * deserialize and the whole server fails to initialize (tested below).
 */
function objectSchemaTools(): unknown[] {
  return loadBankTools().filter((t) => {
    const schema = get(t, "inputSchema");
    return typeof schema === "object" && schema !== null && !Array.isArray(schema);
  });
}

/** The bank's behaviour: echo, except two tools that fail in the two ways a call can fail. */
const behaviour: Behaviour = (call, extra) => {
  if (call.name === "flags")
    return { content: [{ type: "text", text: "refused: nothing is allowed" }], isError: true };
  if (call.name === "strict_point")
    throw new McpError(ErrorCode.InvalidParams, "x must be a number", { path: "/x" });
  return echoBehaviour(call, extra);
};

interface Bank {
  bank: OperatorBank;
  http: BankHttp;
  token: string;
}

async function startBank(withToken = true, tools = objectSchemaTools()): Promise<Bank> {
  const bank = new OperatorBank({ tools: [...tools, ...UNREGISTRABLE], behaviour });
  const token = randomBytes(16).toString("hex");
  const http = await serveBankHttp(withToken ? { bank, token } : { bank });
  return { bank, http, token };
}

function bankConfig(home: GrokHomeFixture, url: URL, extra = ""): void {
  home.writeConfig(
    `[mcp_servers.bank]\nurl = "${url.href}"\nheaders = { Authorization = "Bearer \${BANK_TOKEN}" }\n${extra}`,
  );
}

function toolNames(): string[] {
  return objectSchemaTools()
    .map((t) => String(get(t, "name")))
    .sort();
}

const client = (socketPath: string): Promise<RawClient> => acpClient(socketPath, "bank-test");

async function bankRow(c: RawClient, sessionId: string, settled = true): Promise<Msg | undefined> {
  return waitFor(
    "the bank's row to settle",
    async () => {
      const res = await c.request("_x.ai/mcp/list", { sessionId });
      const servers = get(res, "result", "result", "servers");
      const row = Array.isArray(servers)
        ? servers.find((s) => get(s, "name") === "bank")
        : undefined;
      if (!settled) return row ?? null;
      return row !== undefined && get(row, "session", "status") !== "initializing"
        ? row
        : undefined;
    },
    20_000,
  ).then((r) => (r === null ? undefined : record(r)));
}

const updatesOf = (c: RawClient, promptId: string): Msg[] =>
  c
    .acp()
    .filter(
      (m) => m.method === "session/update" && get(m, "params", "_meta", "promptId") === promptId,
    );

const replyOf = (c: RawClient, promptId: string): string =>
  updatesOf(c, promptId)
    .filter((m) => get(m, "params", "update", "sessionUpdate") === "agent_message_chunk")
    .map((m) => String(get(m, "params", "update", "content", "text")))
    .join("");

const toolUpdates = (c: RawClient, promptId: string): Msg[] =>
  updatesOf(c, promptId)
    .map((m) => record(get(m, "params", "update")))
    .filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");

/** A prompt's finished tool calls (the tool_call_update rows carrying a status). */
const finalsOf = (c: RawClient, promptId: string): Msg[] =>
  toolUpdates(c, promptId).filter(
    (u) => u.sessionUpdate === "tool_call_update" && u.status !== undefined,
  );

/** A prompt whose tool calls run without anyone being asked: the turn ends, no permission request. */
async function unaskedTurn(
  c: RawClient,
  sid: string,
  promptId: string,
  text: string,
): Promise<void> {
  const res = await c.request("session/prompt", promptParams(sid, text, { promptId }), 30_000);
  assert.is(get(res, "result", "stopReason"), "end_turn");
  assert.ok(!c.acp().some((m) => m.method === "session/request_permission"), "nobody was asked");
}

/** A new session on the leader, with optional `_meta` fields beside its id. */
async function newSession(
  c: RawClient,
  cwd: string,
  meta: Record<string, unknown> = {},
): Promise<string> {
  const sid = randomUUID();
  await c.request("session/new", { cwd, mcpServers: [], _meta: { sessionId: sid, ...meta } });
  return sid;
}

interface BankLeaderOptions {
  tools?: unknown[];
  /** Appended to the `[mcp_servers.bank]` config. */
  extra?: string;
  /** Leave BANK_TOKEN unset in the leader's env. */
  noToken?: boolean;
}

/** A bank and a fresh home whose config.toml names it; both removed after `body`. */
async function withBankHome(
  opts: BankLeaderOptions,
  body: (b: Bank, home: GrokHomeFixture) => Promise<void>,
): Promise<void> {
  const b = await startBank(true, opts.tools);
  const home = grokHomeFixture();
  try {
    bankConfig(home, b.http.url, opts.extra);
    await body(b, home);
  } finally {
    await b.http.close();
    home.remove();
  }
}

/** A bank, a home configured for it, a leader and a client; all torn down after `body`. */
async function withBankLeader(
  opts: BankLeaderOptions,
  body: (b: Bank, home: GrokHomeFixture, c: RawClient) => Promise<void>,
): Promise<void> {
  await withBankHome(opts, (b, home) => {
    const env = opts.noToken ? {} : { env: { BANK_TOKEN: b.token } };
    const start = startGrokLeader({ grokHome: home.dir, cwd: home.cwd, ...env });
    return withRunning(start, async (leader) => {
      const c = await client(leader.paths.socketPath);
      await body(b, home, c);
      c.destroy();
    });
  });
}

/** A bank, a TUI configured for it whose owner answers by hand, a client resumed on its session. */
async function withBankTui(
  body: (b: Bank, tui: GrokTui, c: RawClient) => Promise<void>,
): Promise<void> {
  await withBankHome({}, (b, home) => {
    const env = { BANK_TOKEN: b.token, GROK_SIM_OWNER: "manual" };
    return withRunning(startGrokTui({ grokHome: home.dir, cwd: home.cwd, env }), async (tui) => {
      await tui.sessionReady();
      const c = await client(tui.paths.socketPath);
      await c.request("session/resume", { sessionId: tui.sessionId, cwd: home.cwd });
      await body(b, tui, c);
      c.destroy();
    });
  });
}

test.before(async () => {
  await ensureGrokSim();
});

test("a config bank with a Bearer $VAR header: expanded in the TUI's env, connected, ready, tools as <server>__<tool>; the owner allows a call in the TUI and the reply carries the result", async () => {
  await withBankTui(async (b, tui, c) => {
    const row = await bankRow(c, tui.sessionId);
    assert.is(get(row, "url"), b.http.url.href);
    assert.is(get(row, "headers"), undefined, "the catalog never shows headers");
    assert.is(get(row, "session", "status"), "ready");
    const tools = list(get(row, "session", "tools")).map(record);
    assert.equal(
      tools.map((t) => t.name),
      toolNames(),
    );
    const echo = tools.find((t) => t.name === "echo");
    const fixtureEcho = loadBankTools().find((t) => get(t, "name") === "echo");
    assert.equal(echo, {
      name: "echo",
      description: get(fixtureEcho, "description"),
      enabled: true,
    });
    assert.ok(b.http.authorizations.length > 0);
    assert.ok(b.http.authorizations.every((a) => a === `Bearer ${b.token}`));

    c.sendPrompt(1, tui.sessionId, '[[sim:call]] bank__echo {"text":"héllo 🌍"}', {
      promptId: "P-call",
    });
    const req = await c.nextAcp((m) => m.method === "session/request_permission");
    assert.equal(get(req, "params", "toolCall", "rawInput"), {
      variant: "MCPTool",
      tool_name: "bank__echo",
      tool_input: { text: "héllo 🌍" },
    });
    assert.is(b.bank.calls.length, 0, "nothing reaches the bank before the owner answers");
    await tui.waitForScreen("Permission requested: bank__echo");
    await tui.typeIntoTui("y", { enter: false });
    const done = await c.nextAcp((m) => m.id === 1, 20_000);
    assert.is(get(done, "result", "stopReason"), "end_turn");
    assert.equal(
      b.bank.calls.map((call) => [call.name, call.argumentsJson]),
      [["echo", '{"text":"héllo 🌍"}']],
    );
    const updates = toolUpdates(c, "P-call");
    assert.equal(updates[0], {
      sessionUpdate: "tool_call",
      toolCallId: updates[0]?.toolCallId,
      title: "bank__echo",
      kind: "other",
      status: "pending",
      rawInput: { text: "héllo 🌍" },
    });
    const final = updates[updates.length - 1];
    assert.equal(final, {
      sessionUpdate: "tool_call_update",
      toolCallId: updates[0]?.toolCallId,
      status: "completed",
      rawOutput: {
        type: "MCP",
        tool_name: "echo",
        server_name: "bank",
        output: { OkayOutput: '{"text":"héllo 🌍"}' },
      },
    });
    assert.ok(replyOf(c, "P-call").includes('The tool bank__echo returned: {"text":"héllo 🌍"}'));
  });
});

test("the owner denies in the TUI: the call never reaches the bank and the tool fails", async () => {
  await withBankTui(async (b, tui, c) => {
    await bankRow(c, tui.sessionId);
    c.sendPrompt(2, tui.sessionId, '[[sim:call]] bank__echo {"n":1}', { promptId: "P-deny" });
    await tui.waitForScreen("Permission requested: bank__echo");
    await tui.typeIntoTui("n", { enter: false });
    await c.nextAcp((m) => m.id === 2, 20_000);
    assert.is(b.bank.calls.length, 0);
    const final = toolUpdates(c, "P-deny").pop();
    assert.is(final?.status, "failed");
    assert.equal(final?.content, [
      {
        type: "content",
        content: { type: "text", text: "The user rejected the permission for tool `bank__echo`" },
      },
    ]);
  });
});

test("a bank listing a tool whose inputSchema is not a JSON object fails to initialize: unavailable", async () => {
  await withBankLeader({ tools: loadBankTools() }, async (_b, home, c) => {
    const sid = randomUUID();
    await c.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: sid } });
    assert.equal(get(await bankRow(c, sid), "session"), { enabled: true, status: "unavailable" });
  });
});

test("without the variable the header keeps the reference verbatim, the bank answers 401 and the server is unavailable", async () => {
  await withBankLeader({ noToken: true }, async (b, home, c) => {
    const sid = randomUUID();
    await c.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: sid } });
    const row = await bankRow(c, sid);
    assert.equal(get(row, "session"), { enabled: true, status: "unavailable" });
    assert.ok(b.http.authorizations.includes(`Bearer \${BANK_TOKEN}`));
  });
});

test('[permission] allow = ["MCPTool(bank__*)"] runs calls without asking; an isError result and a JSON-RPC error surface as failed tool calls', async () => {
  const extra = '\n[permission]\nallow = ["MCPTool(bank__*)"]\n';
  await withBankLeader({ extra }, async (b, home, c) => {
    const sid = randomUUID();
    await c.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: sid } });
    await bankRow(c, sid);
    const text =
      '[[sim:call]] bank__report {"a":1}\n[[sim:call]] bank__flags {}\n[[sim:call]] bank__strict_point {"x":"no"}';
    await unaskedTurn(c, sid, "P-auto", text);
    assert.equal(
      b.bank.calls.map((call) => call.name),
      ["report", "flags", "strict_point"],
    );
    const finals = finalsOf(c, "P-auto");
    assert.equal(
      finals.map((u) => u.status),
      ["completed", "failed", "failed"],
    );
    assert.equal(get(finals[1], "rawOutput"), {
      type: "MCP",
      tool_name: "flags",
      server_name: "bank",
      output: { Error: "refused: nothing is allowed" },
      is_error: true,
    });
    // rmcp's display of the JSON-RPC error the bank sent (the SDK server put its own
    // "MCP error -32602: " prefix into the wire message).
    const sent = String(get(JSON.parse(b.bank.calls[2]?.errorJson ?? "{}"), "message"));
    assert.ok(sent.endsWith("x must be a number"), sent);
    const rpc = `Mcp error: -32602: ${sent}`;
    assert.equal(get(finals[2], "rawOutput"), {
      error: "tool_execution_failed",
      message: `${rpc}({"path":"/x"})`,
    });
    assert.equal(get(finals[2], "content"), [
      {
        type: "content",
        content: {
          type: "text",
          text: `Tool \`bank__strict_point\` failed: ${rpc}({"path":"/x"})`,
        },
      },
    ]);
    const reply = replyOf(c, "P-auto");
    assert.ok(
      reply.includes("The tool bank__flags returned an error: refused: nothing is allowed"),
    );
    assert.ok(reply.includes("x must be a number"));
  });
});

test("in yolo mode MCP calls run without asking anyone, but a deny rule still refuses one", async () => {
  const extra = '\n[permission]\ndeny = ["MCPTool(bank__flags)"]\n';
  await withBankLeader({ extra }, async (b, home, c) => {
    const sid = randomUUID();
    await c.request("session/new", {
      cwd: home.cwd,
      mcpServers: [],
      _meta: { sessionId: sid, yoloMode: true },
    });
    await bankRow(c, sid);
    const text = '[[sim:call]] bank__echo {"n":1}\n[[sim:call]] bank__flags {}';
    await unaskedTurn(c, sid, "P-yolo", text);
    assert.equal(
      b.bank.calls.map((call) => call.name),
      ["echo"],
    );
    const finals = finalsOf(c, "P-yolo");
    assert.equal(
      finals.map((u) => u.status),
      ["completed", "failed"],
    );
    assert.equal(get(finals[1], "content"), [
      {
        type: "content",
        content: {
          type: "text",
          text: "Tool `bank__flags` was not executed: denied by a permission rule",
        },
      },
    ]);
  });
});

/** The proxy behind its bearer token, taken from PROXY_TOKEN (the leader gets it the same way). */
const PROXY_TOKEN = randomBytes(24).toString("hex");

const startProxy = (upstream: URL) => startHttpProxy(upstream.href, { PROXY_TOKEN });

test("through the projecting proxy: invalid arguments are refused there and come back as the tool's error result; valid ones reach the bank", async () => {
  const b = await startBank(false);
  const proxy = await startProxy(b.http.url);
  const home = grokHomeFixture({ mcpServers: [] });
  home.writeConfig(
    `[mcp_servers.bank]\nurl = "${proxy.url.href}"\nheaders = { Authorization = "Bearer \${PROXY_TOKEN}" }\n\n[permission]\nallow = ["MCPTool(bank__*)"]\n`,
  );
  const leader = await startGrokLeader({
    grokHome: home.dir,
    cwd: home.cwd,
    env: { PROXY_TOKEN },
  });
  try {
    const c = await client(leader.paths.socketPath);
    const sid = await newSession(c, home.cwd);
    const row = await bankRow(c, sid);
    assert.is(get(row, "session", "status"), "ready");
    const text =
      '[[sim:call]] bank__shape_edit {"kind":"circle","r":-1}\n[[sim:call]] bank__shape_edit {"kind":"circle","r":2}';
    await c.request("session/prompt", promptParams(sid, text, { promptId: "P-proxy" }), 30_000);
    const finals = finalsOf(c, "P-proxy");
    assert.equal(
      finals.map((u) => u.status),
      ["failed", "completed"],
    );
    const refusal = get(finals[0], "rawOutput", "output", "Error");
    assert.is(typeof refusal, "string");
    assert.ok(String(refusal).length > 0);
    assert.is(get(finals[0], "rawOutput", "is_error"), true);
    assert.equal(
      b.bank.calls.map((call) => call.argumentsJson),
      ['{"kind":"circle","r":2}'],
      "the refused call never reached the bank",
    );
    assert.ok(replyOf(c, "P-proxy").includes(`returned an error: ${String(refusal)}`));
    c.destroy();
  } finally {
    await leader.stop();
    proxy.child.kill("SIGTERM");
    await b.http.close();
    home.remove();
  }
});

test("x.ai/session/update_mcp_servers answers after the handshake, the server is live in memory only, and the next load drops it", async () => {
  const b = await startBank();
  const home = grokHomeFixture({ mcpServers: [] });
  const leader = await startGrokLeader({ grokHome: home.dir, cwd: home.cwd });
  try {
    const c = await client(leader.paths.socketPath);
    const sid = await newSession(c, home.cwd);
    const bank = {
      type: "http",
      name: "bank",
      url: b.http.url.href,
      headers: [{ name: "Authorization", value: `Bearer ${b.token}` }],
    };
    const res = await c.request("_x.ai/session/update_mcp_servers", {
      sessionId: sid,
      mcpServers: [bank],
    });
    assert.equal(res.result, { result: { ok: true } });
    // No polling: the answer came after the handshake, so the very next list shows it ready.
    const listed = await c.request("_x.ai/mcp/list", { sessionId: sid });
    const servers = list(get(listed, "result", "result", "servers")).map(record);
    const row = servers.find((s) => s.name === "bank");
    assert.is(get(row, "session", "status"), "ready");
    assert.ok(list(get(row, "session", "tools")).length > 0);
    const unknown = await c.request("_x.ai/session/update_mcp_servers", {
      sessionId: randomUUID(),
      mcpServers: [],
    });
    assert.equal(unknown.error, {
      code: -32602,
      message: "Invalid params",
      data: "unknown session id",
    });
    // The TUI's next load replaces the set with the config plus its own list: gone.
    await c.request("session/load", { sessionId: sid, cwd: home.cwd, mcpServers: [] });
    assert.is(await bankRow(c, sid, false), undefined);
    c.destroy();
  } finally {
    await leader.stop();
    await b.http.close();
    home.remove();
  }
});

test("the no-update-mcp version preset answers -32601 for x.ai/session/update_mcp_servers", async () => {
  const home = grokHomeFixture({ mcpServers: [] });
  const leader = await startGrokLeader({
    grokHome: home.dir,
    cwd: home.cwd,
    env: { GROK_SIM_VERSION_PRESET: "no-update-mcp" },
  });
  try {
    const c = await RawClient.open(leader.paths.socketPath);
    await c.register("bank-test");
    const init = await c.request("initialize", { protocolVersion: 1 });
    assert.is(get(init, "result", "_meta", "agentVersion"), "0.1.200");
    const sid = await newSession(c, home.cwd);
    const res = await c.request("_x.ai/session/update_mcp_servers", {
      sessionId: sid,
      mcpServers: [],
    });
    assert.equal(res.error, {
      code: -32601,
      message: "Method not found",
      data: "unknown ACP extension method: x.ai/session/update_mcp_servers",
    });
    const list = await c.request("_x.ai/skills/list", { cwd: home.cwd });
    assert.ok(list.result !== undefined, "skills/list is still there in this preset");
    c.destroy();
  } finally {
    await leader.stop();
    home.remove();
  }
});

test.run();
