/**
 * Memory bound of a fuzz run: `process.memoryUsage()` sampled while inputs are decoded, against a
 * baseline taken after a full garbage collection. The runner starts tests without `--expose-gc`,
 * so the flag is set at run time and `gc` taken from a fresh context (V8 installs it on new
 * contexts once the flag is on).
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

export interface MemoryPeaks {
  /** Peak growth of `arrayBuffers` (Buffers, typed arrays) above the baseline. */
  readonly arrayBuffers: number;
  /** Peak growth of `heapUsed` above the baseline. */
  readonly heapUsed: number;
  /** Peak growth of the resident set above the baseline. */
  readonly rss: number;
  readonly samples: number;
}

export class MemoryProbe {
  readonly #base: NodeJS.MemoryUsage;
  #arrayBuffers = 0;
  #heapUsed = 0;
  #rss = 0;
  #samples = 0;
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

  /** Sample every `every` calls (memoryUsage costs a few microseconds; decodes cost less). */
  every(count: number, every = 2048): void {
    if (count % every === 0) this.sample();
  }

  /** Take a last sample and freeze the peaks (later phases of a test have their own probe). */
  stop(): void {
    this.sample();
    this.#stopped = true;
  }

  peaks(): MemoryPeaks {
    this.sample();
    return {
      arrayBuffers: this.#arrayBuffers,
      heapUsed: this.#heapUsed,
      rss: this.#rss,
      samples: this.#samples,
    };
  }
}
