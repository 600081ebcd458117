/**
 * A call to one of Grok's `x.ai/…` extensions a seat step needs (lib/grok/extensions.ts): a
 * `-32601` answer refuses EXTENSION_UNSUPPORTED naming the method, what it is needed for and the
 * agent's version; any other failure is the caller's.
 */
import { isMethodNotFound, SEAT_EXTENSIONS, type SeatExtension } from "../../grok/extensions.js";
import { SeatRefusal } from "../refusal.js";

export async function callExtension<T>(
  step: "mcp_bank" | "skills",
  method: SeatExtension,
  agentVersion: string | null,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!isMethodNotFound(err)) throw err;
    throw new SeatRefusal({
      step,
      code: "EXTENSION_UNSUPPORTED",
      check: `${step}.extension`,
      reason: `the agent (version ${agentVersion ?? "unknown"}) has no ${method}, needed for ${SEAT_EXTENSIONS[method]}`,
      details: { method, agentVersion },
      cause: err,
    });
  }
}
