/**
 * Running a fast-check property with a recorded seed, so every claim can list the seeds that
 * produced it and a failure can be replayed (`T7_SEED=<seed>` fixes every seed of a run).
 */
import fc from "fast-check";

/** Seeds used in this process, in order (for `recordClaim({seeds})`). */
export const seeds: number[] = [];

function nextSeed(): number {
  const fixed = Number(process.env.T7_SEED);
  if (Number.isSafeInteger(fixed) && process.env.T7_SEED !== undefined) return fixed | 0;
  return (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
}

/** A fresh seed, recorded for the claim (fixed by `T7_SEED`), for a fast-check call `check` does not make. */
export function recordedSeed(): number {
  const seed = nextSeed();
  seeds.push(seed);
  return seed;
}

/** `fc.assert` with `numRuns` and a fresh recorded seed; no shrinking time limit surprises. */
export function check<T>(
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => void,
  numRuns: number,
): void {
  const seed = recordedSeed();
  fc.assert(fc.property(arb, predicate), { numRuns, seed, endOnFailure: true });
}
