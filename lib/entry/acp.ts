/**
 * grok-seat/acp: ACP over a leader connection (`@agentclientprotocol/sdk` with a raw-frame tap for
 * Grok's extensions): the handshake to the owner's session and the attached `AcpSession` that
 * delivers prompts behind the durable fence journal (lib/acp, lib/delivery), with the Grok rules
 * it applies: prompt ids, model and effort, the MCP catalog (lib/grok).
 */
export { AcpError, type AcpErrorCode } from "../acp/acp-error.js";
export { AcpHandshake, attachSession } from "../acp/acp-handshake.js";
export { AcpSession, type Delivery, type TranscriptQuery } from "../acp/acp-session.js";
export type { AttachFacts, InitializeFacts } from "../acp/handshake.js";
export type { OwnerAction } from "../acp/owner-actions.js";
export type { PromptUsage, Reply, ReplyToolCall } from "../acp/replies.js";
export type { AcpSessionEvent, AcpSessionOptions } from "../acp/session-core.js";
export type { TapStats } from "../acp/tap.js";
export type { AcpPipe } from "../acp/transport.js";
export {
  type AdmitOptions,
  acquireControllerLock,
  admitController,
  type Controller,
  type ControllerLock,
  DEFAULT_COMPACT_ABOVE_BYTES,
  DeliveryError,
  type DeliveryErrorCode,
  dispatch,
  type FenceInput,
  isConsumed,
  isModelFinished,
  isTerminal,
  Journal,
  type OpenJournalOptions,
  type OutgoingPrompt,
  type PromptSender,
  type Receipt,
  type ReceiptState,
  type RecoveryReport,
  type Rejection,
  TERMINAL_STATES,
} from "../delivery/index.js";
export {
  type CatalogReadiness,
  catalogReadiness,
  isEnabledDirectLinear,
  LINEAR_OWNER_STEP,
} from "../grok/catalog.js";
export {
  type ModelEcho,
  type ModelSelection,
  REASONING_EFFORTS,
  type ReasoningEffort,
  resolveModelSelection,
} from "../grok/models.js";
export {
  assertPromptId,
  newPromptId,
  promptIdProblem,
  RESERVED_PROMPT_ID_PREFIXES,
} from "../grok/prompt-id.js";
