/** lib/seat: hire, deliver, release and resume a seat; worker admission; seat records. */

export { type HireOptions, type HireTimeouts, hire } from "./hire.js";
export {
  HIRE_STEPS,
  type HireEvent,
  type HireListener,
  type HireStep,
  type SeatStep,
} from "./hire-events.js";
export { checkResume, freshSessionId, type LaunchMode, type Requester, tuiArgv } from "./policy.js";
export { LOGIN_FILE_NAME, type Profile, type ProfileSpec } from "./profile.js";
export { ownerStepFor, SeatRefusal } from "./refusal.js";
export { type RegisteredSeat, SeatRegistry, type WorkerClaim } from "./registry.js";
export { decideLeaderStop, type ReleaseReason, type StopDecision } from "./release-policy.js";
export { type ResumeOptions, resume, resumeChecks } from "./resume.js";
export { createRuntimeDir, removeRuntimeDir } from "./runtime-dir.js";
export {
  defaultSeatRegistry,
  type LeaderAction,
  type ReleaseOptions,
  type ReleaseReport,
  Seat,
} from "./seat.js";
export {
  readSeatRecord,
  SEAT_RECORD_KIND,
  SEAT_RECORD_VERSION,
  type SeatRecord,
  SeatRecordSchema,
  writeSeatRecord,
} from "./seat-record.js";
export { buildSkillManifest, type SkillEntry } from "./skills.js";
export type { PanePlacement } from "./steps/launch.js";
export { type RecordVerification, verifyRecord } from "./verify-seat-record.js";
