/**
 * Readiness evidence beside the kernel proofs (seed ADR 0224):
 * - `active_sessions.json` must name the original TUI, its session and its cwd. The TUI writes
 *   the entry after `session/new` succeeds (grok-leader-protocol.md §8), so its absence is
 *   waited for (bounded); an entry that names another pid or cwd refuses at once. It is evidence,
 *   never authority: the kernel proofs came first.
 * - Herdr agent reconciliation: a fresh look at the bound pane must still pass every pane check,
 *   and Herdr's agent must be `grok` (accepting the nested agent only when the top-level one is
 *   absent, Herdr 0.9.3) with, when present, our native session id. `agent_absent` is waited for
 *   (detection comes some time after launch, golden G1); every other verdict refuses by name.
 */
import { firstFailure } from "../check.js";
import {
  type ActiveSession,
  checkActiveSession,
  readActiveSessions,
} from "../grok/active-sessions.js";
import type { HerdrClient } from "../herdr/client.js";
import type { JsonValue } from "../json.js";
import type { KernelPort, ProcessHandle } from "../kernel/index.js";
import { observeBoundPane } from "../observe/pane.js";
import { onlyAgentRetryable } from "../proof/agent.js";
import type { AgentVerdict } from "../proof/agent-reconcile.js";
import { checkPaneProof, type PaneProofRecord, paneAgentVerdict } from "../proof/pane.js";
import { refuseOnCheck, SeatRefusal } from "./refusal.js";
import { outcome, type StepOutcome } from "./step-runner.js";

function sleep(ms: number, tui: ProcessHandle): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    void tui.exited.then(
      () => {
        clearTimeout(t);
        resolve();
      },
      () => {},
    );
  });
}

function tuiGone(step: "active_sessions" | "agent", tui: ProcessHandle): SeatRefusal {
  return new SeatRefusal({
    step,
    code: "TUI_EXITED",
    check: `${step}.tui_alive`,
    reason: `the TUI (pid ${tui.pid}) exited during the hire`,
  });
}

export interface ActiveSessionInput {
  readonly grokHome: string;
  readonly sessionId: string;
  readonly tui: ProcessHandle;
  readonly tuiCwd: string;
  readonly timeoutMs: number;
  readonly pollMs?: number;
}

export async function activeSessionStep(
  input: ActiveSessionInput,
): Promise<StepOutcome<ActiveSession>> {
  const deadline = performance.now() + input.timeoutMs;
  const expected = { sessionId: input.sessionId, tuiPid: input.tui.pid, tuiCwd: input.tuiCwd };
  for (;;) {
    const read = await readActiveSessions(input.grokHome);
    const checks = checkActiveSession(read, expected);
    const failed = firstFailure(checks);
    if (failed === undefined && read.status === "ok") {
      const id = input.sessionId.toLowerCase();
      const entry = read.entries.find((e) => e.session_id.toLowerCase() === id);
      if (entry !== undefined) {
        return outcome(
          entry,
          `active_sessions.json names session ${entry.session_id} for TUI pid ${entry.pid} in ${entry.cwd}`,
          checks,
          { ...entry },
        );
      }
    }
    // Waiting makes sense only while our entry is not there yet (or the file is mid-write).
    const waiting =
      failed !== undefined &&
      (failed.check === "active_sessions.readable" ||
        (failed.check === "active_sessions.entry" && failed.received === 0));
    if (failed !== undefined && (!waiting || performance.now() >= deadline)) {
      throw refuseOnCheck("active_sessions", "ACTIVE_SESSION_UNPROVEN", failed, {
        path: read.path,
      });
    }
    if (!input.tui.isAlive()) throw tuiGone("active_sessions", input.tui);
    await sleep(input.pollMs ?? 10, input.tui);
  }
}

export interface AgentInput {
  readonly herdr: HerdrClient;
  readonly kernel: KernelPort;
  /** The pane record with the agent claim (`expectedAgent: "grok"`, our session id). */
  readonly record: PaneProofRecord;
  readonly tui: ProcessHandle;
  readonly timeoutMs: number;
  readonly pollMs?: number;
}

export async function agentStep(input: AgentInput): Promise<StepOutcome<AgentVerdict>> {
  const deadline = performance.now() + input.timeoutMs;
  for (;;) {
    const obs = await observeBoundPane(input.herdr, input.kernel, input.record);
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
    if (!input.tui.isAlive()) throw tuiGone("agent", input.tui);
    await sleep(input.pollMs ?? 20, input.tui);
  }
}
