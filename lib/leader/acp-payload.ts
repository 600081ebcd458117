/**
 * The rule for an outgoing ACP payload: the leader feeds each payload to the agent as one line and
 * appends the newline itself (grok-leader-protocol.md §4 "Envelope"; `agent/app.rs`), so a raw CR or
 * LF would split one JSON-RPC message into two lines. A lone surrogate is refused too: JSON.stringify
 * escapes it as `\udXXX`, which serde_json rejects as a lone surrogate escape, and the leader then
 * drops the whole connection as a protocol error (`server.rs`, `handle_client_inbound_message`).
 */
import { GrokSeatError } from "../errors.js";

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
    throw new GrokSeatError("INVALID_ACP_PAYLOAD", problem, { details: { problem } });
  }
}
