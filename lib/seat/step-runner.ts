/**
 * Runs the hire's steps in order and reports each one (`started`, then `proven` or `refused`).
 * A step is a module under lib/seat/steps/ built with `hireStep(name, run)`; hire.ts calls them
 * one by one. A step that throws a lower layer's typed error is refused with that error's stable
 * code; a step is never retried (ADR 0224 (docs/design/adr-0224.md): "Never … replay uncertain input"; issue 8:
 * "Nothing is retried automatically after an uncertain step").
 */
import type { CheckResult } from "../check.js";
import { GrokSeatError } from "../errors.js";
import type { JsonValue } from "../json.js";
import type { KernelPort } from "../kernel/index.js";
import type { DisposeStack } from "./dispose-stack.js";
import type { HireEvent, HireListener, HireStep, OwnerActionWait } from "./hire-events.js";
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

/** What a refused hire leaves for the owner, named in the refusal's details. */
export interface LeftForOwner {
  /** The runtime directory, once the TUI lives in it (before that a refusal removes it). */
  runtimeDir: string | null;
  paneId: string | null;
  tuiPid: number | null;
  leaderPid: number | null;
}

/** What every step may use besides its input. */
export interface StepContext {
  readonly kernel: KernelPort;
  /** Our real uid: the owner every proven file and process must have. */
  readonly uid: number;
  /** Where a step puts what it opened, so a refused hire closes it again. */
  readonly stack: DisposeStack;
  readonly left: LeftForOwner;
  readonly signal: AbortSignal | undefined;
  /** Report that the running step now waits for the owner (a `waiting` progress event). */
  readonly waiting: (wait: OwnerActionWait) => void;
}

/** One hire step: its stable name and its work. */
export interface HireStepDef<I, O> {
  readonly name: HireStep;
  run(input: I, ctx: StepContext): Promise<StepOutcome<O>>;
}

export function hireStep<I, O>(
  name: HireStep,
  run: (input: I, ctx: StepContext) => Promise<StepOutcome<O>> | StepOutcome<O>,
): HireStepDef<I, O> {
  return { name, run: async (input, ctx) => run(input, ctx) };
}

export class StepRunner {
  readonly ctx: StepContext;
  readonly #listener: HireListener | undefined;
  readonly #t0: number;
  /** Passed checks by step, for the seat record. */
  readonly proofs: Record<string, CheckResult[]> = {};
  /** Duration of every finished step, in ms (for the bench and the record). */
  readonly durations: Partial<Record<HireStep, number>> = {};
  current: HireStep | null = null;
  readonly #reported = new WeakSet<SeatRefusal>();

  constructor(listener: HireListener | undefined, ctx: Omit<StepContext, "waiting">) {
    this.#listener = listener;
    this.ctx = {
      ...ctx,
      waiting: (wait) => {
        if (this.current === null) return;
        this.emit({ type: "waiting", step: this.current, elapsedMs: this.elapsed(), ...wait });
      },
    };
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

  /** Run one step: report it started, run it, report it proven; a throw becomes its refusal. */
  async run<I, O>(step: HireStepDef<I, O>, input: I): Promise<O> {
    if (this.ctx.signal?.aborted === true) {
      throw this.refused(
        step.name,
        new SeatRefusal({
          step: step.name,
          code: "HIRE_ABORTED",
          reason: "the caller aborted the hire",
        }),
      );
    }
    this.current = step.name;
    this.emit({ type: "started", step: step.name, elapsedMs: this.elapsed() });
    const at = performance.now();
    let o: StepOutcome<O>;
    try {
      o = await step.run(input, this.ctx);
    } catch (err) {
      throw this.refused(step.name, err);
    }
    this.durations[step.name] = performance.now() - at;
    const kept = this.proofs[step.name] ?? [];
    kept.push(...o.checks);
    this.proofs[step.name] = kept;
    this.emit({
      type: "proven",
      step: step.name,
      elapsedMs: this.elapsed(),
      summary: o.summary,
      checks: o.checks,
      facts: o.facts,
    });
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
