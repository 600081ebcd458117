/**
 * When may release stop the leader? (ADR 0224 (docs/design/adr-0224.md): "Release closes the controller and only an
 * observed original TUI exit permits stopping its own proven leader"; docs/design/reliability-plan.md §2,
 * T6.) Only when all hold:
 * - we launched it: this process hired the seat and holds the kernel handle taken when the
 *   leader was proven (a record or another process never qualifies) — else NOT_OWNED;
 * - its identity is still proven through that handle: the process is alive and is the very one
 *   we proved — else LEADER_REPLACED (another process serves the seat's socket now),
 *   LEADER_GONE (nothing to stop) or IDENTITY_UNPROVEN (the kernel cannot say);
 * - the original TUI's exit was observed on its bound identity (exit-watch kernel evidence) —
 *   else TUI_ALIVE.
 * Pure: facts in, decision out. Every reason that holds is listed, most fundamental first.
 */
import type { ExitVerdict } from "../observe/pane-exit.js";

export type ReleaseReason =
  | "NOT_OWNED"
  | "LEADER_REPLACED"
  | "LEADER_GONE"
  | "IDENTITY_UNPROVEN"
  | "TUI_ALIVE";

export type LeaderNow =
  /** The handle's process is alive and has the proven identity. */
  | { readonly kind: "proven" }
  /** The handle reports that the proven process exited. */
  | { readonly kind: "exited"; readonly socketServedByOther: boolean }
  /** The kernel could not confirm either way (denied read, handle error). */
  | { readonly kind: "unproven"; readonly code: string };

export interface StopInput {
  /** This process hired the seat and holds the leader's kernel handle. */
  readonly owned: boolean;
  /** The leader as the handle sees it now; null when there is no handle. */
  readonly leader: LeaderNow | null;
  /** The exit watch's verdict when it settled; null while the TUI has not been seen to exit. */
  readonly tuiExit: ExitVerdict | null;
}

export interface StopDecision {
  readonly stop: boolean;
  readonly reasons: readonly ReleaseReason[];
}

export function decideLeaderStop(input: StopInput): StopDecision {
  const reasons: ReleaseReason[] = [];
  if (!input.owned || input.leader === null) reasons.push("NOT_OWNED");
  const leader = input.leader;
  if (leader !== null) {
    if (leader.kind === "exited")
      reasons.push(leader.socketServedByOther ? "LEADER_REPLACED" : "LEADER_GONE");
    else if (leader.kind === "unproven") reasons.push("IDENTITY_UNPROVEN");
  }
  const tui = input.tuiExit;
  if (tui === null || !tui.exited) {
    reasons.push(
      tui !== null && tui.kernel.kind === "unavailable" ? "IDENTITY_UNPROVEN" : "TUI_ALIVE",
    );
  }
  const unique = [...new Set(reasons)];
  return { stop: unique.length === 0, reasons: unique };
}
