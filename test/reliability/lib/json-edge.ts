/**
 * The JSON edge cases of docs/design/reliability-plan.md §4, as building blocks: each decoder test pairs them
 * with its own explicit expected outcome. Facts verified on Node 20 (§4): JSON.parse keeps the last
 * duplicate key, accepts 10^6-deep nesting (recursive code *after* parsing may still overflow),
 * turns `1e400` into Infinity and rounds integers above 2^53, keeps a lone surrogate escape as a
 * lone UTF-16 unit, and makes `__proto__` an own property (only a later merge pollutes).
 */

/** Nesting depth of the "deep" cases: 10^6, as in the plan. */
export const DEEP = 1_000_000;

/** `[[[…]]]`, `depth` levels (2 bytes per level). */
export function deepArray(depth: number = DEEP): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

/** `{"a":{"a":…1…}}`, `depth` levels (6 bytes per level). */
export function deepObject(depth: number = DEEP): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** 2^64 - 1, the largest u64, and 2^64: both beyond 2^53, so JSON.parse rounds them. */
export const U64_MAX_TEXT = "18446744073709551615";
export const TWO_POW_64_TEXT = "18446744073709551616";
/** 2^53 + 1: the smallest integer a double cannot hold. */
export const UNSAFE_INT_TEXT = "9007199254740993";
/** Beyond double range: JSON.parse gives Infinity. */
export const HUGE_TEXT = "1e400";

/** A lone high surrogate as a JSON escape (valid JSON, not valid Unicode). */
export const LONE_SURROGATE_ESCAPE = "\\ud800";
/** The same code unit as raw CESU-8 bytes: never valid UTF-8. */
export const LONE_SURROGATE_BYTES = Uint8Array.from([0xed, 0xa0, 0x80]);

const prototypeKeys = (): string[] => Object.getOwnPropertyNames(Object.prototype).sort();
const baseline = prototypeKeys().join(",");

/**
 * Whether `Object.prototype` is untouched: no `polluted` visible on a fresh object and the same own
 * property names as when this module loaded.
 */
export function prototypeClean(): boolean {
  const probe: Record<string, unknown> = {};
  return probe.polluted === undefined && prototypeKeys().join(",") === baseline;
}

/** Keys whose presence in JSON tries prototype pollution through a later merge. */
export const POLLUTION_MEMBERS = [
  '"__proto__":{"polluted":true}',
  '"constructor":{"prototype":{"polluted":true}}',
];
