/**
 * grok-seat/leader: the Grok leader socket (4-byte big-endian frames, typed messages, one
 * connection that never reconnects), connecting once with the peer proven before the first byte,
 * the leader proof over a registered connection (lib/leader, lib/observe), and the Grok Build
 * facts around it: the version floor, `active_sessions.json`, where Grok keeps its files
 * (lib/grok).
 */
export {
  type ActiveSession,
  type ActiveSessionsRead,
  checkActiveSession,
  type ExpectedSession,
  parseActiveSessions,
  readActiveSessions,
} from "../grok/active-sessions.js";
export { GrokError, type GrokErrorCode } from "../grok/grok-error.js";
export {
  activeSessionsPath,
  defaultLeaderSocketPath,
  grokHome,
  lockPathForSocket,
  resolveGrokExecutable,
  resolveGrokHome,
} from "../grok/paths.js";
export {
  admitAgentVersion,
  admitLeaderVersion,
  admitVersion,
  checkVersionFloor,
  type GrokVersion,
  type LeaderVersionReport,
  parseGrokVersion,
  probeGrokVersion,
  VERSION_FLOOR,
  type VersionReports,
} from "../grok/version.js";
export {
  type ConnectProvenOptions,
  type ConnectRefusalCode,
  connectProven,
  type PeerExpectation,
  type ProvenConnection,
} from "../leader/connect-proven.js";
export type { ControlCommand, ControlPayload, LeaderInfo } from "../leader/control.js";
export { encodeFrame, FrameDecoder, MAX_FRAME_BYTES } from "../leader/frame-codec.js";
export { connectLeader, LeaderConnection } from "../leader/leader-connection.js";
export type {
  CloseReason,
  ConnectionState,
  LeaderConnectionOptions,
  LeaderEvent,
} from "../leader/leader-connection-types.js";
export { LeaderError, type LeaderErrorCode } from "../leader/leader-error.js";
export {
  CLIENT_TYPE,
  type ClientMessage,
  LEADER_PROTOCOL_VERSION,
  parseClientMessage,
  parseServerMessage,
  type Registered,
  type ServerMessage,
} from "../leader/messages.js";
export { type LeaderProof, type LeaderProofRequest, proveLeader } from "../observe/leader-proof.js";
