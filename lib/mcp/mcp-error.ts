/** The stable codes of the MCP projection layer. */
import { GrokSeatError } from "../errors.js";
import type { CallErrorCode } from "./issues.js";

export type McpErrorCode =
  /** A call refused before it reaches upstream (issues.ts). */
  | CallErrorCode
  | "MCP_UPSTREAM_BAD_LIST"
  | "MCP_UPSTREAM_BAD_RESULT"
  | "MCP_HTTP_LISTEN"
  | "MCP_HTTP_TOKEN_INVALID"
  /** The operator bank cannot be reached or listed (bank-proxy.ts). */
  | "MCP_UPSTREAM_UNREACHABLE";

export class McpProjectionError extends GrokSeatError<McpErrorCode> {}
