/** Small statistics helpers shared by the bench files. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p99: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error("summarize: no samples");
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return {
    n: s.length,
    median: at(0.5),
    p99: at(0.99),
    mean,
    min: s[0] as number,
    max: s[s.length - 1] as number,
  };
}

/** Time `fn` `n` times, returning per-call durations in microseconds. */
export async function timeUs(n: number, fn: () => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return out;
}

/** Print one figure for bench/index.ts to collect. */
export function figure(
  name: string,
  value: number,
  unit: string,
  extra: Record<string, unknown> = {},
): void {
  process.stdout.write(`BENCH ${JSON.stringify({ name, value, unit, ...extra })}\n`);
}

/** Format a row of a fixed-width table. */
export function row(cells: readonly (string | number)[], widths: readonly number[]): string {
  return cells
    .map((c, i) => {
      const s = typeof c === "number" ? c.toFixed(c >= 100 ? 0 : 2) : c;
      return i === 0 ? s.padEnd(widths[i] ?? 10) : s.padStart(widths[i] ?? 10);
    })
    .join("  ");
}
