/**
 * Memory bound of a fuzz run: `process.memoryUsage()` against a baseline taken after a full
 * garbage collection, two ways:
 * - *live*: after a forced full collection (every 65,536 inputs and at the end). Growth here is
 *   memory the decoder keeps: it must not grow with the number of inputs (no leak, no unbounded
 *   table).
 * - *between collections*: sampled every 2,048 inputs without collecting. This includes garbage
 *   V8 has not collected yet, so it shows the working set a hostile peer can make us carry.
 * The runner starts tests without `--expose-gc`, so the flag is set at run time and `gc` taken from
 * a fresh context (V8 installs it on new contexts once the flag is on).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const gcCandidate: unknown = runInNewContext("typeof gc === 'function' ? gc : null");

/** A full collection when available (it is on Node 20 with the flag above). */
export function collectGarbage(): void {
  if (typeof gcCandidate === "function") gcCandidate();
}

export const MiB = 1024 * 1024;

export function mib(bytes: number): string {
  return (bytes / MiB).toFixed(1);
}

/** The caps every decoder claim states and asserts. */
export const CAPS = {
  liveArrayBuffers: 32 * MiB,
  liveHeapUsed: 64 * MiB,
  arrayBuffers: 256 * MiB,
  heapUsed: 512 * MiB,
} as const;

export interface MemoryPeaks {
  /** Peak growth above the baseline, sampled without collecting (garbage included). */
  readonly arrayBuffers: number;
  readonly heapUsed: number;
  readonly rss: number;
  /** Peak growth above the baseline right after a full collection (what is kept). */
  readonly liveArrayBuffers: number;
  readonly liveHeapUsed: number;
  readonly samples: number;
  readonly collections: number;
}

export class MemoryProbe {
  readonly #base: NodeJS.MemoryUsage;
  #arrayBuffers = 0;
  #heapUsed = 0;
  #rss = 0;
  #liveArrayBuffers = 0;
  #liveHeapUsed = 0;
  #samples = 0;
  #collections = 0;
  #lastSample = 0;
  #lastCollection = 0;
  #stopped = false;

  constructor() {
    collectGarbage();
    this.#base = process.memoryUsage();
  }

  sample(): void {
    if (this.#stopped) return;
    const m = process.memoryUsage();
    this.#samples++;
    this.#arrayBuffers = Math.max(this.#arrayBuffers, m.arrayBuffers - this.#base.arrayBuffers);
    this.#heapUsed = Math.max(this.#heapUsed, m.heapUsed - this.#base.heapUsed);
    this.#rss = Math.max(this.#rss, m.rss - this.#base.rss);
  }

  /** Collect, then sample what is live. */
  sampleLive(): void {
    if (this.#stopped) return;
    this.sample();
    // Twice: a first full collection can leave array-buffer backing stores to a second one.
    collectGarbage();
    collectGarbage();
    const m = process.memoryUsage();
    this.#collections++;
    this.#liveArrayBuffers = Math.max(
      this.#liveArrayBuffers,
      m.arrayBuffers - this.#base.arrayBuffers,
    );
    this.#liveHeapUsed = Math.max(this.#liveHeapUsed, m.heapUsed - this.#base.heapUsed);
  }

  /** Call with the running input count: samples every `every`, collects every `collectEvery`. */
  every(count: number, every = 2048, collectEvery = 65_536): void {
    if (count - this.#lastCollection >= collectEvery) {
      this.#lastCollection = count;
      this.#lastSample = count;
      this.sampleLive();
    } else if (count - this.#lastSample >= every) {
      this.#lastSample = count;
      this.sample();
    }
  }

  /** Take a last live sample and freeze the peaks (later phases of a test have their own probe). */
  stop(): void {
    this.sampleLive();
    this.#stopped = true;
  }

  peaks(): MemoryPeaks {
    this.sampleLive();
    return {
      arrayBuffers: this.#arrayBuffers,
      heapUsed: this.#heapUsed,
      rss: this.#rss,
      liveArrayBuffers: this.#liveArrayBuffers,
      liveHeapUsed: this.#liveHeapUsed,
      samples: this.#samples,
      collections: this.#collections,
    };
  }
}

export function withinCaps(p: MemoryPeaks): boolean {
  return (
    p.liveArrayBuffers < CAPS.liveArrayBuffers &&
    p.liveHeapUsed < CAPS.liveHeapUsed &&
    p.arrayBuffers < CAPS.arrayBuffers &&
    p.heapUsed < CAPS.heapUsed
  );
}

/** The memory part of a claim sentence. */
export function describePeaks(p: MemoryPeaks): string {
  return (
    `kept after GC: arrayBuffers +${mib(p.liveArrayBuffers)} MiB, heapUsed +${mib(p.liveHeapUsed)} MiB ` +
    `(caps ${mib(CAPS.liveArrayBuffers)} / ${mib(CAPS.liveHeapUsed)} MiB); peak between collections: ` +
    `arrayBuffers +${mib(p.arrayBuffers)} MiB, heapUsed +${mib(p.heapUsed)} MiB ` +
    `(caps ${mib(CAPS.arrayBuffers)} / ${mib(CAPS.heapUsed)} MiB)`
  );
}

/** The memory figures for `recordClaim` counts. */
export function peakCounts(p: MemoryPeaks): Record<string, number> {
  return {
    liveArrayBuffersBytes: p.liveArrayBuffers,
    liveHeapUsedBytes: p.liveHeapUsed,
    peakArrayBuffersBytes: p.arrayBuffers,
    peakHeapUsedBytes: p.heapUsed,
    memorySamples: p.samples,
    memoryCollections: p.collections,
  };
}
