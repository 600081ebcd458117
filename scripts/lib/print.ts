/** Printing hire progress and refusals for a person (the demo and the live verification). */
import type { HireEvent } from "../../lib/seat/hire-events.js";
import type { SeatRefusal } from "../../lib/seat/refusal.js";

export function color(enabled: boolean) {
  const paint = (code: string) => (s: string) => (enabled ? `\u001b[${code}m${s}\u001b[0m` : s);
  return { green: paint("32"), red: paint("31"), dim: paint("2"), bold: paint("1") };
}

export type Paint = ReturnType<typeof color>;

/** Colour only on a terminal and never with NO_COLOR (no-color.org), as the CLI does. */
export function useColor(stream: { isTTY?: boolean }): boolean {
  const no = process.env.NO_COLOR;
  return stream.isTTY === true && (no === undefined || no === "");
}

/** One line per proven step: mark, step, what was established, when. */
export function progressLine(e: HireEvent, c: Paint): string | null {
  if (e.type === "started") return null;
  const t = c.dim(`${e.elapsedMs.toFixed(0).padStart(5)} ms`);
  if (e.type === "proven") {
    const n = e.checks.length;
    const checks = n === 0 ? "" : c.dim(` [${n} check${n === 1 ? "" : "s"}]`);
    return `  ${c.green("✓")} ${e.step.padEnd(16)} ${t}  ${e.summary}${checks}`;
  }
  if (e.type === "waiting") {
    return `  ${c.bold("…")} ${e.step.padEnd(16)} ${t}  waiting for the owner (${e.gate}): ${e.ownerStep}`;
  }
  return `  ${c.red("✗")} ${e.step.padEnd(16)} ${t}  ${e.code}${e.check === null ? "" : ` (${e.check})`}: ${e.reason}`;
}

export function refusalLines(r: SeatRefusal, c: Paint): string[] {
  return [
    `${c.red("refused")} at ${r.step}: ${r.code}${r.check === null ? "" : ` (check ${r.check})`}`,
    `  reason: ${r.reason}`,
    `  owner's next step: ${r.ownerNextStep}`,
  ];
}
