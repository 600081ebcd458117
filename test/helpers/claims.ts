/**
 * Reliability claims: each reliability test prints its claim with counts in one sentence and
 * writes it to `reliability-results/<id>.json`. `npm run test:reliability` runs the full counts
 * (GROK_SEAT_RELIABILITY=full) and `scripts/guarantees.ts` turns the results into
 * `docs/guarantees.json` and the README's "Guarantees" section — never typed by hand.
 * `npm test` runs the bounded counts and writes the same files (mode "bounded").
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export type ReliabilityMode = "bounded" | "full";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const RESULTS_DIR = join(root, "reliability-results");

export function reliabilityMode(): ReliabilityMode {
  // GROK_SEAT_SOAK=1 is the delivery suites' older name for the same long counts.
  return process.env.GROK_SEAT_RELIABILITY === "full" || process.env.GROK_SEAT_SOAK === "1"
    ? "full"
    : "bounded";
}

/** The count to run: `bounded` under `npm test`, `full` under `npm run test:reliability`. */
export function scaled(bounded: number, full: number): number {
  return reliabilityMode() === "full" ? full : bounded;
}

export interface Claim {
  /** Stable id, e.g. "T4-socket-refusals". */
  readonly id: string;
  /** Short title for the README table. */
  readonly title: string;
  /** The claim as one sentence with its numbers, e.g. "19 hostile setups ... 0 admitted". */
  readonly claim: string;
  /** The raw counts behind the sentence. */
  readonly counts: Readonly<Record<string, number>>;
  /** Whether every invariant held. A false claim is still recorded, and the test fails. */
  readonly held: boolean;
  /** Seeds of randomised runs, so a failure can be replayed. */
  readonly seeds?: readonly number[];
  /** How the claim was tested (commands, tools), for the README. */
  readonly method: string;
}

/** Print the claim and write it to reliability-results/<id>.json. */
export function recordClaim(claim: Claim, startedAt: number = Date.now()): void {
  const doc = {
    ...claim,
    mode: reliabilityMode(),
    durationMs: Date.now() - startedAt,
    date: new Date().toISOString(),
    platform: `${process.platform} ${process.arch}`,
    node: process.version,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${claim.id}.json`), `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`CLAIM ${claim.id} [${doc.mode}${claim.held ? "" : ", VIOLATED"}]: ${claim.claim}`);
}
