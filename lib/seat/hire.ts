/**
 * `hire()`: the whole flow, from nothing to a ready seat, in one call (ADR 0224 (docs/design/adr-0224.md), issue 8).
 * This module is the entry (options: hire-options.ts); the 22 steps are lib/seat/hire-flow.ts,
 * loaded on the first hire, so that importing the root entry loads none of them (issue 19: the
 * import costs what the caller uses).
 */
import type { HireOptions } from "./hire-options.js";
import { freshSessionId } from "./policy.js";
import type { Seat } from "./seat.js";

export type { HireOptions, HireTimeouts, PanePlacement } from "./hire-options.js";

/** Hire a fresh seat: a new visible Grok chat with a new session UUID. */
export async function hire(options: HireOptions): Promise<Seat> {
  const { hireWith } = await import("./hire-flow.js");
  return hireWith(options, { kind: "fresh", sessionId: freshSessionId() });
}
