/**
 * Step `session_id`: the Grok session the TUI opens. A fresh launch is always a new chat with a
 * new UUID (lib/seat/policy.ts); an admitted resume names the original one.
 */
import type { LaunchMode } from "../policy.js";
import { hireStep, outcome } from "../step-runner.js";

export const sessionId = hireStep("session_id", (mode: LaunchMode) =>
  outcome(
    mode.sessionId,
    mode.kind === "fresh"
      ? `fresh chat: new session ${mode.sessionId}`
      : `resume of session ${mode.sessionId}`,
    [],
    { sessionId: mode.sessionId, mode: mode.kind },
  ),
);
