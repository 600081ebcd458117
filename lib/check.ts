import type { JsonValue } from "./json.js";

/**
 * One named check of a proof. A failed check is a value with a reason, never an exception
 * (docs/design/style.md, habit 4): verification returns the list of checks and the caller decides.
 */
export interface CheckResult {
  /** Stable name, e.g. "leader.pid_alive", "socket.dir_mode". */
  readonly check: string;
  readonly ok: boolean;
  readonly expected: JsonValue;
  readonly received: JsonValue;
  /** Why it failed, in one sentence; null when it passed. */
  readonly reason: string | null;
}

export function pass(check: string, expected: JsonValue, received: JsonValue): CheckResult {
  return { check, ok: true, expected, received, reason: null };
}

export function fail(
  check: string,
  expected: JsonValue,
  received: JsonValue,
  reason: string,
): CheckResult {
  return { check, ok: false, expected, received, reason };
}

/** Pass when `received` deep-equals `expected`, otherwise fail with `reason`. */
export function expectEqual(
  check: string,
  expected: JsonValue,
  received: JsonValue,
  reason: string,
): CheckResult {
  return jsonEqual(expected, received)
    ? pass(check, expected, received)
    : fail(check, expected, received, reason);
}

export function allPassed(checks: readonly CheckResult[]): boolean {
  return checks.every((c) => c.ok);
}

export function firstFailure(checks: readonly CheckResult[]): CheckResult | undefined {
  return checks.find((c) => !c.ok);
}

export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i] as JsonValue));
  }
  const ao = a as { [key: string]: JsonValue };
  const bo = b as { [key: string]: JsonValue };
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  return keys.every(
    (k) => Object.hasOwn(bo, k) && jsonEqual(ao[k] as JsonValue, bo[k] as JsonValue),
  );
}
