/**
 * The shape every hostile-input decoder claim (docs/design/reliability-plan.md §6 T7) shares: property tests
 * whose failures are counted, then one last test that measures memory, records the claim
 * (test/helpers/claims.ts) and asserts that it held. A claim spans several uvu tests, so a failed
 * property still fails its own test and also makes the claim say it did not hold.
 */
import type { Test } from "uvu";
import * as assert from "uvu/assert";
import { seeds } from "../reliability/lib/fuzz.js";
import {
  describePeaks,
  type MemoryPeaks,
  MemoryProbe,
  MiB,
  mib,
  peakCounts,
  withinCaps,
} from "../reliability/lib/memory.js";
import { Tally } from "../reliability/lib/outcomes.js";
import { recordClaim } from "./claims.js";

/** Property tests whose failures the claim counts. */
export class GuardedTests {
  readonly #suite: Test;
  #failures = 0;
  /** When the suite started (the claim's duration) and the probe of its whole run. */
  readonly started: number;
  readonly memory: MemoryProbe;

  constructor(suite: Test, run: { readonly started: number; readonly memory: MemoryProbe }) {
    this.#suite = suite;
    this.started = run.started;
    this.memory = run.memory;
  }

  get failures(): number {
    return this.#failures;
  }

  /** A uvu test whose failure is counted for the claim (and still fails the test). */
  readonly test = (name: string, body: () => void | Promise<void>): void => {
    this.#suite(name, async () => {
      try {
        await body();
      } catch (err) {
        this.#failures++;
        throw err;
      }
    });
  };
}

/** The memory figures a claim sentence quotes. */
export interface ClaimMemory {
  readonly peaks: MemoryPeaks;
  readonly describe: string;
  /** Peak heapUsed of the deep-nesting cases; -1 when they did not run (the claim cannot hold). */
  readonly deepHeap: number;
  /** `+N MiB (cap M MiB)` for the deep-nesting cases. */
  readonly deepHeapText: string;
}

export interface DecoderClaim {
  readonly title: string;
  readonly method: string;
  /** The deep-nesting cases' own probe (null when they did not run) and their heapUsed cap. */
  readonly deep?: { readonly probe: MemoryProbe | null; readonly cap: number };
  /** The outcome tally: untyped throws and undocumented codes are violations. */
  readonly outcome: { readonly violations: number; problems(): string };
  /** The claim's own counts; the memory figures are appended. */
  readonly counts: (m: ClaimMemory) => Record<string, number>;
  readonly sentence: (m: ClaimMemory) => string;
}

/** Register the closing `claim: <id>` test: record the claim, then assert it held. */
export function claimTest(
  suite: Test,
  guard: GuardedTests,
  id: string,
  claim: () => DecoderClaim,
): void {
  suite(`claim: ${id}`, () => {
    const c = claim();
    const peaks = guard.memory.peaks();
    const deepHeap = c.deep === undefined ? -1 : (c.deep.probe?.peaks().heapUsed ?? -1);
    const memoryOk =
      withinCaps(peaks) && (c.deep === undefined || (deepHeap >= 0 && deepHeap < c.deep.cap));
    const held = guard.failures === 0 && c.outcome.violations === 0 && memoryOk;
    const m: ClaimMemory = {
      peaks,
      describe: describePeaks(peaks),
      deepHeap,
      deepHeapText: `+${mib(deepHeap)} MiB (cap ${mib(c.deep?.cap ?? 0)} MiB)`,
    };
    recordClaim(
      {
        id,
        title: c.title,
        claim: c.sentence(m),
        counts: {
          ...c.counts(m),
          ...peakCounts(peaks),
          ...(c.deep === undefined ? {} : { deepCasesPeakHeapUsedBytes: deepHeap }),
        },
        held,
        seeds,
        method: c.method,
      },
      guard.started,
    );
    assert.is(c.outcome.violations, 0, c.outcome.problems());
    const memoryFigures = c.deep === undefined ? peaks : { ...peaks, deepHeap };
    assert.ok(memoryOk, `memory over cap: ${JSON.stringify(memoryFigures)}`);
    assert.is(guard.failures, 0, "every property above held");
  });
}

/** The heapUsed cap of the deep-nesting (10^6-deep) JSON edge cases. */
const DEEP_HEAP_CAP = 512 * MiB;

/** What a `DecoderRun` claim states; the tally and counts are the run's unless given. */
export type RunClaim = Omit<DecoderClaim, "deep" | "counts" | "outcome"> &
  Partial<Pick<DecoderClaim, "counts" | "outcome">>;

/**
 * One decoder claim's run: the outcome tally of its documented codes, the memory probe of the
 * whole suite, the claim's own counts, the counted property tests (`run.test`) and, when the
 * suite has deep-nesting edge cases, their own heap probe. `claim` closes the suite.
 */
export class DecoderRun<C extends Record<string, number>> extends GuardedTests {
  readonly tally: Tally;
  readonly counts: C;
  readonly #suite: Test;
  readonly #deepCases: boolean;
  #deepProbe: MemoryProbe | null = null;

  constructor(
    suite: Test,
    decoder: string,
    codes: readonly string[],
    counts: C,
    options: { readonly deepCases?: boolean } = {},
  ) {
    const started = Date.now();
    const tally = new Tally(decoder, codes);
    super(suite, { started, memory: new MemoryProbe() });
    this.#suite = suite;
    this.tally = tally;
    this.counts = counts;
    this.#deepCases = options.deepCases ?? false;
  }

  /**
   * The deep edge cases measure their own heap: stop the suite's probe (their allocation would
   * swamp its peaks) and start theirs, whose peak the claim compares with its cap.
   */
  deepCasesProbe(): MemoryProbe {
    this.memory.stop();
    const probe = new MemoryProbe();
    this.#deepProbe = probe;
    return probe;
  }

  /** Register the closing `claim: <id>` test (`claimTest`) with the run's tally and counts. */
  claim(id: string, claim: () => RunClaim): void {
    claimTest(this.#suite, this, id, () => {
      const c = claim();
      return {
        counts: () => ({ ...this.tally.counts(), ...this.counts }),
        outcome: this.tally,
        ...c,
        ...(this.#deepCases ? { deep: { probe: this.#deepProbe, cap: DEEP_HEAP_CAP } } : {}),
      };
    });
  }
}
