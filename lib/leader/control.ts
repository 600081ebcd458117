/**
 * The leader's control channel (`control_v1`): commands a client sends inside
 * `{"type":"control","request_id":…,"command":…}` and the payloads that come back inside
 * `control_result.result.Ok` (docs/design/grok-leader-protocol.md §5; `leader/protocol.rs` `ControlCommand`,
 * `ControlPayload`; `xai-grok-shell-base/src/cpu_profile.rs` `ControlError`).
 *
 * Field order follows the Rust structs, so a payload re-encoded from its parsed form is byte-equal
 * to what serde wrote. `#[serde(default)]` fields are optional here with the same default.
 */
import * as v from "valibot";

const U32 = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffff_ffff));
/** u64 on the wire; JSON numbers beyond 2^53 cannot be held exactly, so they are refused. */
const U64 = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const I32 = v.pipe(v.number(), v.integer(), v.minValue(-0x8000_0000), v.maxValue(0x7fff_ffff));
const NullableString = v.nullable(v.string());

/**
 * `ProfileArtifactFormat` is `"svg" | "folded"` today. Any string is accepted: nothing here depends
 * on it, and a new format must not make a newer leader look malformed.
 */
const ProfileFormats = v.array(v.string());

export const ControlCommandSchema = v.variant("type", [
  v.object({ type: v.literal("get_leader_info") }),
  v.object({ type: v.literal("cpu_profile_status") }),
  v.object({
    type: v.literal("start_cpu_profile"),
    output: v.optional(NullableString, null),
    frequency_hz: v.optional(v.nullable(I32), null),
  }),
  v.object({ type: v.literal("stop_cpu_profile") }),
  v.object({
    type: v.literal("workspace_start"),
    hub_url: v.optional(NullableString, null),
    cwd: v.string(),
  }),
  v.object({ type: v.literal("workspace_pause") }),
  v.object({ type: v.literal("workspace_resume") }),
  v.object({ type: v.literal("workspace_stop") }),
  v.object({ type: v.literal("workspace_status") }),
  v.object({ type: v.literal("relaunch_for_update"), to_version: v.string() }),
]);
export type ControlCommand = v.InferOutput<typeof ControlCommandSchema>;

/** `ControlPayload::LeaderInfo`: the only place the leader names its own pid. */
export const LeaderInfoSchema = v.object({
  type: v.literal("leader_info"),
  pid: U32,
  socket_path: v.string(),
  lock_path: v.string(),
  ws_url_suffix: v.string(),
  leader_protocol_version: U32,
  leader_binary_version: v.string(),
  profiling_supported: v.boolean(),
  profiling_compiled_in: v.boolean(),
  cpu_profile_active: v.boolean(),
  cpu_profile_stopping: v.optional(v.boolean(), false),
  profile_started_at: NullableString,
  profile_formats: ProfileFormats,
});
export type LeaderInfo = v.InferOutput<typeof LeaderInfoSchema>;

export const ControlPayloadSchema = v.variant("type", [
  LeaderInfoSchema,
  v.object({
    type: v.literal("cpu_profile_status"),
    active: v.boolean(),
    stopping: v.optional(v.boolean(), false),
    started_at: NullableString,
    svg_path: NullableString,
    frequency_hz: v.nullable(I32),
  }),
  v.object({
    type: v.literal("cpu_profile_started"),
    pid: U32,
    svg_path: v.string(),
    frequency_hz: I32,
    started_at: v.string(),
  }),
  v.object({
    type: v.literal("cpu_profile_stopped"),
    pid: U32,
    svg_path: v.string(),
    started_at: v.string(),
    stopped_at: v.string(),
  }),
  v.object({
    type: v.literal("workspace_status"),
    state: v.string(),
    hub_url: v.optional(NullableString, null),
    cwd: v.optional(NullableString, null),
    uptime_ms: U64,
    active_tool_calls: U32,
    sessions: v.optional(v.array(v.string()), []),
    pid: U32,
  }),
  /** Ack of `relaunch_for_update`: the leader exits after `grace_ms` (§5 "Relaunch"). */
  v.object({
    type: v.literal("relaunching"),
    from_version: v.string(),
    to_version: v.string(),
    grace_ms: U64,
  }),
  v.object({ type: v.literal("relaunch_declined"), reason: v.string() }),
]);
export type ControlPayload = v.InferOutput<typeof ControlPayloadSchema>;

/**
 * `ControlError {code, message, details?}`; `details` is omitted when None. The codes are a closed
 * Rust enum today (`ControlErrorCode`); any string is kept so a new code surfaces as a WireError
 * with that code instead of a malformed frame.
 */
export const ControlErrorSchema = v.object({
  code: v.string(),
  message: v.string(),
  details: v.optional(v.unknown()),
});
export type ControlError = v.InferOutput<typeof ControlErrorSchema>;

/** serde's encoding of `Result<ControlPayload, ControlError>`: a map with exactly one key. */
export const ControlResultSchema = v.union([
  v.strictObject({ Ok: ControlPayloadSchema }),
  v.strictObject({ Err: ControlErrorSchema }),
]);
export type ControlResult = v.InferOutput<typeof ControlResultSchema>;

export const U32Schema = U32;
export const U64Schema = U64;
export const I32Schema = I32;
