/**
 * Argument checks for the kernel calls: a wrong type or value from our caller is a UsageError
 * INVALID_ARGUMENT naming the argument, never a TypeError from deeper down (issue 16 item 9). The
 * binding checks again (native/binding/binding.cc); these run first so that JavaScript-side work
 * (path.resolve, property reads) never sees a value of the wrong type.
 */
import { UsageError } from "../errors.js";
import type { ProcessIdentity } from "./types.js";

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value;
}

function invalid(call: string, what: string, expected: string, value: unknown): UsageError {
  return new UsageError(
    "INVALID_ARGUMENT",
    `INVALID_ARGUMENT: ${call}: ${what} must be ${expected}, got ${describe(value)}`,
    { details: { call, argument: what } },
  );
}

const isInt32 = (x: unknown, min: number): x is number =>
  typeof x === "number" && Number.isInteger(x) && x >= min && x <= 2 ** 31 - 1;

/** A pid: an integer in 1..2^31-1. */
export function requirePid(pid: unknown, call: string): asserts pid is number {
  if (!isInt32(pid, 1)) throw invalid(call, "pid", "an integer in 1..2^31-1", pid);
}

/** A file descriptor: an integer in 0..2^31-1. */
export function requireFd(fd: unknown, call: string): asserts fd is number {
  if (!isInt32(fd, 0)) throw invalid(call, "fd", "an integer in 0..2^31-1", fd);
}

/** A non-empty string without NUL bytes. */
export function requirePath(path: unknown, call: string, what = "path"): asserts path is string {
  if (typeof path !== "string" || path === "" || path.includes("\0")) {
    throw invalid(call, what, "a non-empty string without NUL bytes", path);
  }
}

/** An options object, or undefined. Returns a reader for its properties (none when undefined). */
export function requireOptions(options: unknown, call: string): (name: string) => unknown {
  if (options === undefined) return () => undefined;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw invalid(call, "options", "an object or undefined", options);
  }
  return (name) => Reflect.get(options, name);
}

/** An optional boolean option. */
export function optionalBoolean(value: unknown, call: string, what: string): boolean | undefined {
  if (value === undefined || typeof value === "boolean") return value;
  throw invalid(call, what, "a boolean or undefined", value);
}

const identityKinds: readonly string[] = ["linux-pidfs", "linux-boot-ticks", "darwin-uniqueid"];

/** A ProcessIdentity ({ kind, value }) as processFacts reports it, or undefined. */
export function optionalIdentity(
  identity: unknown,
  call: string,
): asserts identity is ProcessIdentity | undefined {
  if (identity === undefined) return;
  const kind: unknown =
    typeof identity === "object" && identity !== null ? Reflect.get(identity, "kind") : undefined;
  const value: unknown =
    typeof identity === "object" && identity !== null ? Reflect.get(identity, "value") : undefined;
  if (typeof kind !== "string" || !identityKinds.includes(kind) || typeof value !== "string") {
    throw invalid(
      call,
      "expectedIdentity",
      "a ProcessIdentity { kind, value } or undefined",
      identity,
    );
  }
}

/** A decimal string (64-bit kernel numbers travel as decimal strings). */
export function requireDecimal(
  value: unknown,
  call: string,
  what: string,
): asserts value is string {
  if (typeof value !== "string" || !/^\d+$/.test(value)) {
    throw invalid(call, what, "a decimal string", value);
  }
}

/** A non-negative safe integer. */
export function requireCount(value: unknown, call: string, what: string): asserts value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(call, what, "a non-negative integer", value);
  }
}

/** An object (for record-shaped arguments); returns a reader for its properties. */
export function requireObject(
  value: unknown,
  call: string,
  what: string,
): (name: string) => unknown {
  if (typeof value !== "object" || value === null) throw invalid(call, what, "an object", value);
  return (name) => Reflect.get(value, name);
}
