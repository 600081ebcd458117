/**
 * grok-seat/proof: pure checks from recorded facts to `CheckResult { check, ok, expected,
 * received, reason }` (lib/check.ts, lib/proof): a failed check is a value, not an exception.
 */
export {
  allPassed,
  type CheckResult,
  expectEqual,
  fail,
  firstFailure,
  jsonEqual,
  pass,
} from "../check.js";
export { agentCheck, nativeSessionCheck, onlyAgentRetryable } from "../proof/agent.js";
export {
  type AgentEvidenceBasis,
  type AgentProcessFacts,
  type AgentProcessSighting,
  type AgentProcessVia,
  agentOfName,
  agentOfProcess,
  agentProcessCheck,
  detectAgentProcess,
  evidenceBasis,
  type JobMember,
} from "../proof/agent-process.js";
export {
  type AgentBinding,
  type AgentObservation,
  type AgentRefusal,
  type AgentVerdict,
  type HarnessBinding,
  harnessBinding,
  observedNativeSession,
  reconcileAgent,
  type SessionKind,
} from "../proof/agent-reconcile.js";
export {
  type BoundTui,
  checkLeader,
  type FactRead,
  type LeaderProofInput,
  type PeerBoundFile,
  parseLockPid,
} from "../proof/leader.js";
export {
  BoundProcessSchema,
  bindPaneProof,
  checkPaneProof,
  expectedSessionKindOf,
  isUnavailable,
  type Observed,
  PANE_PROOF_VERSION,
  type PaneBindInput,
  type PaneBindResult,
  type PaneObservation,
  type PaneProofRecord,
  PaneProofRecordSchema,
  paneAgentVerdict,
  type Unavailable,
} from "../proof/pane.js";
export {
  checkCwd,
  checkExecutable,
  checkIdentity,
  checkIdentityStable,
  checkProcess,
  checkProcessRead,
  checkTty,
  checkUid,
  type ProcessExpectation,
} from "../proof/process.js";
export {
  checkPrivateSocket,
  checkSocketAddress,
  checkSocketDir,
  checkSocketUnreadable,
  octal,
  type PrivateSocketExpectation,
} from "../proof/socket.js";
