// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * Plugin MCP servers and what `x.ai/mcp/list` shows of them (xai-grok-agent plugins/discovery.rs,
 * manifest.rs, registry.rs; xai-grok-shell session/managed_mcp.rs, extensions/mcp.rs
 * `handle_list`; agent_ops.rs `resolve_mcp_servers`): enabled user plugins under
 * `$GROK_HOME/plugins` bring their servers into the session — the merge reads the agent's shared
 * plugin registry, so a session's `_meta.pluginDirs` bring none — materialised like config.toml servers (`load_plugin_mcp_servers_from_config`) and
 * connected like them: an HTTP one for real with the MCP SDK, a stdio one as a stand-in that is
 * ready at once (the simulator spawns nothing). The catalog is built from config.toml only, so
 * those servers, and servers only a client named, are listed as `type:"stdio", command:""`
 * placeholders, enabled, with no URL (plugin-owned ones labelled `plugin: <name>`), once they
 * have a client (`build_mcp_status`); local rows carry no `session` without one.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  grokHomeFixture,
  startGrokLeader,
  waitFor,
} from "../../../helpers/grok-sim.js";
import { acpClient } from "../../../helpers/grok-sim-clients.js";
import { OperatorBank } from "../../mcp-bank/bank.js";
import { serveBankHttp } from "../../mcp-bank/http.js";
import { get } from "./raw.js";

function put(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

const READY_TOOLS = [
  { name: "search", enabled: true },
  { name: "fetch", enabled: true },
];

const LOOKUP = {
  name: "lookup",
  description: "Look a thing up.",
  inputSchema: { type: "object" },
};

test.before(async () => {
  await ensureGrokSim();
});

test("plugin and client-only servers are stdio placeholder rows once they have a client; a plugin's HTTP server is connected, its stdio server stands in", async () => {
  const bank = new OperatorBank({ tools: [LOOKUP] });
  const token = randomBytes(16).toString("hex");
  const http = await serveBankHttp({ bank, token });
  const home = grokHomeFixture({
    mcpServers: [{ name: "docs", url: "https://docs.example/mcp", tools: ["read"] }],
    extraToml: '[plugins]\nenabled = ["linear-plugin", "proxy-plugin"]\n',
  });
  const plugins = join(home.dir, "plugins");
  // Convention-based plugin: no manifest, a .mcp.json at its root. Its direct Linear endpoint is
  // a stand-in (`sim_tools`: the test reaches no network); its bank is connected for real, the
  // bearer token expanded from the leader's environment.
  put(
    join(plugins, "linear-plugin", ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        "linear-direct": {
          type: "http",
          url: "https://mcp.linear.app/mcp",
          sim_tools: ["search", "fetch"],
        },
        "plugin-bank": {
          type: "http",
          url: http.url.href,
          headers: { Authorization: `Bearer \${BANK_TOKEN}` },
        },
      },
    }),
  );
  // Manifest plugin with inline mcpServers: a stdio proxy to Linear.
  put(
    join(plugins, "proxy", "plugin.json"),
    JSON.stringify({
      name: "proxy-plugin",
      mcpServers: {
        "linear-proxy": { command: "npx", args: ["mcp-remote", "https://mcp.linear.app/sse"] },
      },
    }),
  );
  // A user plugin nobody enabled: populate_plugin_lists puts it on the disabled list.
  put(
    join(plugins, "off-plugin", ".mcp.json"),
    JSON.stringify({ mcpServers: { "off-server": { command: "off" } } }),
  );
  // A per-session plugin root (`_meta.pluginDirs`): only the session's own registry has it,
  // and no MCP merge reads that one (agent_ops.rs resolve_mcp_servers, ensure_plugin_registry).
  const sessionPlugin = join(home.cwd, "..", "session-plugin");
  put(
    join(sessionPlugin, ".mcp.json"),
    // The plugin-root token is substituted (manifest.rs substitute_env_vars).
    JSON.stringify({ mcpServers: { "session-server": { command: `$\{GROK_PLUGIN_ROOT}/serve` } } }),
  );
  const leader = await startGrokLeader({
    grokHome: home.dir,
    cwd: home.cwd,
    env: { BANK_TOKEN: token },
  });
  try {
    const c = await acpClient(leader.paths.socketPath, "my-lib");
    const created = await c.request("session/new", {
      cwd: home.cwd,
      mcpServers: [{ type: "http", name: "bank", url: "http://127.0.0.1:9/mcp", headers: [] }],
      _meta: { pluginDirs: [sessionPlugin] },
    });
    const sessionId = String(get(created, "result", "sessionId"));

    const bare = await c.request("_x.ai/mcp/list", {});
    assert.equal(get(bare, "result", "result", "servers"), [
      { name: "docs", source: "local", type: "http", url: "https://docs.example/mcp" },
    ]);

    // The HTTP clients' handshakes end (the bank's in ready, port 9's in unavailable).
    const servers = await waitFor("every handshake to end", async () => {
      const listed = await c.request("_x.ai/mcp/list", { sessionId });
      const rows = get(listed, "result", "result", "servers");
      if (!Array.isArray(rows)) return undefined;
      return rows.some((r) => get(r, "session", "status") === "initializing") ? undefined : rows;
    });
    const placeholder = (
      name: string,
      session: Record<string, unknown>,
      plugin?: string,
    ): Record<string, unknown> => ({
      name,
      source: "local",
      ...(plugin === undefined ? {} : { sourceLabel: `plugin: ${plugin}` }),
      type: "stdio",
      command: "",
      session,
    });
    const ready = { enabled: true, status: "ready", tools: READY_TOOLS };
    // The session's servers in merge order: sorted by key (URL without trailing slashes for
    // http, the name for stdio).
    const sessionRows: [string, Record<string, unknown>][] = [
      ["http://127.0.0.1:9/mcp", placeholder("bank", { enabled: true, status: "unavailable" })],
      [
        http.url.href.replace(/\/+$/, ""),
        placeholder(
          "plugin-bank",
          {
            enabled: true,
            status: "ready",
            tools: [{ name: LOOKUP.name, description: LOOKUP.description, enabled: true }],
          },
          "linear-plugin",
        ),
      ],
      ["https://mcp.linear.app/mcp", placeholder("linear-direct", ready, "linear-plugin")],
      ["linear-proxy", placeholder("linear-proxy", ready, "proxy-plugin")],
    ];
    sessionRows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    assert.equal(servers, [
      {
        name: "docs",
        source: "local",
        type: "http",
        url: "https://docs.example/mcp",
        session: { enabled: true, status: "ready", tools: [{ name: "read", enabled: true }] },
      },
      ...sessionRows.map(([, row]) => row),
    ]);
    assert.ok(
      !JSON.stringify(servers).includes("off-server"),
      "a plugin nobody enabled brings nothing",
    );
    assert.ok(
      !JSON.stringify(servers).includes("session-server"),
      "a session's pluginDirs bring no MCP server",
    );
    assert.ok(
      http.authorizations.includes(`Bearer ${token}`),
      "the plugin's header reached the bank expanded",
    );
    c.destroy();
  } finally {
    await leader.stop();
    await http.close();
    home.remove();
  }
});

test("config.toml wins a plugin server's name; a disabled name stays off", async () => {
  const home = grokHomeFixture({
    mcpServers: [{ name: "shared", command: "from-config" }],
    disabledMcpServers: ["muted"],
    extraToml: '[plugins]\nenabled = ["p"]\n',
  });
  put(
    join(home.dir, "plugins", "p", ".mcp.json"),
    JSON.stringify({
      mcpServers: { shared: { command: "from-plugin" }, muted: { command: "x" } },
    }),
  );
  const leader = await startGrokLeader({ grokHome: home.dir, cwd: home.cwd });
  try {
    const c = await acpClient(leader.paths.socketPath, "my-lib");
    const created = await c.request("session/new", { cwd: home.cwd, mcpServers: [] });
    const sessionId = String(get(created, "result", "sessionId"));
    const listed = await c.request("_x.ai/mcp/list", { sessionId });
    const servers = get(listed, "result", "result", "servers");
    assert.ok(Array.isArray(servers));
    // The owner map knows the plugin's names whatever config.toml says (registry.rs
    // mcp_server_owner), so the config row is labelled too; the disabled plugin server is a
    // re-enableable stub.
    assert.equal(
      servers.map((s) => [get(s, "name"), get(s, "command"), get(s, "sourceLabel")]),
      [
        ["shared", "from-config", "plugin: p"],
        ["muted", "", "plugin: p"],
      ],
    );
    assert.equal(get(servers[1], "session"), { enabled: false });
    c.destroy();
  } finally {
    await leader.stop();
    home.remove();
  }
});

test.run();
