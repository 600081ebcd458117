/**
 * Step `agent`: Herdr agent reconciliation. A fresh look at the bound pane must still pass every
 * pane check, and Herdr's agent must be `grok` (the nested agent accepted only when the top-level
 * one is absent, Herdr 0.9.3) with, when present, our native session id (lib/proof/agent.ts).
 * `agent_absent` is waited for (detection comes some time after launch, golden G1); every other
 * verdict refuses by name.
 */
import { firstFailure } from "../../check.js";
import type { HerdrClient } from "../../herdr/client.js";
import type { JsonValue } from "../../json.js";
import type { ProcessHandle } from "../../kernel/index.js";
import { observeBoundPane } from "../../observe/pane.js";
import { onlyAgentRetryable } from "../../proof/agent.js";
import { checkPaneProof, type PaneProofRecord, paneAgentVerdict } from "../../proof/pane.js";
import { refuseOnCheck } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";
import { pauseWhileTuiLives, tuiExited } from "./tui-alive.js";

export interface AgentInput {
  readonly herdr: HerdrClient;
  /** The pane record with the agent claim (`expectedAgent: "grok"`, our session id). */
  readonly record: PaneProofRecord;
  readonly tui: ProcessHandle;
  /** For Herdr to identify the agent (default 10 s). */
  readonly timeoutMs?: number | undefined;
  readonly pollMs?: number;
}

export const agent = hireStep("agent", async (input: AgentInput, ctx) => {
  const deadline = performance.now() + (input.timeoutMs ?? 10_000);
  for (;;) {
    const obs = await observeBoundPane(input.herdr, ctx.kernel, input.record);
    const checks = checkPaneProof(input.record, obs);
    const verdict = paneAgentVerdict(input.record, obs);
    const failed = firstFailure(checks);
    if (failed === undefined && verdict !== null && verdict.ok) {
      const facts: JsonValue = { ...verdict };
      return outcome(
        verdict,
        `Herdr names the pane's agent ${verdict.agent} (from ${verdict.agentFrom})${verdict.nativeSessionId === null ? "" : `, session ${verdict.nativeSessionId}`}`,
        checks,
        facts,
      );
    }
    if (failed !== undefined && (!onlyAgentRetryable(checks) || performance.now() >= deadline)) {
      const code =
        failed.check === "pane.agent" || failed.check === "pane.native_session"
          ? "HERDR_AGENT_REFUSED"
          : "PANE_UNPROVEN";
      throw refuseOnCheck("agent", code, failed, { paneId: input.record.pane.paneId });
    }
    if (!input.tui.isAlive()) throw tuiExited("agent", input.tui);
    await pauseWhileTuiLives(input.pollMs ?? 20, input.tui);
  }
});
