import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import {
  catalogReadiness,
  isEnabledDirectLinear,
  LINEAR_OWNER_STEP,
  type McpListResult,
  McpListResultSchema,
  urlHost,
} from "../../lib/grok/catalog.js";

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

test("only enabled direct http mcp.linear.app entries count", () => {
  const hits = [
    http("linear", "https://mcp.linear.app/sse", true),
    http("linear2", "http://mcp.linear.app:80/mcp", true),
    http("linear3", "https://MCP.LINEAR.APP/", true),
  ];
  const misses = [
    http("disabled", "https://mcp.linear.app/sse", false),
    http("unannotated", "https://mcp.linear.app/sse", null),
    http("lookalike", "https://evil-mcp.linear.app.example/sse", true),
    http("suffix", "https://mcp.linear.app.evil/sse", true),
    http("sub", "https://x.mcp.linear.app/sse", true),
    http("apex", "https://linear.app/mcp", true),
    { name: "stdio", type: "stdio", command: "mcp.linear.app", session: { enabled: true } },
    { name: "gateway", source: "managed", type: "managedGateway", session: { enabled: true } },
    { name: "sse", type: "sse", url: "https://mcp.linear.app/sse", session: { enabled: true } },
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

test.run();
