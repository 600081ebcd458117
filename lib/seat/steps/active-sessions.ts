/**
 * Step `active_sessions`: `$GROK_HOME/active_sessions.json` must name the original TUI, its
 * session and its cwd (seed ADR 0224: readiness evidence beside the kernel proofs). The TUI
 * writes the entry after `session/new` succeeds (docs/design/grok-leader-protocol.md §8), so its
 * absence is waited for (bounded); an entry that names another pid or cwd refuses at once. It is
 * evidence, never authority: the kernel proofs came first.
 */
import { firstFailure } from "../../check.js";
import { checkActiveSession, readActiveSessions } from "../../grok/active-sessions.js";
import type { ProcessHandle } from "../../kernel/index.js";
import { refuseOnCheck } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";
import { pauseWhileTuiLives, tuiExited } from "./tui-alive.js";

export interface ActiveSessionInput {
  readonly grokHome: string;
  readonly sessionId: string;
  readonly tui: ProcessHandle;
  readonly tuiCwd: string;
  /** For the TUI's entry (default 15 s). */
  readonly timeoutMs?: number | undefined;
  readonly pollMs?: number;
}

export const activeSessions = hireStep("active_sessions", async (input: ActiveSessionInput) => {
  const deadline = performance.now() + (input.timeoutMs ?? 15_000);
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
    if (!input.tui.isAlive()) throw tuiExited("active_sessions", input.tui);
    await pauseWhileTuiLives(input.pollMs ?? 10, input.tui);
  }
});
