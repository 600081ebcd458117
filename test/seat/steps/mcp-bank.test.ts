/**
 * Step `mcp_bank` (lib/seat/steps/mcp-bank.ts) over scripted `x.ai/mcp/list` answers: what Grok
 * lists decides, polled until the bound. BANK_NOT_READY when our server is missing, present but
 * never `ready` (extensions/mcp.rs McpServerSessionState `status`), or ready without one of the
 * projected tools Grok can register; a server that becomes ready within the bound is proven.
 * The simulator-level cases are in test/seat/mcp-bank.test.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { AcpSession } from "../../../lib/acp/acp-session.js";
import { systemKernel } from "../../../lib/kernel/index.js";
import { DisposeStack } from "../../../lib/seat/dispose-stack.js";
import type { SeatRefusal } from "../../../lib/seat/refusal.js";
import type { StepContext } from "../../../lib/seat/step-runner.js";
import { type BankProxy, mcpBank } from "../../../lib/seat/steps/mcp-bank.js";
import { refusalOf } from "../stack.js";

const proxy: BankProxy = {
  url: new URL("http://127.0.0.1:4711/mcp"),
  bearerToken: "not-a-real-token",
  // `dotted.name` is not registrable as ops__dotted.name: never expected.
  listed: () => [
    { name: "echo", meta: undefined },
    { name: "report", meta: undefined },
    { name: "dotted.name", meta: undefined },
  ],
  toolsDigest: () => "0".repeat(64),
  issues: () => [],
  sessionCount: () => 1,
  unauthorizedCount: () => 0,
  close: async () => {},
};

const ctx: StepContext = {
  kernel: systemKernel,
  uid: process.getuid?.() ?? -1,
  stack: new DisposeStack(),
  left: { runtimeDir: null, paneId: null, tuiPid: null, leaderPid: null },
  signal: undefined,
  waiting: () => {},
};

/** A session whose `x.ai/mcp/list` answers are scripted, one per call (the last repeats). */
function session(answers: unknown[][]): { session: AcpSession; calls: () => number } {
  let n = 0;
  const fake = {
    mcpServers: async () => {
      const servers = answers[Math.min(n, answers.length - 1)] ?? [];
      n++;
      return { servers };
    },
    updateMcpServers: async () => {},
  };
  return { session: fake as unknown as AcpSession, calls: () => n };
}

function row(status: string | null, tools: string[]) {
  return {
    name: "ops",
    session: {
      enabled: true,
      ...(status === null ? {} : { status }),
      tools: tools.map((name) => ({ name })),
    },
  };
}

async function run(answers: unknown[][], timeoutMs = 200) {
  const s = session(answers);
  const input = {
    session: s.session,
    name: "ops",
    proxy,
    scope: "profile" as const,
    agentVersion: "0.1.210",
    timeoutMs,
  };
  return { outcome: mcpBank.run(input, ctx), calls: s.calls };
}

async function refused(answers: unknown[][]): Promise<SeatRefusal> {
  return refusalOf((await run(answers)).outcome);
}

test("no row for our server: BANK_NOT_READY on mcp_bank.ready, after polling to the bound", async () => {
  const { outcome, calls } = await run([
    [{ name: "linear", session: { status: "ready", tools: [] } }],
  ]);
  const r = await refusalOf(outcome);
  assert.is(r.code, "BANK_NOT_READY");
  assert.is(r.step, "mcp_bank");
  assert.is(r.check, "mcp_bank.ready");
  assert.is(r.reason, "x.ai/mcp/list has no server ops");
  assert.ok(calls() > 1, "polled, not asked once");
});

test("present but never ready (initializing, unavailable, no status): BANK_NOT_READY naming the status", async () => {
  for (const [status, reason] of [
    ["initializing", "server ops is initializing"],
    ["unavailable", "server ops is unavailable"],
    [null, "server ops is without a status"],
  ] as const) {
    const r = await refused([[row(status, ["echo", "report"])]]);
    assert.is(r.code, "BANK_NOT_READY");
    assert.is(r.check, "mcp_bank.ready");
    assert.is(r.reason, reason);
  }
});

test("ready without one of the projected tools: BANK_NOT_READY on mcp_bank.tools naming it", async () => {
  const r = await refused([[row("ready", ["echo"])]]);
  assert.is(r.code, "BANK_NOT_READY");
  assert.is(r.check, "mcp_bank.tools");
  assert.is(r.reason, "Grok does not list report");
});

test("initializing first, then ready with every registrable tool: proven, the record's bank", async () => {
  const { outcome } = await run(
    [[row("initializing", [])], [row("initializing", [])], [row("ready", ["echo", "report"])]],
    5000,
  );
  const o = await outcome;
  assert.equal(o.value, {
    name: "ops",
    proxy: "http://127.0.0.1:4711/mcp",
    scope: "profile",
    tools: ["echo", "report"],
    toolsDigest: "0".repeat(64),
  });
  assert.equal(
    o.checks.map((c) => [c.check, c.ok]),
    [
      ["mcp_bank.ready", true],
      ["mcp_bank.tools", true],
    ],
  );
});

test.run();
