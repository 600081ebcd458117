/**
 * Step `active_sessions`: `$GROK_HOME/active_sessions.json` must name the original TUI, its
 * session and its cwd (ADR 0224 (docs/design/adr-0224.md): readiness evidence beside the kernel proofs). The TUI
 * writes the entry after `session/new` (or a resume's `session/load`) succeeds
 * (docs/design/grok-leader-protocol.md §8), and creates the session only once the owner has
 * passed its startup screens (sign-in, consent, folder trust: lib/grok/owner-gates.ts). So the
 * entry's absence is waited for; an entry that names another pid or cwd refuses at once.
 *
 * The wait is the owner's: when preflight predicted a screen, or the entry is still missing after
 * `timeoutMs` (a screen nothing predicted, or a resume still loading a large session), the step reports `waiting` with the likely gate, the pane and the owner's step,
 * and waits up to `ownerMs` more (OWNER_GATE_TIMEOUT naming the gate); a TUI that exits meanwhile
 * refuses TUI_EXITED. The seat never answers a screen. It is evidence, never authority: the
 * kernel proofs came first. docs/design/decisions.md §12.2.
 */
import { firstFailure } from "../../check.js";
import { checkActiveSession, readActiveSessions } from "../../grok/active-sessions.js";
import {
  type OwnerGate,
  type OwnerGatePrediction,
  ownerStepForGate,
} from "../../grok/owner-gates.js";
import type { ProcessHandle } from "../../kernel/index.js";
import { refuseOnCheck, SeatRefusal } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";
import { watchDir } from "./dir-wake.js";
import { tuiExited } from "./tui-alive.js";

/** The owner's bound on a startup screen (issue 13: minutes, not seconds). */
export const DEFAULT_OWNER_MS = 10 * 60_000;

export interface ActiveSessionInput {
  readonly grokHome: string;
  readonly sessionId: string;
  readonly tui: ProcessHandle;
  readonly tuiCwd: string;
  readonly paneId: string;
  /** A `--resume` launch: the TUI loads the whole session first (minutes for a large one). */
  readonly resuming?: boolean;
  /** The screens preflight predicted (null: none known, e.g. for a focused caller). */
  readonly gates: OwnerGatePrediction | null;
  /** For the TUI's entry when no owner screen is expected (default 15 s). */
  readonly timeoutMs?: number | undefined;
  /** For the owner once a screen is expected or suspected (default 10 min). */
  readonly ownerMs?: number | undefined;
  readonly pollMs?: number;
}

export const activeSessions = hireStep(
  "active_sessions",
  async (input: ActiveSessionInput, ctx) => {
    const start = performance.now();
    const sessionMs = input.timeoutMs ?? 15_000;
    const ownerMs = input.ownerMs ?? DEFAULT_OWNER_MS;
    const expected = { sessionId: input.sessionId, tuiPid: input.tui.pid, tuiCwd: input.tuiCwd };
    // A holder, so the narrowing of one read never leaks past the closure that sets it.
    const wait: {
      owner: { readonly gate: OwnerGate; readonly at: number; readonly step: string } | null;
    } = { owner: null };
    const announce = (gate: OwnerGate): void => {
      const step = ownerStepForGate(gate, input.paneId, input.gates, input.resuming === true);
      wait.owner = { gate, at: performance.now(), step };
      ctx.waiting({
        kind: "owner_action",
        gate,
        paneId: input.paneId,
        ownerStep: step,
        timeoutMs: ownerMs,
      });
    };
    // GROK_HOME is where the TUI writes the file: look again when it changes (dir-wake.ts).
    const dir = watchDir(input.grokHome, input.pollMs ?? 10);
    try {
      for (;;) {
        const read = await readActiveSessions(input.grokHome);
        const checks = checkActiveSession(read, expected);
        const failed = firstFailure(checks);
        if (failed === undefined && read.status === "ok") {
          const id = input.sessionId.toLowerCase();
          const entry = read.entries.find((e) => e.session_id.toLowerCase() === id);
          if (entry !== undefined) {
            const owner = wait.owner;
            const waited: { gate: OwnerGate; waitedMs: number } | null =
              owner === null
                ? null
                : { gate: owner.gate, waitedMs: Math.round(performance.now() - owner.at) };
            return outcome(
              entry,
              `active_sessions.json names session ${entry.session_id} for TUI pid ${entry.pid} in ${entry.cwd}${waited === null ? "" : ` (after the owner's ${waited.gate} screen)`}`,
              checks,
              { ...entry, ownerAction: waited },
            );
          }
        }
        // Waiting makes sense only while our entry is not there yet (or the file is mid-write).
        const waiting =
          failed !== undefined &&
          (failed.check === "active_sessions.readable" ||
            (failed.check === "active_sessions.entry" && failed.received === 0));
        if (failed !== undefined && !waiting) {
          throw refuseOnCheck("active_sessions", "ACTIVE_SESSION_UNPROVEN", failed, {
            path: read.path,
          });
        }
        if (!input.tui.isAlive()) throw tuiExited("active_sessions", input.tui);
        if (ctx.signal?.aborted === true) {
          throw new SeatRefusal({
            step: "active_sessions",
            code: "HIRE_ABORTED",
            reason: "the caller aborted the hire",
          });
        }
        const now = performance.now();
        const owner = wait.owner;
        if (owner === null) {
          const likely = input.gates?.expected[0];
          if (likely !== undefined) announce(likely);
          else if (now - start >= sessionMs) announce("unknown");
        } else if (now - owner.at >= ownerMs) {
          const o = owner;
          throw new SeatRefusal({
            step: "active_sessions",
            code: "OWNER_GATE_TIMEOUT",
            check: "active_sessions.owner_gate",
            reason: `the TUI created no session within ${ownerMs} ms of waiting for the owner (likely screen: ${o.gate})`,
            ownerNextStep: `${o.step.replace(/; the seat waits\.$/, ".")} Then hire again (timeouts.ownerMs gives more time).`,
            details: {
              gate: o.gate,
              paneId: input.paneId,
              ownerMs,
              path: read.path,
              expectedGates: input.gates === null ? null : [...input.gates.expected],
            },
          });
        }
        await dir.pause(input.tui);
      }
    } finally {
      dir.close();
    }
  },
);
