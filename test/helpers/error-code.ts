/**
 * The `code` of the project error a call throws, for tests that assert refusals by name: `none`
 * when the call returns, and any other throw (not a GrokSeatError) rethrown as the test failure.
 */
import { GrokSeatError } from "../../lib/errors.js";

export function codeOf<N extends string | null>(fn: () => unknown, none: N): string | N {
  try {
    fn();
  } catch (err) {
    if (err instanceof GrokSeatError) return err.code;
    throw err;
  }
  return none;
}

/**
 * The error of class `type` that `p` rejects with; a resolution, or a rejection with anything
 * else (rethrown as is), fails the test.
 */
export async function rejectionOf<E extends Error>(
  p: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await p;
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error(`expected a ${type.name}, the promise resolved`);
}

/** The code `p` rejects with (`OTHER: <text>` for a throw that is no GrokSeatError); null when it resolves. */
export async function rejectionCode(p: Promise<unknown>): Promise<string | null> {
  try {
    await p;
    return null;
  } catch (err) {
    return err instanceof GrokSeatError ? err.code : `OTHER: ${String(err)}`;
  }
}
