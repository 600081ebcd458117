/**
 * grok-seat: a proven native channel from an orchestrator into a visible Grok Build session in a
 * Herdr pane (seed ADR 0224). Curated exports, by name; importing this module never loads the
 * native addon (lib/kernel/addon.ts loads it on first use).
 *
 * Start with `hire()` (lib/seat): it launches the visible `grok --leader` TUI through Herdr,
 * proves every fact against the kernel, connects once and returns a ready `Seat` to `deliver()`
 * to, or refuses with a `SeatRefusal` naming the step, the failed check and the owner's next step.
 */

// ── ACP over the leader ────────────────────────────────────────────────────────────────────
export { AcpSession, type Delivery } from "./acp/acp-session.js";
export {
  allPassed,
  type CheckResult,
  expectEqual,
  fail,
  firstFailure,
  pass,
} from "./check.js";
// ── Delivery fence journal and admission ───────────────────────────────────────────────────
export {
  admitController,
  type Controller,
  DeliveryError,
  dispatch,
  isConsumed,
  isModelFinished,
  Journal,
  type Receipt,
  type ReceiptState,
  type Rejection,
  TERMINAL_STATES,
} from "./delivery/index.js";
// ── Errors ──────────────────────────────────────────────────────────────────────────────────
export { GrokSeatError, isErrorCode, UsageError, WireError, type WirePeer } from "./errors.js";
// ── Grok Build facts: version floor, active_sessions.json, prompt ids, models, catalog ─────
export { checkActiveSession, readActiveSessions } from "./grok/active-sessions.js";
export { catalogReadiness, isEnabledDirectLinear, LINEAR_OWNER_STEP } from "./grok/catalog.js";
export { resolveModelSelection } from "./grok/models.js";
export { lockPathForSocket, resolveGrokExecutable, resolveGrokHome } from "./grok/paths.js";
export { assertPromptId, newPromptId, RESERVED_PROMPT_ID_PREFIXES } from "./grok/prompt-id.js";
export {
  admitVersion,
  type GrokVersion,
  parseGrokVersion,
  probeGrokVersion,
  VERSION_FLOOR,
} from "./grok/version.js";
export { HerdrClient, type HerdrClientOptions } from "./herdr/client.js";
export type { SessionDescriptor } from "./herdr/descriptor.js";
export { discoverSocket, herdrConfigDir, isValidSessionName } from "./herdr/discovery.js";
export { type LaunchPaneOptions, type LaunchResult, launchPane } from "./herdr/launch.js";
export { ALLOWED_METHODS, INJECTION_METHODS } from "./herdr/methods.js";
export type { JsonValue } from "./json.js";
// ── Kernel proofs (the native addon) ───────────────────────────────────────────────────────
export {
  addonLoaded,
  type FileType,
  type FlockMode,
  flock,
  KernelError,
  type KernelFailureCode,
  type KernelInfo,
  kernelInfo,
  openProcessHandle,
  type PeerCredentials,
  type PeerSocketFile,
  type ProcessFacts,
  type ProcessHandle,
  type ProcessIdentity,
  peerBoundTo,
  peerCredentials,
  peerSocketFile,
  processFacts,
  type SocketDirFacts,
  type SocketFacts,
  signalNumber,
  socketFacts,
} from "./kernel/index.js";
export { type KernelPort, systemKernel } from "./kernel/port.js";
export { encodeFrame, FrameDecoder, MAX_FRAME_BYTES } from "./leader/frame-codec.js";
// ── The Grok leader ────────────────────────────────────────────────────────────────────────
export { connectLeader, type LeaderConnection } from "./leader/leader-connection.js";
export { CLIENT_TYPE, LEADER_PROTOCOL_VERSION, parseServerMessage } from "./leader/messages.js";
export { serveLoopbackHttp } from "./mcp/loopback-http.js";
export { objectCapability } from "./mcp/object-capable.js";
export { type ProjectedTool, projectSchema, projectTools } from "./mcp/project.js";
export { ProjectingProxy } from "./mcp/proxy.js";
// ── MCP tool-bank projection ───────────────────────────────────────────────────────────────
export { fetchRawTools, upstreamTransport } from "./mcp/upstream.js";
export { createToolValidator, type ToolValidator } from "./mcp/validate.js";
export { readSessionDescriptor } from "./observe/herdr-descriptor.js";
export { type LeaderProof, proveLeader } from "./observe/leader-proof.js";
export { bindPane, verifyPane } from "./observe/pane.js";
export { type ExitVerdict, type PaneExitWatch, watchPaneExit } from "./observe/pane-exit.js";
// ── Proof checks (pure functions of recorded facts) ────────────────────────────────────────
export { agentCheck, nativeSessionCheck } from "./proof/agent.js";
// ── Herdr ──────────────────────────────────────────────────────────────────────────────────
export {
  type AgentVerdict,
  observedNativeSession,
  reconcileAgent,
} from "./proof/agent-reconcile.js";
export { checkLeader, type LeaderProofInput, parseLockPid } from "./proof/leader.js";
export {
  bindPaneProof,
  checkPaneProof,
  PANE_PROOF_VERSION,
  type PaneProofRecord,
  PaneProofRecordSchema,
} from "./proof/pane.js";
export { checkIdentity, checkProcess, checkProcessRead } from "./proof/process.js";
export { checkPrivateSocket, checkSocketAddress } from "./proof/socket.js";
// ── The seat: hire, deliver, release, resume; worker admission; records ───────────────────
export {
  buildSkillManifest,
  checkResume,
  createRuntimeDir,
  decideLeaderStop,
  defaultSeatRegistry,
  freshSessionId,
  HIRE_STEPS,
  type HireEvent,
  type HireListener,
  type HireOptions,
  type HireStep,
  type HireTimeouts,
  hire,
  type LeaderAction,
  LOGIN_FILE_NAME,
  ownerStepFor,
  type PanePlacement,
  type Profile,
  type ProfileSpec,
  type RecordVerification,
  type ReleaseOptions,
  type ReleaseReason,
  type ReleaseReport,
  type ResumeOptions,
  readSeatRecord,
  removeRuntimeDir,
  resume,
  resumeChecks,
  SEAT_RECORD_KIND,
  SEAT_RECORD_VERSION,
  Seat,
  type SeatRecord,
  SeatRecordSchema,
  SeatRefusal,
  SeatRegistry,
  type SeatStep,
  type SkillEntry,
  type StopDecision,
  tuiArgv,
  verifyRecord,
  type WorkerClaim,
  writeSeatRecord,
} from "./seat/index.js";
