/**
 * Step `mcp_bank` (only with a bank; issue 14): Grok is connected to the seat's projecting proxy
 * and offers the bank's tools. With the owner's profile the server is first added to the live
 * session with `x.ai/session/update_mcp_servers` (extensions/session_admin.rs: answered once the
 * new server finished its handshake) — in memory only, lost when the TUI next loads the session;
 * with a temporary profile its config.toml named it before launch. Then `x.ai/mcp/list` must list
 * our server with `session.status == "ready"` and every tool Grok can register from what the proxy
 * lists (lib/grok/mcp-names.ts), polled until ready (bounded). A `-32601` refuses
 * EXTENSION_UNSUPPORTED naming the agent's version.
 */
import { setTimeout as sleep } from "node:timers/promises";
import * as v from "valibot";
import type { AcpSession } from "../../acp/acp-session.js";
import { type CheckResult, fail, firstFailure, pass } from "../../check.js";
import { registeredToolName } from "../../grok/mcp-names.js";
import { refuseOnCheck } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";
import { callExtension } from "./extension-call.js";

/** lib/mcp is loaded only lazily by the seat (docs/design/layers.md §3), types included. */
export type BankProxy = import("../../mcp/bank-proxy.js").BankProxy;

export interface McpBankInput {
  readonly session: AcpSession;
  readonly name: string;
  readonly proxy: BankProxy;
  /** `profile`: configured in the temporary profile; `session`: added to the live session. */
  readonly scope: "profile" | "session";
  readonly agentVersion: string | null;
  readonly timeoutMs: number;
}

/** A row's McpServerSessionState: `status` and the live client's `tools` (extensions/mcp.rs). */
const Row = v.looseObject({
  name: v.string(),
  session: v.optional(
    v.looseObject({
      status: v.optional(v.string()),
      tools: v.optional(v.array(v.looseObject({ name: v.string() }))),
    }),
  ),
});

/** The bank as the seat record keeps it (never a token). */
export interface ProvenBank {
  readonly name: string;
  readonly proxy: string;
  readonly scope: "profile" | "session";
  readonly tools: string[];
  readonly toolsDigest: string;
}

/** The proxy's tools Grok can register under `name` (what the catalog and this step expect). */
export function bankToolNames(proxy: BankProxy, name: string): string[] {
  return proxy
    .listed()
    .filter((t) => registeredToolName(name, t.name, t.meta) !== null)
    .map((t) => t.name);
}

export const mcpBank = hireStep("mcp_bank", async (input: McpBankInput, ctx) => {
  const { proxy, name } = input;
  if (input.scope === "session") {
    await callExtension("mcp_bank", "x.ai/session/update_mcp_servers", input.agentVersion, () =>
      input.session.updateMcpServers([
        {
          type: "http",
          name,
          url: proxy.url.href,
          headers: [{ name: "Authorization", value: `Bearer ${proxy.bearerToken}` }],
        },
      ]),
    );
  }
  const expected = bankToolNames(proxy, name);
  const deadline = performance.now() + input.timeoutMs;
  let checks: CheckResult[];
  for (;;) {
    const list = await input.session.mcpServers();
    const row = list.servers
      .map((s) => v.safeParse(Row, s))
      .find((r) => r.success && r.output.name === name);
    const status = row?.success === true ? (row.output.session?.status ?? null) : null;
    const tools = row?.success === true ? (row.output.session?.tools ?? []).map((t) => t.name) : [];
    const missing = expected.filter((t) => !tools.includes(t));
    checks = [
      status === "ready"
        ? pass("mcp_bank.ready", { name, status: "ready" }, { name, status })
        : fail(
            "mcp_bank.ready",
            { name, status: "ready" },
            { name, status },
            row === undefined
              ? `x.ai/mcp/list has no server ${name}`
              : `server ${name} is ${status ?? "without a status"}`,
          ),
      missing.length === 0
        ? pass("mcp_bank.tools", expected, tools)
        : fail("mcp_bank.tools", expected, tools, `Grok does not list ${missing.join(", ")}`),
    ];
    if (checks.every((c) => c.ok) || performance.now() >= deadline) break;
    await sleep(50, undefined, ctx.signal === undefined ? {} : { signal: ctx.signal });
  }
  const failed = firstFailure(checks);
  if (failed !== undefined) {
    throw refuseOnCheck("mcp_bank", "BANK_NOT_READY", failed, { proxy: proxy.url.href });
  }
  const proven: ProvenBank = {
    name,
    proxy: proxy.url.href,
    scope: input.scope,
    tools: [...expected],
    toolsDigest: proxy.toolsDigest(),
  };
  return outcome<ProvenBank>(
    proven,
    `Grok lists bank ${name} ready through the seat's proxy at ${proxy.url.href} (${expected.length} tools${input.scope === "session" ? "; added to the live session, in memory only" : ""})`,
    checks,
    { ...proven, tools: [...expected] },
  );
});
