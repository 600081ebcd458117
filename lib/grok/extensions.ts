/**
 * The Grok extension methods a seat uses beyond the handshake (issue 14), and how their absence
 * shows: an agent without one answers like any unknown `_`-prefixed method, JSON-RPC `-32601`
 * (xai-grok-shell `acp_agent.rs` `ext_method`: `Method not found`, data `unknown ACP extension
 * method: …`). Each is probed before it is relied on; a `-32601` refuses naming the version found
 * and what it lacks — never a silent fallback.
 */
import { WireError } from "../errors.js";

/** Methods a seat may need, with what each gives it. */
export const SEAT_EXTENSIONS = {
  "x.ai/session/update_mcp_servers":
    "adding the operator's MCP bank to a live session of the owner's profile",
  "x.ai/skills/list": "proving that the selected skills were discovered",
} as const;
export type SeatExtension = keyof typeof SEAT_EXTENSIONS;

/** Whether a JSON-RPC answer says the method does not exist (`-32601`). */
export function isMethodNotFound(err: unknown): boolean {
  return err instanceof WireError && err.code === "-32601";
}
