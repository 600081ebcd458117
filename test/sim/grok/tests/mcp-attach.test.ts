// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * MCP servers across session/new, session/resume and session/load of a resident session
 * (agent_ops.rs resolve_mcp_servers → managed_mcp.rs merge_managed_mcp_servers_with_policy →
 * session_setup.rs attach_session → SessionCommand::UpdateMcpServers): the session always gets
 * config.toml's servers re-read from disk, with the client's entries only adding or replacing by
 * key (URL for http, name for stdio), minus disabled names. So `[]` or an omitted resume list keep
 * the owner's configured servers; `session/load` without `mcpServers` is invalid params. Observed
 * through `x.ai/mcp/list` over a raw socket, the TUI's own session included.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  type GrokHomeFixture,
  type GrokLeader,
  waitFor,
} from "../../../helpers/grok-sim.js";
import { acpClient, withSimLeader, withSimTui } from "../../../helpers/grok-sim-clients.js";
import { get, type RawClient } from "./raw.js";

const SERVERS = [
  { name: "linear", url: "https://mcp.linear.app/mcp", tools: ["list_issues"] },
  { name: "files", command: "npx", args: ["-y", "fs-server"] },
  { name: "blocked", command: "blocked-server" },
  { name: "off", url: "https://off.example/mcp", enabled: false },
];

interface Ctx {
  leader: GrokLeader;
  home: GrokHomeFixture;
  log: string;
}

function withLeader(fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  return withSimLeader(
    { home: { mcpServers: SERVERS, disabledMcpServers: ["blocked"] } },
    ({ leader, home, log }) => fn({ leader, home, log }),
  );
}

const client = (leader: GrokLeader, name: string): Promise<RawClient> =>
  acpClient(leader.paths.socketPath, name);

/** `name → session.enabled` (null when the row has no session state), in list order. */
async function enabledMap(c: RawClient, sessionId?: string): Promise<[string, unknown][]> {
  const res = await c.request("_x.ai/mcp/list", sessionId === undefined ? {} : { sessionId });
  const servers = get(res, "result", "result", "servers");
  assert.ok(Array.isArray(servers), JSON.stringify(res));
  return servers.map((s) => [String(get(s, "name")), get(s, "session", "enabled") ?? null]);
}

async function mcpRows(c: RawClient, sessionId: string): Promise<unknown[]> {
  const res = await c.request("_x.ai/mcp/list", { sessionId });
  const servers = get(res, "result", "result", "servers");
  return Array.isArray(servers) ? servers : [];
}

const http = (name: string, url: string): Record<string, unknown> => ({
  type: "http",
  name,
  url,
  headers: [],
});

test.before(async () => {
  await ensureGrokSim();
});

test("session/new with []: config.toml servers; disabled names dropped; enabled=false as a stub row", async () => {
  await withLeader(async ({ leader, home }) => {
    const a = await client(leader, "owner");
    const sid = randomUUID();
    await a.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: sid } });
    assert.equal(await mcpRows(a, sid), [
      {
        name: "linear",
        source: "local",
        type: "http",
        url: "https://mcp.linear.app/mcp",
        session: {
          enabled: true,
          status: "ready",
          tools: [{ name: "list_issues", enabled: true }],
        },
      },
      {
        name: "files",
        source: "local",
        type: "stdio",
        command: "npx",
        args: ["-y", "fs-server"],
        session: {
          enabled: true,
          status: "ready",
          tools: [
            { name: "search", enabled: true },
            { name: "fetch", enabled: true },
          ],
        },
      },
      // In the catalog (enabled in its table) but off for sessions (disabled_mcp_servers).
      {
        name: "blocked",
        source: "local",
        type: "stdio",
        command: "blocked-server",
        session: { enabled: false },
      },
      // enabled = false: not in the catalog, listed as a re-enable placeholder.
      { name: "off", source: "local", type: "stdio", command: "", session: { enabled: false } },
    ]);
    // Without a session id only the placeholder carries session state.
    assert.equal(await enabledMap(a), [
      ["linear", null],
      ["files", null],
      ["blocked", null],
      ["off", false],
    ]);
    a.destroy();
  });
});

test("resume/load of a resident session: omitted or [] keeps config servers; a list adds or overrides by key", async () => {
  await withLeader(async ({ leader, home, log }) => {
    const cwd = home.cwd;
    const a = await client(leader, "owner");
    const sid = randomUUID();
    await a.request("session/new", {
      cwd,
      mcpServers: [http("linear", "https://mcp.linear.app/mcp")],
      _meta: { sessionId: sid },
    });
    const configured: [string, unknown][] = [
      ["linear", true],
      ["files", true],
      ["blocked", false],
      ["off", false],
    ];
    assert.equal(await enabledMap(a, sid), configured);
    const b = await client(leader, "attacher");

    // (a) resume without mcpServers: it deserialises to [] and the merge re-adds config.toml.
    await b.request("session/resume", { sessionId: sid, cwd });
    assert.equal(await enabledMap(a, sid), configured);
    // (b) an explicit [] (resume and load alike).
    await b.request("session/resume", { sessionId: sid, cwd, mcpServers: [] });
    assert.equal(await enabledMap(a, sid), configured);
    await b.request("session/load", {
      sessionId: sid,
      cwd,
      mcpServers: [],
      _meta: { noReplay: true },
    });
    assert.equal(await enabledMap(b, sid), configured);

    // (c) a non-empty list adds a server the config does not have (appended as a session row).
    await b.request("session/resume", {
      sessionId: sid,
      cwd,
      mcpServers: [http("extra", "https://extra.example/mcp")],
    });
    assert.equal(await enabledMap(a, sid), [...configured, ["extra", true]]);
    // extra is a real HTTP server to connect to, and its host does not resolve: once its
    // handshake failed it is unavailable with no tools (build_mcp_status).
    const extra = await waitFor(
      "the extra server's handshake to end",
      async () => {
        const rows = await mcpRows(a, sid);
        const row = rows[rows.length - 1];
        return get(row, "session", "status") === "initializing" ? undefined : row;
      },
      15_000,
    );
    assert.equal(extra, {
      name: "extra",
      source: "local",
      type: "stdio",
      command: "",
      session: { enabled: true, status: "unavailable" },
    });
    // The next attach replaces the merged list again: extra is gone, config servers stay.
    await b.request("session/resume", { sessionId: sid, cwd, mcpServers: [] });
    assert.equal(await enabledMap(a, sid), configured);
    // Same URL (trailing slash ignored) under another name replaces the configured entry.
    await b.request("session/resume", {
      sessionId: sid,
      cwd,
      mcpServers: [http("lin2", "https://mcp.linear.app/mcp/")],
    });
    assert.equal(await enabledMap(a, sid), [
      ["linear", false],
      ["files", true],
      ["blocked", false],
      ["off", false],
      ["lin2", true],
    ]);
    // A disabled name stays off whoever sends it.
    await b.request("session/resume", {
      sessionId: sid,
      cwd,
      mcpServers: [{ name: "blocked", command: "blocked-server", args: [], env: [] }],
    });
    assert.equal(await enabledMap(a, sid), configured);

    // config.toml is re-read at every attach.
    home.writeConfig(
      `${readFileSync(join(home.dir, "config.toml"), "utf8")}\n[mcp_servers.late]\nurl = "https://late.example/mcp"\n`,
    );
    await b.request("session/resume", { sessionId: sid, cwd, mcpServers: [] });
    assert.equal(await enabledMap(a, sid), [
      ["linear", true],
      ["files", true],
      ["blocked", false],
      ["late", true],
      ["off", false],
    ]);

    // session/load requires mcpServers (LoadSessionRequest has no default for it).
    const noList = await b.request("session/load", { sessionId: sid, cwd });
    const seen = readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l.includes('"agent_in"') && l.includes("session/load"))
      .map((l): unknown => JSON.parse(String(get(JSON.parse(l), "line"))))
      .pop();
    const column = JSON.stringify(get(seen, "params")).length;
    assert.equal(noList.error, {
      code: -32602,
      message: "Invalid params",
      data: `missing field \`mcpServers\` at line 1 column ${column}`,
    });
    a.destroy();
    b.destroy();
  });
});

test("attaching to the TUI's live session with [] leaves the owner's configured servers enabled", async () => {
  await withSimTui({}, async ({ tui }) => {
    await tui.sessionReady();
    const c = await acpClient(tui.paths.socketPath, "seat");
    const before = await enabledMap(c, tui.sessionId);
    assert.equal(before, [
      ["linear", true],
      ["files", true],
    ]);
    const res = await c.request("session/resume", {
      sessionId: tui.sessionId,
      cwd: tui.paths.cwd,
      mcpServers: [],
    });
    assert.is(res.error, undefined, JSON.stringify(res.error));
    assert.equal(await enabledMap(c, tui.sessionId), before);
    c.destroy();
  });
});

test.run();
