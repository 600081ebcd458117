/**
 * The delivery workload shared by the crash tests: a deterministic plan of prompts with scripted
 * leader behaviours, and the driver that runs it against a journal and a leader link. T1/T3 run it
 * in a separate process against the counting leader over a unix socket (crash-workload.ts); T2
 * runs it in-process against a simulated leader on a simulated file system.
 *
 * The driver is also the recovery: run again after a crash, it reconnects, lets the leader replay
 * its finished results (the `turn_completed` replay of docs/design/grok-leader-protocol.md §4) so late evidence
 * reconciles the original receipts, and skips every prompt id the journal already knows — an
 * uncertain prompt is never sent again.
 */

import { dispatch } from "../../lib/delivery/dispatch.js";
import type { Journal } from "../../lib/delivery/journal.js";
import type { ResultChannel } from "../../lib/delivery/journal-record.js";
import { isTerminal } from "../../lib/delivery/receipt.js";
import { isErrorCode } from "../../lib/errors.js";

/** What the scripted leader does with a prompt. */
export type Behaviour =
  | "complete" // queue entry, then the result on two channels (the second is a duplicate)
  | "hold-cancel" // running; finishes only when we cancel (or when the connection closes)
  | "drop" // read, then the connection is closed before any evidence
  | "fail-send"; // our sender fails before writing: the leader never sees it

export type Step =
  | { readonly kind: "prompt"; readonly id: string; readonly behave: Behaviour }
  | { readonly kind: "compact" };

export const SESSION_ID = "0198c0de-0000-4000-8000-00000000c0de";
export const LEADER_IDENTITY = "linux-pidfs:test-boot:4242";
export const PANE_IDENTITY = "herdr:test-pane";

const CYCLE: readonly Behaviour[] = [
  "complete",
  "hold-cancel",
  "complete",
  "drop",
  "complete",
  "fail-send",
];

/** `n` prompts cycling through the behaviours, with a compaction after every `compactEvery`. */
export function crashPlan(n: number, compactEvery = 4): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < n; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    steps.push({ kind: "prompt", id, behave: CYCLE[i % CYCLE.length] ?? "complete" });
    if ((i + 1) % compactEvery === 0) steps.push({ kind: "compact" });
  }
  return steps;
}

export interface PromptFrame {
  readonly type: "prompt";
  readonly promptId: string;
  readonly sessionId: string;
  readonly epoch: number;
  readonly behave: Behaviour;
  readonly text: string;
}

export type LeaderEvent =
  | {
      readonly type: "consumed";
      readonly promptId: string;
      readonly sessionId: string;
      readonly kind: "queue-entry" | "running-prompt";
    }
  | {
      readonly type: "result";
      readonly promptId: string;
      readonly sessionId: string;
      readonly channel: ResultChannel;
      readonly stopReason: string;
    }
  | { readonly type: "replay-done" }
  | { readonly type: "closed" };

export interface LeaderLink {
  /** Write one prompt frame; resolves once written. */
  send(frame: PromptFrame): Promise<void>;
  sendCancel(promptId: string): Promise<void>;
  /** The next event from the leader, or `closed` (forever, once closed). */
  next(): Promise<LeaderEvent>;
  close(): void;
}

export interface WorkloadHooks {
  /** `dispatch` returned to its caller: the prompt was acknowledged with this state. */
  acked(promptId: string, state: string): void;
  /** A step was refused with a typed error (fail-stop, admission lost). */
  refused(promptId: string, code: string): void;
  /** What a piece of leader evidence did to the journal (applied, reconciled, duplicate, ...). */
  observed?(outcome: string): void;
}

function applyEvent(journal: Journal, ev: LeaderEvent, hooks: WorkloadHooks): void {
  if (ev.type === "consumed") {
    const o = journal.recordConsumption({
      promptId: ev.promptId,
      sessionId: ev.sessionId,
      kind: ev.kind,
    });
    hooks.observed?.(o.outcome);
  } else if (ev.type === "result") {
    const o = journal.recordResult({
      promptId: ev.promptId,
      sessionId: ev.sessionId,
      channel: ev.channel,
      stopReason: ev.stopReason,
    });
    hooks.observed?.(o.outcome);
  }
}

async function connectAndReplay(
  journal: Journal,
  connect: () => Promise<LeaderLink>,
  hooks: WorkloadHooks,
): Promise<LeaderLink> {
  const link = await connect();
  try {
    for (;;) {
      const ev = await link.next();
      if (ev.type === "replay-done" || ev.type === "closed") return link;
      applyEvent(journal, ev, hooks);
    }
  } catch (err) {
    link.close();
    throw err;
  }
}

/** Run (or resume) the plan. Typed delivery errors are reported per step, never thrown. */
export async function driveWorkload(
  journal: Journal,
  plan: readonly Step[],
  connect: () => Promise<LeaderLink>,
  hooks: WorkloadHooks,
): Promise<void> {
  let link: LeaderLink;
  try {
    link = await connectAndReplay(journal, connect, hooks);
  } catch (err) {
    if (!isErrorCode(err)) throw err;
    hooks.refused("connect", err.code);
    return;
  }
  for (const step of plan) {
    if (step.kind === "compact") {
      try {
        journal.compact();
      } catch (err) {
        if (!isErrorCode(err)) throw err;
        hooks.refused("compact", err.code);
      }
      continue;
    }
    // Never resend: a prompt id the journal knows was fenced, whatever became of it.
    if (!journal.failure && journal.isKnownPromptId(step.id)) continue;
    try {
      const receipt = await dispatch(
        journal,
        {
          promptId: step.id,
          sessionId: SESSION_ID,
          leader: LEADER_IDENTITY,
          pane: PANE_IDENTITY,
          text: `brief ${step.id} ✓`,
        },
        async (p) => {
          if (step.behave === "fail-send")
            throw Object.assign(new Error("simulated send failure"), { code: "EPIPE" });
          await link.send({
            type: "prompt",
            promptId: p.promptId,
            sessionId: p.sessionId,
            epoch: p.epoch,
            behave: step.behave,
            text: p.text,
          });
        },
      );
      hooks.acked(step.id, receipt.state);
      if (receipt.state !== "dispatched") continue;
      for (;;) {
        const ev = await link.next();
        if (ev.type === "closed") {
          journal.connectionLost("leader closed the connection");
          link = await connectAndReplay(journal, connect, hooks);
          break;
        }
        applyEvent(journal, ev, hooks);
        if (ev.type === "consumed" && ev.promptId === step.id && step.behave === "hold-cancel") {
          journal.recordCancelSubmitted(step.id, "session-cancel");
          await link.sendCancel(step.id);
        }
        const r = journal.receipt(step.id);
        if (r === undefined || isTerminal(r.state)) break;
      }
    } catch (err) {
      if (!isErrorCode(err)) throw err;
      hooks.refused(step.id, err.code);
    }
  }
  link.close();
}
