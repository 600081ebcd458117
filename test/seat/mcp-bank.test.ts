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
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import { BANK_TOKEN_ENV } from "../../lib/seat/profile-config.js";
import type { Seat } from "../../lib/seat/seat.js";
import { capturePane, tmuxPaneOf } from "../../scripts/lib/owner.js";
import { waitFor } from "../helpers/grok-sim.js";
import {
  bankOption,
  ownerActionsAsked,
  temporaryBankOptions,
  withBank,
  withStackAndBank,
} from "./bank.js";
import { refusalOf, type Stack, withStack } from "./stack.js";

async function refused(url: URL): Promise<boolean> {
  try {
    await fetch(url, { method: "POST", signal: AbortSignal.timeout(2000) });
    return false;
  } catch {
    return true;
  }
}

test("a temporary profile names the seat's proxy in config.toml: Grok lists the bank ready through it, nothing secret is written, release stops it", async () => {
  await withStackAndBank(async (stack, b) => {
    const seat = await hire(temporaryBankOptions(stack, b));
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
  });
});

test("with the owner's profile the bank is added to the live session (update_mcp_servers), nothing written", async () => {
  await withStackAndBank(async (stack, b) => {
    const before = readFileSync(join(stack.home.dir, "config.toml"), "utf8");
    const seat = await hire(stack.options({ mcpBank: bankOption(b) }));
    assert.is(seat.record.bank?.scope, "session");
    assert.ok((seat.record.bank?.tools.length ?? 0) > 0);
    assert.is(readFileSync(join(stack.home.dir, "config.toml"), "utf8"), before);
    await seat.release();
  });
});

test("refusals: a name Grok cannot register tools under, an unreachable bank, an agent without update_mcp_servers", async () => {
  await withBank(async (b) => {
    await withStack(async (stack) => {
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
    });
    const noUpdateMcp = {
      env: { GROK_SIM_VERSION_PRESET: "no-update-mcp", GROK_SIM_AGENT_VERSION: "1.0.48" },
    };
    await withStack(noUpdateMcp, async (old) => {
      const r = await refusalOf(hire(old.options({ mcpBank: bankOption(b) })));
      assert.is(r.step, "mcp_bank");
      assert.is(r.code, "EXTENSION_UNSUPPORTED");
      assert.match(r.reason, /update_mcp_servers/);
    });
  });
});

/**
 * The owner answers the TUI's permission prompt with one key (`y`/`n` on an empty input line),
 * once the prompt for `tool` is on screen.
 */
async function ownerAnswers(stack: Stack, seat: Seat, tool: string, key: "y" | "n") {
  const pid = seat.record.pane.process.pid;
  await waitFor(
    `the TUI's permission prompt for ${tool}`,
    () =>
      capturePane(stack.herdr.tmuxSocket, pid).includes(`Permission requested: ${tool}`)
        ? true
        : undefined,
    15_000,
  );
  const pane = tmuxPaneOf(stack.herdr.tmuxSocket, pid);
  assert.ok(pane !== null);
  execFileSync("tmux", ["-L", stack.herdr.tmuxSocket, "send-keys", "-t", pane, "-l", key]);
}

test("the seat's round trip: a delivered prompt's bank call waits for the owner in the TUI, runs through the proxy and its result is in the reply; invalid arguments and a union mismatch are refused by the proxy with the schema's reason", async () => {
  await withStackAndBank(async (stack, b) => {
    const seat = await hire(temporaryBankOptions(stack, b));
    const asked = ownerActionsAsked(seat);
    const d = await seat.deliver('[[sim:call]] ops__echo {"text":"from the seat ☕"}');
    await waitFor("the owner's pending permission", () => (asked.length > 0 ? true : undefined));
    assert.equal(asked, ["permission"], "the seat sees the owner's prompt and never answers it");
    assert.is(seat.pendingOwnerActions().length, 1);
    assert.is(b.bank.calls.length, 0, "nothing reaches the bank before the owner answers");
    await ownerAnswers(stack, seat, "ops__echo", "y");
    const reply = await d.reply;
    assert.is(reply.promptId, d.promptId);
    assert.ok(
      reply.text.includes('The tool ops__echo returned: {"text":"from the seat ☕"}'),
      reply.text,
    );
    assert.equal(
      reply.toolCalls.map((t) => [t.title, t.status]),
      [["ops__echo", "completed"]],
    );
    assert.equal(
      b.bank.calls.map((c) => [c.name, c.argumentsJson]),
      [["echo", '{"text":"from the seat ☕"}']],
    );

    const bad = await seat.deliver(
      '[[sim:call]] ops__echo {"txt":1}\n[[sim:call]] ops__shape_edit {"kind":"hexagon"}',
    );
    await ownerAnswers(stack, seat, "ops__echo", "y");
    await ownerAnswers(stack, seat, "ops__shape_edit", "y");
    const refused = await bad.reply;
    // The proxy's refusal, with the original schema's reason, is what the model got back.
    assert.ok(
      refused.text.includes(
        'The tool ops__echo returned an error: Invalid arguments for tool "echo": missing required property "text"',
      ),
      refused.text,
    );
    assert.ok(
      refused.text.includes(
        'The tool ops__shape_edit returned an error: Invalid arguments for tool "shape_edit": no oneOf alternative matched ([0] missing required property "r", /kind: must be "circle"; [1] missing required property "w", missing required property "h", /kind: must be "rect")',
      ),
      refused.text,
    );
    assert.equal(
      refused.toolCalls.map((t) => [t.title, t.status]),
      [
        ["ops__echo", "failed"],
        ["ops__shape_edit", "failed"],
      ],
    );
    assert.is(b.bank.calls.length, 1, "neither refused call reached the bank");
    await seat.release();
  });
});

test("BANK_NOT_READY through the simulator: the owner's config disables a server of the bank's name, so the session's set drops ours (managed_mcp.rs disabled names) and x.ai/mcp/list shows it without a status", async () => {
  await withStackAndBank(async (stack, b) => {
    const cfg = join(stack.home.dir, "config.toml");
    stack.home.writeConfig(
      `${readFileSync(cfg, "utf8")}\n[mcp_servers.ops]\nurl = "http://127.0.0.1:9/mcp"\nenabled = false\n`,
    );
    const r = await refusalOf(
      hire(stack.options({ mcpBank: bankOption(b), timeouts: { requestMs: 3000 } })),
    );
    assert.is(r.step, "mcp_bank");
    assert.is(r.code, "BANK_NOT_READY");
    assert.is(r.check, "mcp_bank.ready");
    assert.is(r.reason, "server ops is without a status");
  });
});

test("autoApproveBank in a temporary profile: config.toml allows MCPTool(ops__*) and the call runs without asking the owner (permission.rs rules)", async () => {
  await withStackAndBank(async (stack, b) => {
    const seat = await hire(temporaryBankOptions(stack, b, { autoApproveBank: true }));
    const cfg = readFileSync(join(seat.record.profile.grokHome, "config.toml"), "utf8");
    assert.ok(cfg.includes('[permission]\nallow = ["MCPTool(ops__*)"]'), cfg);
    const asked = ownerActionsAsked(seat);
    const d = await seat.deliver('[[sim:call]] ops__echo {"text":"auto"}');
    const reply = await d.reply;
    assert.ok(reply.text.includes('The tool ops__echo returned: {"text":"auto"}'), reply.text);
    assert.equal(asked, [], "the owner was not asked");
    assert.equal(
      b.bank.calls.map((c) => c.argumentsJson),
      ['{"text":"auto"}'],
    );
    await seat.release();
  });
});

test("autoApproveBank with the owner's profile is ignored: nothing is written and the call still asks the owner", async () => {
  await withStackAndBank(async (stack, b) => {
    const cfg = join(stack.home.dir, "config.toml");
    const before = readFileSync(cfg, "utf8");
    const seat = await hire(stack.options({ mcpBank: bankOption(b), autoApproveBank: true }));
    assert.is(seat.record.profileConfig ?? null, null);
    assert.is(readFileSync(cfg, "utf8"), before);
    const asked = ownerActionsAsked(seat);
    const d = await seat.deliver('[[sim:call]] ops__echo {"text":"ask"}');
    await waitFor("the owner's pending permission", () => (asked.length > 0 ? true : undefined));
    assert.is(b.bank.calls.length, 0);
    await ownerAnswers(stack, seat, "ops__echo", "n");
    const reply = await d.reply;
    assert.equal(
      reply.toolCalls.map((t) => [t.title, t.status]),
      [["ops__echo", "failed"]],
    );
    assert.is(b.bank.calls.length, 0, "the owner denied: the call never reached the bank");
    await seat.release();
  });
});

test.run();
