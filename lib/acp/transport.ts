/**
 * What the ACP layer needs from the leader connection (`lib/leader/leader-connection.ts`): raw ACP
 * payload strings in both directions and a typed end. The leader connection owns framing,
 * registration, keepalive and the socket; this layer never reconnects (a new connection is a new
 * leader client id and its predecessor's responses are lost, docs/design/grok-leader-protocol.md §4).
 *
 * The type is the structural subset of `LeaderConnection`, so the real connection is passed as
 * is; tests pass an in-memory pipe with the same three members.
 */
import type { CloseReason, LeaderConnection } from "../leader/leader-connection.js";

export type { CloseReason };

export type AcpPipe = Pick<LeaderConnection, "sendAcp" | "acpMessages" | "closed">;
