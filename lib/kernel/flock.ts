/**
 * flock(2) on a file descriptor: the simulator's leader lock and the delivery admission lock.
 * The kernel drops the lock when the last fd to the open file is closed, including on death.
 */
import { UsageError } from "../errors.js";
import { optionalBoolean, requireFd, requireOptions } from "./arguments.js";
import { callNative } from "./loader.js";

export type FlockMode = "exclusive" | "shared" | "unlock";

const ops = { exclusive: "ex", shared: "sh", unlock: "un" } as const;

/**
 * Take, share or drop a lock. Returns false only when `nonBlocking` and another open file holds
 * a conflicting lock; every other failure throws (INVALID_ARGUMENT for a bad or closed fd).
 * A blocking call blocks the event loop: prefer `nonBlocking` and retry.
 */
export function flock(
  fd: number,
  mode: FlockMode,
  options: { nonBlocking?: boolean } = {},
): boolean {
  requireFd(fd, "flock");
  if (typeof mode !== "string" || !Object.hasOwn(ops, mode)) {
    throw new UsageError(
      "INVALID_ARGUMENT",
      `INVALID_ARGUMENT: flock: unknown mode ${String(mode)}`,
    );
  }
  const op = ops[mode];
  const nonBlocking = optionalBoolean(
    requireOptions(options, "flock")("nonBlocking"),
    "flock",
    "nonBlocking",
  );
  return callNative((n) => n.flock(fd, op, nonBlocking ?? false));
}
