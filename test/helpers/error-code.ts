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
