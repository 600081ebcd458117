/**
 * Shared pieces of the tests that run against the Herdr simulator (test/helpers/herdr-sim.ts):
 * launching a plain pane, binding it, playing the Grok hook on the socket, and `ps` as the
 * independent oracle for the terminal.
 */
import { execFileSync } from "node:child_process";
import type { CheckResult } from "../../lib/check.js";
import { HerdrClient } from "../../lib/herdr/client.js";
import { type LaunchResult, launchPane } from "../../lib/herdr/launch.js";
import { processFacts, systemKernel } from "../../lib/kernel/index.js";
import { bindPane } from "../../lib/observe/pane.js";
import type { PaneProofRecord } from "../../lib/proof/pane.js";
import { rawRequest } from "../helpers/herdr-sim.js";

export function failedNames(checks: readonly CheckResult[]): string[] {
  return checks.filter((c) => !c.ok).map((c) => c.check);
}

/** The refusal code the `pane.agent` check carries in `received.reason`. */
export function agentReason(checks: readonly CheckResult[]): unknown {
  const c = checks.find((x) => x.check === "pane.agent");
  const r = c?.received;
  return typeof r === "object" && r !== null && !Array.isArray(r) ? r.reason : undefined;
}

/** The terminal `ps` reports for a pid, as a device path (`pts/3` -> `/dev/pts/3`). */
export function psTty(pid: number): string | null {
  const tty = execFileSync("ps", ["-o", "tty=", "-p", String(pid)], { encoding: "utf8" }).trim();
  return tty === "" || tty === "?" ? null : `/dev/${tty}`;
}

/** Send a report as an agent hook would (one request per connection); the reply must be ok. */
export async function reportAs(socketPath: string, method: string, params: object): Promise<void> {
  const id = `hook-${Math.random().toString(36).slice(2)}`;
  const reply = await rawRequest(socketPath, JSON.stringify({ id, method, params }));
  if (!reply.includes('"type":"ok"')) throw new Error(`${method} was not ok: ${reply}`);
}

export interface BoundPane {
  readonly launch: LaunchResult;
  readonly record: PaneProofRecord;
}

/** Launch `sleep 600` (detected as grok through the HERDR_AGENT hint) and bind it. */
export async function launchAndBind(
  client: HerdrClient,
  sessionName: string,
  options: { nativeSessionId?: string | null; expectedAgent?: string | null; argv?: string[] } = {},
): Promise<BoundPane> {
  const launch = await launchPane(client, {
    argv: options.argv ?? ["sleep", "600"],
    label: "grok leader",
    env: { HERDR_AGENT: "grok" },
    target: { newWorkspace: { label: "seat" } },
  });
  const bound = await bindPane(client, systemKernel, {
    paneId: launch.paneId,
    launch: { argv: launch.argv, cwd: launch.cwd },
    sessionName,
    nativeSessionId: options.nativeSessionId ?? null,
    expectedAgent: options.expectedAgent === undefined ? "grok" : options.expectedAgent,
    agentTimeoutMs: 10_000,
  });
  if (bound.record === null) {
    throw new Error(`bind failed: ${JSON.stringify(bound.checks.filter((c) => !c.ok))}`);
  }
  return { launch, record: bound.record };
}

export function newClient(socketPath: string): HerdrClient {
  return new HerdrClient({ socketPath, timeoutMs: 5000 });
}

export function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Poll until the kernel no longer reports a live process for `pid` (gone or a zombie). */
export async function waitGone(pid: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      processFacts(pid);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`pid ${pid} still alive after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
