/** The stable codes of the Herdr layer (a Herdr peer's own codes are `WireError("herdr", …)`). */
import { GrokSeatError } from "../errors.js";

export type HerdrErrorCode =
  /** Connecting to the API socket failed (errno in details). */
  | "HERDR_CONNECT_FAILED"
  /** No answer within the request's deadline (Herdr itself never times out). */
  | "HERDR_TIMEOUT"
  | "HERDR_ABORTED"
  /** The server closed the connection without a reply, or in the middle of a line. */
  | "HERDR_CLOSED_EARLY"
  | "HERDR_SOCKET_ERROR"
  | "HERDR_PEER_UNREADABLE"
  /** A reply line that is not JSON, not UTF-8, or neither a result nor an error. */
  | "HERDR_REPLY_MALFORMED"
  /** A result that does not match the method's schema. */
  | "HERDR_REPLY_INVALID"
  | "HERDR_REPLY_MISMATCH"
  | "HERDR_REPLY_TOO_LARGE"
  /** The session descriptor's socket file: missing, not a socket, re-bound while read. */
  | "HERDR_SOCKET_MISSING"
  | "HERDR_NOT_A_SOCKET"
  | "HERDR_DESCRIPTOR_UNSTABLE"
  /**
   * The server is not ours: its socket, the socket's directory or the peer of our connection
   * belongs to another user (details.check names `herdr.socket_owner`, `herdr.socket_dir` or
   * `herdr.server_uid`). Nothing but `ping` is ever sent to such a server.
   */
  | "HERDR_UNTRUSTED"
  | "LAUNCH_REPLY_UNEXPECTED"
  // Our caller's mistakes (thrown as UsageError):
  | "HERDR_REQUEST_TOO_LARGE"
  | "HERDR_METHOD_FORBIDDEN"
  | "HERDR_SESSION_INVALID"
  | "HERDR_SOCKET_PATH_EMPTY"
  | "LAUNCH_ARGV_EMPTY"
  | "LAUNCH_ENV_INVALID";

export class HerdrError extends GrokSeatError<HerdrErrorCode> {}
