/**
 * How the delivery suites (T1 crash-kill, T2 power-loss, T3 io-errors, T8 admission-race) feed
 * their reliability claims (test/helpers/claims.ts): the run size, and the failures a claim must
 * report. A claim spans several uvu tests (dry run, injection, random kills, ...); a failing
 * phase is noted here and rethrown, so the claim recorded at the end still says it did not hold.
 */
import { scaled } from "../helpers/claims.js";

/**
 * The long ("soak") count under `npm run test:reliability` (GROK_SEAT_RELIABILITY=full), the
 * bounded one under `npm test`. GROK_SEAT_SOAK=1, the older switch, still selects the long count
 * (the claim's `mode` stays what `reliabilityMode()` says).
 */
export function soakScaled(bounded: number, full: number): number {
  return process.env.GROK_SEAT_SOAK === "1" ? full : scaled(bounded, full);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Run `body`; a throw is noted in `failures` (as "phase: message") and returned, else null. */
export async function caught(
  failures: string[],
  phase: string,
  body: () => Promise<void> | void,
): Promise<unknown> {
  try {
    await body();
    return null;
  } catch (err) {
    failures.push(`${phase}: ${describe(err)}`);
    return err;
  }
}

/** Run `body`; a throw is noted in `failures` and rethrown (the uvu test fails as before). */
export async function guarded(
  failures: string[],
  phase: string,
  body: () => Promise<void> | void,
): Promise<void> {
  const err = await caught(failures, phase, body);
  if (err !== null) throw err;
}

/** The claim sentence, with what broke appended when it did not hold. */
export function sentence(text: string, failures: readonly string[]): string {
  return failures.length === 0 ? text : `${text} — VIOLATED: ${failures.join("; ")}`;
}
