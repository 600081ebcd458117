import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import {
  catalogReadiness,
  isEnabledDirectLinear,
  LINEAR_OWNER_STEP,
  type McpListResult,
  McpListResultSchema,
  UNVERIFIABLE_OWNER_STEP,
  urlHost,
} from "../../lib/grok/catalog.js";
import type { PluginServerSpec } from "../../lib/grok/plugin-servers.js";

/** A `${NAME}` token as a plugin declaration writes it. */
const envToken = (name: string): string => ["$", "{", name, "}"].join("");

// Entries shaped like `McpServerEntry` (extensions/mcp.rs): config flattened, camelCase.
function list(servers: unknown[]): McpListResult {
  return v.parse(McpListResultSchema, { servers });
}
const http = (name: string, url: string, enabled: boolean | null) => ({
  name,
  source: "local",
  type: "http",
  url,
  ...(enabled === null ? {} : { session: { enabled, status: "ready", tools: [] } }),
});

test("host extraction: exact host, any scheme/port/path, case and trailing dot folded", () => {
  assert.is(urlHost("https://mcp.linear.app/sse"), "mcp.linear.app");
  assert.is(urlHost("http://MCP.Linear.App:8443/mcp?x=1"), "mcp.linear.app");
  assert.is(urlHost("wss://mcp.linear.app."), "mcp.linear.app");
  assert.is(urlHost("mcp.linear.app/mcp"), "mcp.linear.app");
  assert.is(urlHost("https://user:pw@mcp.linear.app/"), "mcp.linear.app");
  assert.is(urlHost("https://evil-mcp.linear.app.example/sse"), "evil-mcp.linear.app.example");
  assert.is(urlHost(""), null);
});

test("only enabled servers reaching mcp.linear.app directly count (http/sse URL or a stdio command naming it)", () => {
  const hits = [
    http("linear", "https://mcp.linear.app/sse", true),
    http("linear2", "http://mcp.linear.app:80/mcp", true),
    http("linear3", "https://MCP.LINEAR.APP/", true),
    { name: "sse", type: "sse", url: "https://mcp.linear.app/sse", session: { enabled: true } },
    // A local proxy to the host is still direct.
    {
      name: "proxy",
      type: "stdio",
      command: "npx",
      args: ["-y", "mcp-remote", "https://mcp.linear.app/sse"],
      session: { enabled: true },
    },
    {
      name: "flag",
      type: "stdio",
      command: "proxy",
      args: ["--url=mcp.linear.app:443"],
      session: { enabled: true },
    },
    { name: "stdio", type: "stdio", command: "mcp.linear.app", session: { enabled: true } },
  ];
  const misses = [
    http("disabled", "https://mcp.linear.app/sse", false),
    http("unannotated", "https://mcp.linear.app/sse", null),
    http("lookalike", "https://evil-mcp.linear.app.example/sse", true),
    http("suffix", "https://mcp.linear.app.evil/sse", true),
    http("sub", "https://x.mcp.linear.app/sse", true),
    http("apex", "https://linear.app/mcp", true),
    { name: "gateway", source: "managed", type: "managedGateway", session: { enabled: true } },
    {
      name: "other-proxy",
      type: "stdio",
      command: "npx",
      args: ["mcp-remote", "https://evil-mcp.linear.app.example/sse", "x.mcp.linear.app"],
      session: { enabled: true },
    },
  ];
  for (const e of list(hits).servers) assert.ok(isEnabledDirectLinear(e), e.name);
  for (const e of list(misses).servers) assert.not.ok(isEnabledDirectLinear(e), e.name);
});

test("an enabled direct Linear endpoint refuses readiness with the owner's step", () => {
  const r = catalogReadiness(
    list([
      http("docs", "https://docs.example/mcp", true),
      http("linear", "https://mcp.linear.app/sse", true),
    ]),
  );
  assert.is(r.ok, false);
  assert.is(r.code, "LINEAR_DIRECT_ENABLED");
  assert.equal(r.offending, ["linear"]);
  assert.is(r.ownerStep, LINEAR_OWNER_STEP);
  assert.is(r.checks.find((c) => c.check === "catalog.linear_direct_disabled")?.ok, false);
});

test("other servers keep their native policy: readiness passes", () => {
  const r = catalogReadiness(
    list([
      http("docs", "https://docs.example/mcp", true),
      http("linear-off", "https://mcp.linear.app/sse", false),
      http("lookalike", "https://evil-mcp.linear.app.example/sse", true),
    ]),
  );
  assert.is(r.ok, true);
  assert.is(r.code, null);
  assert.equal(r.offending, []);
  assert.ok(r.checks.every((c) => c.ok));
});

test("an empty list is ready; a list without session state is not session-scoped", () => {
  assert.is(catalogReadiness(list([])).ok, true);
  const r = catalogReadiness(list([http("linear", "https://mcp.linear.app/sse", null)]));
  assert.is(r.ok, false);
  assert.is(r.code, "CATALOG_NOT_SESSION_SCOPED");
});

const placeholder = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  source: "local",
  type: "stdio",
  command: "",
  session: { enabled: true, status: "ready", tools: [{ name: "search", enabled: true }] },
  ...extra,
});
const spec = (plugin: string, name: string, s: Partial<PluginServerSpec>): PluginServerSpec => ({
  plugin,
  name,
  url: null,
  command: null,
  args: [],
  unresolved: false,
  ...s,
});

test("a placeholder row (plugin or client-only server) is judged by the plugin's declaration, else unverifiable", () => {
  const plugins = new Map<string, PluginServerSpec[]>([
    ["linear-kit", [spec("linear-kit", "linear", { url: "https://mcp.linear.app/mcp" })]],
    ["docs-kit", [spec("docs-kit", "docs", { command: "node", args: ["serve.js"] })]],
    ["env-kit", [spec("env-kit", "remote", { url: envToken("REMOTE_URL"), unresolved: true })]],
  ]);
  const ctx = { plugins, ownServers: [] };
  const linear = catalogReadiness(
    list([placeholder("linear", { sourceLabel: "plugin: linear-kit" })]),
    ctx,
  );
  assert.is(linear.code, "LINEAR_DIRECT_ENABLED");
  assert.equal(linear.offending, ["linear"]);
  const docs = catalogReadiness(
    list([placeholder("docs", { sourceLabel: "plugin: docs-kit" })]),
    ctx,
  );
  assert.is(docs.ok, true);
  for (const row of [
    placeholder("remote", { sourceLabel: "plugin: env-kit" }), // a ${VAR} left unsubstituted
    placeholder("ghost", { sourceLabel: "plugin: not-installed" }), // no such plugin on disk
    placeholder("client-only"), // a server only another client named
  ]) {
    const r = catalogReadiness(list([row]), ctx);
    assert.is(r.code, "CATALOG_UNVERIFIABLE", row.name);
    assert.equal(r.unverifiable, [row.name]);
    assert.is(r.ownerStep, UNVERIFIABLE_OWNER_STEP);
  }
  // Without a plugin lookup every plugin placeholder is unverifiable; a disabled one is not judged.
  assert.is(
    catalogReadiness(list([placeholder("docs", { sourceLabel: "plugin: docs-kit" })])).code,
    "CATALOG_UNVERIFIABLE",
  );
  assert.is(catalogReadiness(list([placeholder("off", { session: { enabled: false } })])).ok, true);
});

test("the placeholder of a server this seat added itself is matched by name and tools", () => {
  const own = { plugins: null, ownServers: [{ name: "bank", tools: ["search"] }] };
  assert.is(catalogReadiness(list([placeholder("bank")]), own).ok, true);
  const otherTools = placeholder("bank", {
    session: { enabled: true, tools: [{ name: "search" }, { name: "exec" }] },
  });
  assert.is(catalogReadiness(list([otherTools]), own).code, "CATALOG_UNVERIFIABLE");
  assert.is(catalogReadiness(list([placeholder("other")]), own).code, "CATALOG_UNVERIFIABLE");
});

test("every local row must carry the session's state", () => {
  const r = catalogReadiness(
    list([
      http("docs", "https://docs.example/mcp", true),
      http("bare", "https://x.example/mcp", null),
    ]),
  );
  assert.is(r.code, "CATALOG_NOT_SESSION_SCOPED");
  assert.equal(r.checks.find((c) => c.check === "catalog.session_scoped")?.received, ["bare"]);
});

test.run();
