/** The stable codes of the ACP layer (JSON-RPC errors from Grok are `WireError("acp", …)`). */
import { GrokSeatError } from "../errors.js";

export type AcpErrorCode =
  /** The handshake: initialize, residency, catalog, attach. */
  | "ACP_INITIALIZE_INVALID"
  | "ACP_PROTOCOL_UNSUPPORTED"
  | "ACP_LOAD_SESSION_UNSUPPORTED"
  | "ACP_RESUME_UNSUPPORTED"
  | "ACP_SESSION_INFO_INVALID"
  | "ACP_MCP_LIST_INVALID"
  | "ACP_ATTACH_INVALID"
  | "SESSION_UNKNOWN"
  | "SESSION_CWD_MISMATCH"
  | "LINEAR_DIRECT_ENABLED"
  | "CATALOG_NOT_SESSION_SCOPED"
  | "CATALOG_UNVERIFIABLE"
  | "CATALOG_NOT_READY"
  /** Requests and the stream. */
  | "ACP_TIMEOUT"
  | "ACP_PIPE_FAILED"
  | "ACP_MALFORMED_PAYLOAD"
  | "ACP_EXTENSION_MALFORMED"
  | "ACP_UNENCODABLE"
  | "ACP_UPDATES_INVALID"
  | "ACP_EXTENSION_ANSWER_INVALID"
  | "CONNECTION_CLOSED"
  /** The leader announced its shutdown (`shutting_down`): the seat has ended. */
  | "LEADER_SHUTTING_DOWN"
  /** Deliveries, cancels, models. */
  | "DELIVERY_UNCERTAIN"
  | "PROMPT_REJECTED"
  /** `delivery.reply`: the prompt was cancelled, or Grok answered it without running a turn. */
  | "PROMPT_CANCELLED"
  | "PROMPT_NOT_RUN"
  | "NOT_OURS"
  | "NOT_CANCELLABLE"
  | "MODEL_UNKNOWN"
  | "MODEL_NOT_ECHOED"
  // Our caller's mistakes (thrown as UsageError):
  | "SESSION_NEW_FORBIDDEN"
  | "PROMPT_TEXT_INVALID"
  | "ACP_HANDSHAKE_INCOMPLETE";

export class AcpError extends GrokSeatError<AcpErrorCode> {}
