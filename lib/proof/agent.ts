/**
 * The agent part of the pane proof as checks (`pane.agent`, `pane.native_session`), built from the
 * pure reconciler in `lib/proof/agent-reconcile.ts`. The refusal code is both the start of the
 * check's `reason` and the `reason` field of `received`, so callers branch on it without parsing.
 */
import { type CheckResult, fail, pass } from "../check.js";
import type { JsonValue } from "../json.js";
import {
  type AgentObservation,
  type AgentVerdict,
  observedNativeSession,
} from "./agent-reconcile.js";

/**
 * `pane.agent`: passes on an accepted verdict. Without an agent claim (`expectedAgent` null) a
 * pane with no agent yet is consistent (golden G1); every other refusal fails by name.
 */
export function agentCheck(verdict: AgentVerdict, expectedAgent: string | null): CheckResult {
  const received: JsonValue = { ...verdict };
  if (verdict.ok) return pass("pane.agent", "accepted", received);
  if (verdict.reason === "agent_absent" && expectedAgent === null) {
    return pass("pane.agent", "accepted or absent", received);
  }
  return fail("pane.agent", "accepted", received, `${verdict.reason}: ${verdict.detail}`);
}

/** `pane.native_session`: `agent_session.value` (kind "id") equals ours whenever present. */
export function nativeSessionCheck(
  pane: AgentObservation["pane"],
  bound: string | null,
): CheckResult {
  const seen = observedNativeSession(pane);
  const expected = bound ?? "any or absent";
  if (seen.kind === "absent") return pass("pane.native_session", expected, "absent");
  if (seen.kind === "unreadable") {
    return fail("pane.native_session", expected, { unreadable: seen.reason }, seen.reason);
  }
  if (bound === null || seen.value === bound)
    return pass("pane.native_session", expected, seen.value);
  return fail("pane.native_session", bound, seen.value, "Herdr reports another native session");
}

/**
 * True when the only failed checks are a retryable `pane.agent` verdict (Herdr has not identified
 * the agent yet, e.g. `agent_absent` inside its detection delay): worth another look, not a
 * refusal. Any other failed check, or none, is false.
 */
export function onlyAgentRetryable(checks: readonly CheckResult[]): boolean {
  const failed = checks.filter((c) => !c.ok);
  return (
    failed.length > 0 &&
    failed.every((c) => {
      const r = c.received;
      return (
        c.check === "pane.agent" &&
        typeof r === "object" &&
        r !== null &&
        !Array.isArray(r) &&
        r.retryable === true
      );
    })
  );
}
