/**
 * Thin wiring between ACP evidence and the durable receipt journal (lib/delivery/): the journal
 * decides and fsyncs, this class keeps the live queue picture for cancels and the two promises
 * per delivery, `consumed` and `completed`, named apart because consumption is not awareness
 * (docs/design/decisions.md §4.3).
 */

import type { Journal } from "../delivery/journal.js";
import {
  isConsumed,
  isTerminal,
  type Receipt,
  type RejectionEvidence,
  type ResultEvidence,
} from "../delivery/receipt.js";
import type { GrokSeatError } from "../errors.js";
import { AcpError } from "./acp-error.js";
import type { Evidence, QueueRow } from "./receipt-evidence.js";

export type DeliveryEvent =
  | { readonly type: "consumed"; readonly receipt: Receipt; readonly reconciled: boolean }
  | { readonly type: "completed"; readonly receipt: Receipt; readonly reconciled: boolean }
  | {
      readonly type: "cancelled";
      readonly receipt: Receipt;
      readonly reconciled: boolean;
      /**
       * Whether we asked for it. A cancel we did not ask for is the owner's (Esc, removing the
       * row in the TUI) or Grok's: with `[ui] combine_queued_prompts`, a prompt merged into the
       * queue front resolves `cancelled` although its text runs (docs/design/grok-leader-protocol.md §6).
       */
      readonly requested: boolean;
    }
  | { readonly type: "uncertain"; readonly receipt: Receipt }
  /** Every result channel that echoed one of our prompts (the journal keeps only the first). */
  | { readonly type: "result-echo"; readonly evidence: ResultEvidence }
  | { readonly type: "journal-failed"; readonly error: unknown };

interface Waiter {
  resolve(r: Receipt): void;
  reject(err: GrokSeatError): void;
  readonly promise: Promise<Receipt>;
}

function waiter(): Waiter {
  let resolve: (r: Receipt) => void = () => {};
  let reject: (err: GrokSeatError) => void = () => {};
  const promise = new Promise<Receipt>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers may only await one of the two; an unobserved rejection is not a crash.
  promise.catch(() => {});
  return { resolve, reject, promise };
}

export class DeliveryTracker {
  readonly #journal: Journal;
  readonly #sessionId: string;
  readonly #emit: (event: DeliveryEvent) => void;
  readonly #consumed = new Map<string, Waiter>();
  readonly #completed = new Map<string, Waiter>();
  /** Our queued prompts as the last queue snapshot showed them. */
  readonly #rows = new Map<string, QueueRow>();
  #running: string | null = null;
  /** Answers without a turn that arrived while their receipt was still `fenced` (see below). */
  readonly #notRun = new Set<string>();

  constructor(journal: Journal, sessionId: string, emit: (event: DeliveryEvent) => void) {
    this.#journal = journal;
    this.#sessionId = sessionId;
    this.#emit = emit;
  }

  /** Whether `promptId` is one of our receipts for this session. */
  isOurs(promptId: string): boolean {
    return this.#journal.receipt(promptId)?.sessionId === this.#sessionId;
  }

  receipt(promptId: string): Receipt | undefined {
    return this.#journal.receipt(promptId);
  }

  /** The queue row of one of our queued prompts (for `x.ai/queue/remove`), if queued now. */
  queuedRow(promptId: string): QueueRow | null {
    return this.#rows.get(promptId) ?? null;
  }

  /** The session's running prompt id as last seen (ours or anyone's). */
  get runningPromptId(): string | null {
    return this.#running;
  }

  /** Promises for a freshly dispatched prompt (or an existing receipt). */
  track(promptId: string): { consumed: Promise<Receipt>; completed: Promise<Receipt> } {
    const c = this.#consumed.get(promptId) ?? waiter();
    const f = this.#completed.get(promptId) ?? waiter();
    this.#consumed.set(promptId, c);
    this.#completed.set(promptId, f);
    const now = this.#journal.receipt(promptId);
    if (now !== undefined) this.#settle(now);
    if (this.#notRun.delete(promptId)) this.answeredWithoutTurn(promptId, "end_turn");
    else if (now?.uncertainty?.reason === "answered-without-turn" && now.state === "uncertain") {
      this.#rejectNotRun(now, "end_turn");
    }
    return { consumed: c.promise, completed: f.promise };
  }

  /** A queue snapshot of our session: remember rows and the running id. */
  queueSnapshot(running: string | null, rows: readonly QueueRow[]): void {
    this.#running = running;
    this.#rows.clear();
    for (const row of rows) if (this.isOurs(row.promptId)) this.#rows.set(row.promptId, row);
  }

  /** Record one piece of evidence; evidence for prompts that are not ours is ignored. */
  apply(e: Evidence): void {
    if (!this.isOurs(e.evidence.promptId)) return;
    if (e.kind === "result") this.#emit({ type: "result-echo", evidence: e.evidence });
    let outcome: ReturnType<Journal["recordResult"]>;
    try {
      outcome =
        e.kind === "consumed"
          ? this.#journal.recordConsumption(e.evidence)
          : this.#journal.recordResult(e.evidence);
    } catch (error) {
      this.#emit({ type: "journal-failed", error });
      return;
    }
    const r = outcome.receipt;
    if (r === null) return;
    if (outcome.outcome === "applied" || outcome.outcome === "reconciled") {
      const reconciled = outcome.outcome === "reconciled";
      if (r.state === "completed") this.#emit({ type: "completed", receipt: r, reconciled });
      else if (r.state === "cancelled") {
        this.#emit({
          type: "cancelled",
          receipt: r,
          reconciled,
          requested: r.cancelRequest !== null,
        });
      } else if (r.state === "consumed") this.#emit({ type: "consumed", receipt: r, reconciled });
    }
    this.#settle(r);
  }

  /**
   * Grok answered one of our `session/prompt` requests with a JSON-RPC error: journaled as a
   * refusal (`rejected`) before consumption, as a failed turn (`completed`, emitted) after it.
   * Returns the receipt afterwards, or null when the prompt is not ours or the journal failed.
   */
  rejected(evidence: RejectionEvidence): Receipt | null {
    if (!this.isOurs(evidence.promptId)) return null;
    let outcome: ReturnType<Journal["recordRejection"]>;
    try {
      outcome = this.#journal.recordRejection(evidence);
    } catch (error) {
      this.#emit({ type: "journal-failed", error });
      return null;
    }
    const r = outcome.receipt;
    if (r === null) return null;
    if (outcome.outcome === "applied" && r.state === "completed") {
      this.#emit({ type: "completed", receipt: r, reconciled: false });
    }
    this.#settle(r);
    return r;
  }

  /**
   * Grok answered one of our `session/prompt` requests with a result that echoes neither our
   * session nor our prompt id, before any consumption evidence: it ran no turn. The agent's
   * `prompt` returns a bare `end_turn` at once when `allowed_models` excludes every model or the
   * session's model is unavailable (xai-grok-shell `agent/mvp_agent/acp_agent.rs`). Such an
   * answer is not a result (docs/design/decisions.md §4.2), and no other evidence will come, so
   * the receipt becomes `uncertain` (`answered-without-turn`, never resent) and both promises
   * reject PROMPT_NOT_RUN instead of waiting forever. An answer that beats the dispatched record
   * is applied when the delivery is tracked.
   */
  answeredWithoutTurn(promptId: string, stopReason: string): Receipt | null {
    const before = this.#journal.receipt(promptId);
    if (before === undefined || before.sessionId !== this.#sessionId) return null;
    if (before.state === "fenced") {
      this.#notRun.add(promptId);
      return null;
    }
    if (before.state !== "dispatched") return null;
    let r: Receipt;
    try {
      r = this.#journal.markUncertain(
        promptId,
        "answered-without-turn",
        `session/prompt answered ${stopReason} without echoing our session and prompt id`,
      );
    } catch (error) {
      this.#emit({ type: "journal-failed", error });
      return null;
    }
    this.#emit({ type: "uncertain", receipt: r });
    this.#rejectNotRun(r, stopReason);
    return r;
  }

  #rejectNotRun(r: Receipt, stopReason: string): void {
    const error = new AcpError(
      "PROMPT_NOT_RUN",
      `Grok answered prompt ${r.promptId} without running a turn (as when allowed_models excludes every model)`,
      { details: { promptId: r.promptId, stopReason, receipt: r } },
    );
    for (const waiters of [this.#consumed, this.#completed]) {
      waiters.get(r.promptId)?.reject(error);
      waiters.delete(r.promptId);
    }
  }

  /** The connection ended: receipts without consumption evidence become uncertain. */
  connectionLost(detail: string): void {
    let made: Receipt[] = [];
    try {
      made = this.#journal.connectionLost(detail);
    } catch (error) {
      this.#emit({ type: "journal-failed", error });
    }
    for (const r of made) this.#emit({ type: "uncertain", receipt: r });
    for (const [id, w] of [...this.#consumed, ...this.#completed]) {
      const r = this.#journal.receipt(id);
      const code = r?.state === "uncertain" ? "DELIVERY_UNCERTAIN" : "CONNECTION_CLOSED";
      w.reject(
        new AcpError(code, `the leader connection ended before a result for ${id}`, {
          details: { promptId: id, state: r?.state ?? null },
        }),
      );
    }
    this.#consumed.clear();
    this.#completed.clear();
  }

  #settle(r: Receipt): void {
    const refusal = r.rejection;
    if (r.state === "rejected" && refusal !== null) {
      this.#consumed.get(r.promptId)?.reject(
        new AcpError(
          "PROMPT_REJECTED",
          `Grok refused prompt ${r.promptId}: ${refusal.code} ${refusal.message}`,
          {
            details: {
              promptId: r.promptId,
              code: refusal.code,
              message: refusal.message,
              detail: refusal.detail,
              receipt: r,
            },
          },
        ),
      );
      this.#consumed.delete(r.promptId);
    }
    if (isConsumed(r)) {
      this.#consumed.get(r.promptId)?.resolve(r);
      this.#consumed.delete(r.promptId);
    }
    if (isTerminal(r.state)) {
      this.#completed.get(r.promptId)?.resolve(r);
      this.#completed.delete(r.promptId);
      this.#rows.delete(r.promptId);
    }
  }
}
