/**
 * Seat policy (ADR 0224 (docs/design/adr-0224.md), `clankie seat --harness grok`): "Fresh launches create separate
 * chats; resume requires the original profile, UUID and conversation plus a confirmed prior
 * exit. … Worker saved-history resume is refused without a live original controller."
 *
 * - A fresh launch always gets a new UUID (`--session-id`), never a caller's: a new chat.
 * - A resume names the original session with `--resume <uuid>` in the original cwd and profile,
 *   and is admitted only when every `resume.*` check below passes. Pure: facts in, checks out;
 *   the I/O that gathers the facts is `resume.ts`.
 */
import { randomUUID } from "node:crypto";
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import type { SeatRecord } from "./seat-record.js";

export type LaunchMode =
  | { readonly kind: "fresh"; readonly sessionId: string }
  | { readonly kind: "resume"; readonly sessionId: string; readonly record: SeatRecord };

/** A fresh chat: a new random UUID (v4), lowercase as grok stores it. */
export function freshSessionId(): string {
  return randomUUID();
}

/**
 * The TUI's argv: `grok --leader --leader-socket <dir>/leader.sock` and either
 * `--session-id <uuid>` (a new session with that id, `pager/app/cli.rs`) or `--resume <uuid>`.
 * The executable is the canonical path preflight resolved, so the kernel's view matches it.
 * A fresh launch with a persona ends with its `--rules=<text>` element (persona.ts); a resume
 * passes none (Grok applies rules at session creation only, docs/design/grok-leader-protocol.md).
 */
export function tuiArgv(
  grok: string,
  socketPath: string,
  mode: LaunchMode,
  rules: string | null = null,
): string[] {
  const base = [grok, "--leader", "--leader-socket", socketPath];
  return mode.kind === "fresh"
    ? [...base, "--session-id", mode.sessionId, ...(rules === null ? [] : [rules])]
    : [...base, "--resume", mode.sessionId];
}

/**
 * Where a seat's fence journal and admission lock live: its own runtime directory, or for a
 * resume the original seat's (seat-record.ts `journalDir`), so its receipts stay reconcilable and
 * its prompt ids stay refused as duplicates.
 */
export function journalDirOf(mode: LaunchMode, runtimeDir: string): string {
  return mode.kind === "resume" ? (mode.record.journalDir ?? mode.record.runtimeDir) : runtimeDir;
}

/** Who asks to resume: the controller that hired the seat, or a worker of a bridge. */
export type Requester = "controller" | "worker";

export interface ResumeRequest {
  readonly record: SeatRecord;
  /** The GROK_HOME the resume would run with (canonical). */
  readonly grokHome: string;
  readonly sessionId: string;
  readonly conversationId: string;
  readonly requester: Requester;
}

export interface ResumeFacts {
  /** Whether the original controller still holds the seat (live in its registry). */
  readonly originalControllerLive: boolean;
  /** A fresh kernel read of the original TUI pid: still that very process, or not. */
  readonly originalTuiNow: "same_process" | "gone" | "unreadable";
}

export function checkResume(req: ResumeRequest, facts: ResumeFacts): CheckResult[] {
  const r = req.record;
  const checks: CheckResult[] = [
    expectEqual(
      "resume.profile",
      r.profile.grokHome,
      req.grokHome,
      "resume must use the original profile (GROK_HOME)",
    ),
    expectEqual(
      "resume.session_id",
      r.sessionId,
      req.sessionId,
      "resume must name the original session UUID",
    ),
    r.conversationId === null
      ? fail(
          "resume.conversation_id",
          "the recorded conversation",
          req.conversationId,
          "the seat recorded no conversation id",
        )
      : expectEqual(
          "resume.conversation_id",
          r.conversationId,
          req.conversationId,
          "resume must name the original conversation",
        ),
  ];
  const exit = r.release;
  checks.push(
    exit?.tuiExitObserved === true
      ? pass("resume.prior_exit", "the original TUI's exit observed", exit.at)
      : fail(
          "resume.prior_exit",
          "the original TUI's exit observed",
          exit === null ? "not released" : "exit not observed",
          "no confirmed exit of the original TUI is recorded",
        ),
  );
  checks.push(
    facts.originalTuiNow === "gone"
      ? pass("resume.tui_gone", "gone", "gone")
      : fail(
          "resume.tui_gone",
          "gone",
          facts.originalTuiNow,
          facts.originalTuiNow === "same_process"
            ? "the original TUI is still running"
            : "the kernel cannot say whether the original TUI is gone",
        ),
  );
  if (req.requester === "worker") {
    // A worker resumes saved history only through the live controller that hired the seat.
    checks.push(
      facts.originalControllerLive
        ? pass("resume.controller_live", true, true)
        : fail(
            "resume.controller_live",
            true,
            false,
            "a worker cannot resume saved history without the live original controller",
          ),
    );
  }
  return checks;
}
