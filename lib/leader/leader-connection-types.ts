/**
 * Options, defaults and the event / close-reason types of the leader connection (`leader-connection.ts`).
 * Every default is the bound `leader/client.rs` uses, where it has one.
 */
import type { GrokSeatError, WireError } from "../errors.js";
import { MAX_FRAME_BYTES } from "./frame-codec.js";
import { CLIENT_TYPE, type ServerMessage, type ShutdownReason } from "./messages.js";

export interface LeaderConnectionOptions {
  /** `register.client_type`; default "grok-seat". */
  readonly clientType?: string;
  /** Bound on `connect()` to a path (client.rs `CONNECT_TIMEOUT`, 5 s). */
  readonly connectTimeoutMs?: number;
  /** Bound on the `registered` reply (client.rs `REGISTRATION_RESPONSE_TIMEOUT`, 10 s). */
  readonly registrationTimeoutMs?: number;
  /** Bound on `leader_ready` after `registered{ready:false}` (client.rs `LEADER_READY_TIMEOUT`, 120 s). */
  readonly readyTimeoutMs?: number;
  /** Ping interval (client.rs `KEEPALIVE_INTERVAL`, 30 s); 0 disables. */
  readonly keepaliveIntervalMs?: number;
  /** Bound on each control request (30 s); client.rs has none. */
  readonly controlTimeoutMs?: number;
  /** Largest frame accepted or sent (<= 64 MiB, the default). */
  readonly maxFrameBytes?: number;
  /** A partial frame with no new byte for this long closes the connection (30 s). */
  readonly partialFrameIdleMs?: number;
  /** A frame still incomplete this long after its first byte closes the connection (60 s). */
  readonly frameDeadlineMs?: number;
  /** Unconsumed ACP payload text above which reading is paused (16 Mi code units). */
  readonly maxQueuedAcpBytes?: number;
  /** Bytes in the socket's write buffer above which a send is refused (128 MiB). */
  readonly maxPendingWriteBytes?: number;
}

export const CONNECTION_DEFAULTS = {
  clientType: CLIENT_TYPE,
  connectTimeoutMs: 5_000,
  registrationTimeoutMs: 10_000,
  readyTimeoutMs: 120_000,
  keepaliveIntervalMs: 30_000,
  controlTimeoutMs: 30_000,
  maxFrameBytes: MAX_FRAME_BYTES,
  partialFrameIdleMs: 30_000,
  frameDeadlineMs: 60_000,
  maxQueuedAcpBytes: 16 * 1024 * 1024,
  maxPendingWriteBytes: 128 * 1024 * 1024,
} satisfies Required<LeaderConnectionOptions>;

export type ConnectionSettings = typeof CONNECTION_DEFAULTS;

/** Why a connection ended. `leader_shutdown` needs a `shutdown` frame; a bare EOF is `connection_lost`. */
export type CloseReason =
  | { readonly kind: "client_closed" }
  | { readonly kind: "leader_shutdown"; readonly shuttingDown: ShutdownReason | null }
  | {
      readonly kind: "connection_lost";
      readonly shuttingDown: ShutdownReason | null;
      readonly error: GrokSeatError | null;
    }
  | { readonly kind: "protocol_error"; readonly error: GrokSeatError };

export type LeaderEvent =
  | { readonly type: "shutting_down"; readonly reason: ShutdownReason; readonly delayMs: number }
  | { readonly type: "shutdown" }
  /** An `error` frame after registration (client.rs logs these and carries on). */
  | { readonly type: "error_frame"; readonly error: WireError }
  /** A well-formed frame with no meaning now (a second `registered`, an unknown request_id). */
  | { readonly type: "unexpected"; readonly message: ServerMessage }
  | { readonly type: "closed"; readonly reason: CloseReason };

export type ConnectionState = "registering" | "awaiting_ready" | "open" | "closed";
