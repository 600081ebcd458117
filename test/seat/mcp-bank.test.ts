// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * The operator's MCP bank (issue 14) through a whole hire against the simulators and a real MCP
 * server (test/sim/mcp-bank) behind its own bearer token. The seat starts its projecting proxy on
 * loopback with a fresh token; Grok connects to the proxy, never to the bank. A temporary profile
 * names the proxy in config.toml with `${GROK_SEAT_MCP_TOKEN}` (the token only in the pane's
 * environment); the owner's profile gets it through `x.ai/session/update_mcp_servers`. Step
 * `mcp_bank` proves Grok lists it ready with its tools; release stops the proxy. Refusals: a bad
 * name (nothing started), an unreachable bank, an agent without update_mcp_servers.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import { BANK_TOKEN_ENV } from "../../lib/seat/profile-config.js";
import { echoBehaviour, OperatorBank } from "../sim/mcp-bank/bank.js";
import { loadBankTools } from "../sim/mcp-bank/fixture.js";
import { type BankHttp, serveBankHttp } from "../sim/mcp-bank/http.js";
import { refusalOf, type Stack, startStack } from "./stack.js";

async function startBank(): Promise<{ http: BankHttp; token: string; bank: OperatorBank }> {
  const bank = new OperatorBank({ tools: loadBankTools(), behaviour: echoBehaviour });
  const token = randomBytes(24).toString("hex");
  return { http: await serveBankHttp({ bank, token }), token, bank };
}

function bankOption(b: { http: BankHttp; token: string }) {
  return {
    name: "ops",
    url: b.http.url.href,
    headers: { Authorization: `Bearer ${b.token}` },
  };
}

async function refused(url: URL): Promise<boolean> {
  try {
    await fetch(url, { method: "POST", signal: AbortSignal.timeout(2000) });
    return false;
  } catch {
    return true;
  }
}

function temporary(stack: Stack): { kind: "temporary"; loginFile: string } {
  return { kind: "temporary", loginFile: stack.home.authPath };
}

test("a temporary profile names the seat's proxy in config.toml: Grok lists the bank ready through it, nothing secret is written, release stops it", async () => {
  const stack = await startStack();
  const b = await startBank();
  try {
    const seat = await hire(stack.options({ profile: temporary(stack), mcpBank: bankOption(b) }));
    const proven = stack.events.filter((e) => e.type === "proven").map((e) => e.step);
    assert.ok(proven.includes("mcp_bank"), proven.join());
    const r = seat.record;
    const bank = r.bank;
    assert.ok(bank !== null && bank !== undefined);
    assert.is(bank.scope, "profile");
    assert.ok(bank.proxy.startsWith("http://127.0.0.1:"), bank.proxy);
    assert.ok(bank.tools.length > 0);
    assert.match(bank.toolsDigest, /^[0-9a-f]{64}$/);
    // Grok reached the bank only through the proxy, which sent the orchestrator's header.
    assert.ok(b.http.authorizations.length > 0);
    assert.ok(b.http.authorizations.every((a) => a === `Bearer ${b.token}`));
    const cfg = readFileSync(join(r.profile.grokHome, "config.toml"), "utf8");
    assert.ok(cfg.includes(`[mcp_servers.ops]\nurl = "${bank.proxy}"`), cfg);
    assert.ok(cfg.includes(`Authorization = "Bearer \${${BANK_TOKEN_ENV}}"`), cfg);
    assert.not.ok(cfg.includes(b.token));
    const file = readFileSync(seat.recordPath, "utf8");
    assert.not.ok(file.includes(b.token), "the upstream credential is not recorded");
    assert.not.ok(JSON.stringify(stack.events).includes(b.token));
    const proxyUrl = new URL(bank.proxy);
    assert.not.ok(await refused(proxyUrl), "the proxy listens while the seat is hired");
    await seat.release();
    assert.ok(await refused(proxyUrl), "release stopped the proxy");
  } finally {
    await stack.cleanup();
    await b.http.close();
  }
});

test("with the owner's profile the bank is added to the live session (update_mcp_servers), nothing written", async () => {
  const stack = await startStack();
  const b = await startBank();
  try {
    const before = readFileSync(join(stack.home.dir, "config.toml"), "utf8");
    const seat = await hire(stack.options({ mcpBank: bankOption(b) }));
    assert.is(seat.record.bank?.scope, "session");
    assert.ok((seat.record.bank?.tools.length ?? 0) > 0);
    assert.is(readFileSync(join(stack.home.dir, "config.toml"), "utf8"), before);
    await seat.release();
  } finally {
    await stack.cleanup();
    await b.http.close();
  }
});

test("refusals: a name Grok cannot register tools under, an unreachable bank, an agent without update_mcp_servers", async () => {
  const stack = await startStack();
  const b = await startBank();
  try {
    const badName = await refusalOf(
      hire(stack.options({ mcpBank: { ...bankOption(b), name: "two__parts" } })),
    );
    assert.is(badName.code, "BANK_INVALID");
    assert.is(badName.check, "bank.name");
    assert.equal(stack.simPids(), []);
    const wrongAuth = await refusalOf(
      hire(
        stack.options({ mcpBank: { ...bankOption(b), headers: { Authorization: "Bearer no" } } }),
      ),
    );
    assert.is(wrongAuth.code, "BANK_UNREACHABLE");
    assert.is(wrongAuth.step, "runtime_dir");
    assert.equal(stack.simPids(), [], "nothing launched");
  } finally {
    await stack.cleanup();
  }
  const old = await startStack({
    env: { GROK_SIM_VERSION_PRESET: "no-update-mcp", GROK_SIM_AGENT_VERSION: "1.0.48" },
  });
  try {
    const r = await refusalOf(hire(old.options({ mcpBank: bankOption(b) })));
    assert.is(r.step, "mcp_bank");
    assert.is(r.code, "EXTENSION_UNSUPPORTED");
    assert.match(r.reason, /update_mcp_servers/);
  } finally {
    await old.cleanup();
    await b.http.close();
  }
});

test.run();
