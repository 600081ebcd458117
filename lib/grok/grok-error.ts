/** The stable codes of the Grok Build facts layer (version, models, prompt ids, transcripts). */
import { GrokSeatError } from "../errors.js";

export type GrokErrorCode =
  /** `grok --version`. */
  | "GROK_NOT_FOUND"
  | "GROK_VERSION_UNPARSEABLE"
  | "GROK_VERSION_OUTPUT_TOO_LARGE"
  | "GROK_VERSION_TIMEOUT"
  | "GROK_VERSION_FAILED"
  /** A stored transcript (`readNativeTranscript`). */
  | "TRANSCRIPT_NOT_FOUND"
  | "TRANSCRIPT_UNTRUSTED"
  | "TRANSCRIPT_UNREADABLE"
  /** Model and effort selection: never a silent fallback. */
  | "MODEL_UNKNOWN"
  | "EFFORT_UNKNOWN"
  // Our caller's mistakes (thrown as UsageError):
  | "PROMPT_ID_RESERVED"
  | "PROMPT_ID_INVALID"
  | "TRANSCRIPT_QUERY_INVALID";

export class GrokError extends GrokSeatError<GrokErrorCode> {}
