// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * The Linear check's blind spots (issue 13 point 4), against the grok simulator, whose
 * `x.ai/mcp/list` shows plugin servers as the real one does (`type: "stdio", command: ""`, no
 * URL, `sourceLabel: "plugin: <name>"`): a plugin's direct mcp.linear.app server and a stdio proxy
 * to that host refuse LINEAR_DIRECT_ENABLED, a plugin server whose transport cannot be read
 * refuses CATALOG_UNVERIFIABLE, and a plugin server that is something else is admitted. Every
 * refusal comes before the brief: no `session/resume`, no prompt.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import type { McpServerFixture } from "../helpers/grok-sim.js";
import { NO_LINEAR, refusalOf, type Stack, startStack, withStack } from "./stack.js";

/** A `${NAME}` token as a plugin declaration writes it. */
const envToken = (name: string): string => ["$", "{", name, "}"].join("");

function plugin(stack: Stack, name: string, servers: Record<string, unknown>): void {
  const root = join(stack.home.dir, "plugins", name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "plugin.json"), JSON.stringify({ name }));
  writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
}

async function stackWithPlugin(
  name: string,
  servers: Record<string, unknown>,
  mcpServers: McpServerFixture[] = NO_LINEAR,
): Promise<Stack> {
  const stack = await startStack({
    mcpServers,
    home: { extraToml: `[plugins]\nenabled = [${JSON.stringify(name)}]\n` },
  });
  plugin(stack, name, servers);
  return stack;
}

function resumed(stack: Stack): number {
  return stack.framesFromUs().filter((l) => JSON.stringify(l.frame).includes("session/resume"))
    .length;
}

test("a plugin's direct mcp.linear.app server refuses LINEAR_DIRECT_ENABLED before the brief", async () => {
  const stack = await stackWithPlugin("linear-kit", {
    linear: { url: "https://mcp.linear.app/mcp" },
  });
  try {
    const r = await refusalOf(hire(stack.options()));
    assert.is(r.step, "catalog");
    assert.is(r.code, "LINEAR_DIRECT_ENABLED");
    assert.equal(r.context.offending, ["linear"]);
    assert.is(resumed(stack), 0);
  } finally {
    await stack.cleanup();
  }
});

test("a stdio proxy naming mcp.linear.app (npx mcp-remote …) is direct Linear too", () =>
  withStack(
    {
      mcpServers: [
        ...NO_LINEAR,
        {
          name: "linear-proxy",
          command: "npx",
          args: ["-y", "mcp-remote", "https://mcp.linear.app/sse"],
        },
      ],
    },
    async (stack) => {
      const r = await refusalOf(hire(stack.options()));
      assert.is(r.code, "LINEAR_DIRECT_ENABLED");
      assert.equal(r.context.offending, ["linear-proxy"]);
      assert.is(resumed(stack), 0);
    },
  ));

test("a plugin server whose transport cannot be read refuses CATALOG_UNVERIFIABLE", async () => {
  const stack = await stackWithPlugin("env-kit", {
    remote: { url: envToken("SEAT_TEST_UNSET_URL") },
  });
  try {
    const r = await refusalOf(hire(stack.options()));
    assert.is(r.step, "catalog");
    assert.is(r.code, "CATALOG_UNVERIFIABLE");
    assert.is(r.check, "catalog.transports_known");
    assert.equal(r.context.unverifiable, ["remote"]);
    assert.match(r.ownerNextStep, "Disable the MCP servers");
    assert.is(resumed(stack), 0);
  } finally {
    await stack.cleanup();
  }
});

test("a plugin server that is not Linear is resolved from its manifest and admitted", async () => {
  const stack = await stackWithPlugin("docs-kit", {
    docs2: { command: `${envToken("GROK_PLUGIN_ROOT")}/serve`, args: ["--port", "0"] },
  });
  try {
    const seat = await hire(stack.options());
    assert.ok(seat.live);
    await seat.release();
  } finally {
    await stack.cleanup();
  }
});

test.run();
