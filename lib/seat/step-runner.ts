/**
 * Runs the hire's steps in order and reports each one (`started`, then `proven` or `refused`).
 * A step that throws a lower layer's typed error is refused with that error's stable code; a
 * step is never retried (seed ADR 0224: "Never … replay uncertain input"; issue 8: "Nothing is
 * retried automatically after an uncertain step").
 */
import type { CheckResult } from "../check.js";
import { GrokSeatError } from "../errors.js";
import type { JsonValue } from "../json.js";
import type { HireEvent, HireListener, HireStep } from "./hire-events.js";
import { SeatRefusal } from "./refusal.js";

export interface StepOutcome<T> {
  readonly value: T;
  readonly summary: string;
  readonly checks: readonly CheckResult[];
  readonly facts: JsonValue;
}

export function outcome<T>(
  value: T,
  summary: string,
  checks: readonly CheckResult[] = [],
  facts: JsonValue = null,
): StepOutcome<T> {
  return { value, summary, checks, facts };
}

export class StepRunner {
  readonly #listener: HireListener | undefined;
  readonly #t0: number;
  readonly #signal: AbortSignal | undefined;
  /** Passed checks by step, for the seat record. */
  readonly proofs: Record<string, CheckResult[]> = {};
  /** Duration of every finished step, in ms (for the bench and the record). */
  readonly durations: Partial<Record<HireStep, number>> = {};
  current: HireStep | null = null;
  readonly #reported = new WeakSet<SeatRefusal>();

  constructor(listener: HireListener | undefined, signal: AbortSignal | undefined) {
    this.#listener = listener;
    this.#signal = signal;
    this.#t0 = performance.now();
  }

  elapsed(): number {
    return Math.round((performance.now() - this.#t0) * 1000) / 1000;
  }

  emit(event: HireEvent): void {
    if (this.#listener === undefined) return;
    try {
      this.#listener(event);
    } catch {
      // A listener's bug must not change the outcome of a hire.
    }
  }

  started(step: HireStep): number {
    if (this.#signal?.aborted === true) {
      throw new SeatRefusal({ step, code: "HIRE_ABORTED", reason: "the caller aborted the hire" });
    }
    this.current = step;
    this.emit({ type: "started", step, elapsedMs: this.elapsed() });
    return performance.now();
  }

  proven(step: HireStep, startedAt: number, o: StepOutcome<unknown>): void {
    this.durations[step] = performance.now() - startedAt;
    const kept = this.proofs[step] ?? [];
    kept.push(...o.checks);
    this.proofs[step] = kept;
    this.emit({
      type: "proven",
      step,
      elapsedMs: this.elapsed(),
      summary: o.summary,
      checks: o.checks,
      facts: o.facts,
    });
  }

  async run<T>(step: HireStep, fn: () => Promise<StepOutcome<T>> | StepOutcome<T>): Promise<T> {
    const at = this.started(step);
    let o: StepOutcome<T>;
    try {
      o = await fn();
    } catch (err) {
      throw this.refused(step, err);
    }
    this.proven(step, at, o);
    return o.value;
  }

  /** Turn what a step threw into its refusal (reported once); other errors pass through. */
  refused(step: HireStep, err: unknown): unknown {
    let refusal: SeatRefusal;
    if (err instanceof SeatRefusal) refusal = err;
    else if (err instanceof GrokSeatError) {
      refusal = new SeatRefusal({
        step,
        code: err.code,
        reason: err.message,
        details: { ...err.context },
        cause: err,
      });
    } else return err;
    if (this.#reported.has(refusal)) return refusal;
    this.#reported.add(refusal);
    this.emit({
      type: "refused",
      step,
      elapsedMs: this.elapsed(),
      code: refusal.code,
      check: refusal.check,
      reason: refusal.reason,
      ownerNextStep: refusal.ownerNextStep,
    });
    return refusal;
  }
}
