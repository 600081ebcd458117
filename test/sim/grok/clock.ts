/**
 * Wall-clock time with nanoseconds, formatted like chrono's `DateTime<Utc>` serde output
 * (RFC 3339, `Z`, fraction of 0, 3, 6 or 9 digits — the shortest exact one).
 */

const anchorMs = BigInt(Date.now());
const anchorHr = process.hrtime.bigint();

export function nowNs(): bigint {
  return anchorMs * 1_000_000n + (process.hrtime.bigint() - anchorHr);
}

export function rfc3339(ns: bigint = nowNs()): string {
  const secs = ns / 1_000_000_000n;
  const frac = ns % 1_000_000_000n;
  const base = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  let fraction = "";
  if (frac !== 0n) {
    const nine = frac.toString().padStart(9, "0");
    if (frac % 1_000_000n === 0n) fraction = `.${nine.slice(0, 3)}`;
    else if (frac % 1_000n === 0n) fraction = `.${nine.slice(0, 6)}`;
    else fraction = `.${nine}`;
  }
  return `${base}${fraction}Z`;
}
