import { LeaderError } from "./leader-error.js";

const LINE_BREAK = /[\r\n]/;
const LONE_SURROGATE = /\p{Cs}/u;

export function checkAcpPayload(payload: unknown): asserts payload is string {
  let problem: string | null = null;
  if (typeof payload !== "string") problem = "payload is not a string";
  else if (payload.length === 0) problem = "payload is empty";
  else if (LINE_BREAK.test(payload))
    problem = "payload contains a line break (send single-line JSON)";
  else if (LONE_SURROGATE.test(payload)) problem = "payload contains a lone UTF-16 surrogate";
  if (problem !== null) {
    throw new LeaderError("INVALID_ACP_PAYLOAD", problem, { details: { problem } });
  }
}
