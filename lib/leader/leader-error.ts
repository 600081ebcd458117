/** The stable codes of the leader layer (a leader's own `error` frames are `WireError("leader")`). */
import { GrokSeatError } from "../errors.js";

export type LeaderErrorCode =
  /** The one `connect()` (no retry, ever). */
  | "CONNECT_FAILED"
  | "CONNECT_TIMEOUT"
  | "SOCKET_NOT_CONNECTED"
  /** Registration and readiness. */
  | "REGISTRATION_TIMEOUT"
  | "REGISTRATION_UNEXPECTED"
  | "LEADER_READY_TIMEOUT"
  | "NOT_REGISTERED"
  | "NOT_READY"
  /** The connection ended, or was closed (never reopened). */
  | "CONNECTION_CLOSED"
  | "CONNECTION_LOST"
  | "WRITE_BUFFER_FULL"
  /** Control requests (`control_v1`). */
  | "CONTROL_UNSUPPORTED"
  | "CONTROL_TIMEOUT"
  | "UNEXPECTED_CONTROL_PAYLOAD"
  /** Frames and messages the leader should never send. */
  | "FRAME_TOO_LARGE"
  | "INVALID_UTF8"
  | "INVALID_JSON"
  | "INVALID_MESSAGE"
  | "UNKNOWN_MESSAGE_TYPE"
  | "TRUNCATED_FRAME"
  | "PARTIAL_FRAME_TIMEOUT"
  | "FRAME_DEADLINE_EXCEEDED"
  /** ACP payloads on the connection. */
  | "INVALID_ACP_PAYLOAD"
  | "ACP_CONSUMER_TAKEN"
  // Our caller's mistakes (thrown as UsageError):
  | "INVALID_FRAME_CAP";

export class LeaderError extends GrokSeatError<LeaderErrorCode> {}
