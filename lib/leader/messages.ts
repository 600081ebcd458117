/**
 * Frames <-> messages for the Grok leader socket: every `ClientMessage` and `ServerMessage` of
 * `leader/protocol.rs` (docs/design/grok-leader-protocol.md §3), internally tagged on `"type"`, snake_case.
 *
 * Schemas follow serde exactly where it matters to us: unknown fields are ignored, `#[serde(default)]`
 * fields are optional with the same default (so a legacy `{"type":"registered","client_id":7}` reads
 * as `ready: true` with null metadata), and field order follows the Rust structs so re-encoding a
 * parsed message gives serde's bytes. An unknown `type` is UNKNOWN_MESSAGE_TYPE, any other mismatch
 * INVALID_MESSAGE: both typed, never a crash.
 */
import * as v from "valibot";
import {
  type ControlCommand,
  ControlCommandSchema,
  ControlResultSchema,
  I32Schema,
  U32Schema,
  U64Schema,
} from "./control.js";
import { LeaderError } from "./leader-error.js";

/** `LEADER_PROTOCOL_VERSION` in `leader/protocol.rs`. */
export const LEADER_PROTOCOL_VERSION = 1;

/** `ClientCapabilities`: every field `#[serde(default)]`. */
export const ClientCapabilitiesSchema = v.object({
  yolo_mode: v.optional(v.boolean(), false),
  auto_mode: v.optional(v.boolean(), false),
  default_model: v.optional(v.nullable(v.string()), null),
  client_version: v.optional(v.nullable(v.string()), null),
  code_nav_enabled: v.optional(v.boolean(), false),
  terminal: v.optional(v.boolean(), false),
  fs_read: v.optional(v.boolean(), false),
  fs_write: v.optional(v.boolean(), false),
  status_line: v.optional(v.boolean(), false),
});
export type ClientCapabilities = v.InferOutput<typeof ClientCapabilitiesSchema>;

/** `LeaderCapabilities`: every field `#[serde(default)]` (`server.rs`, `leader_capabilities`). */
export const LeaderCapabilitiesSchema = v.object({
  control_v1: v.optional(v.boolean(), false),
  runtime_cpu_profile: v.optional(v.boolean(), false),
  profile_formats: v.optional(v.array(v.string()), []),
  workspace_exposure: v.optional(v.boolean(), false),
  relaunch_v1: v.optional(v.boolean(), false),
});
export type LeaderCapabilities = v.InferOutput<typeof LeaderCapabilitiesSchema>;

export const RegisteredSchema = v.object({
  type: v.literal("registered"),
  client_id: U64Schema,
  // `default_ready()`: leaders that predate the field were already initialised.
  ready: v.optional(v.boolean(), true),
  leader_protocol_version: v.optional(v.nullable(U32Schema), null),
  leader_binary_version: v.optional(v.nullable(v.string()), null),
  leader_capabilities: v.optional(v.nullable(LeaderCapabilitiesSchema), null),
});
export type Registered = v.InferOutput<typeof RegisteredSchema>;

export const ShutdownReasonSchema = v.picklist(["auto_update", "idle_timeout", "manual"]);
export type ShutdownReason = v.InferOutput<typeof ShutdownReasonSchema>;

const serverVariants = [
  RegisteredSchema,
  v.object({ type: v.literal("acp"), payload: v.string() }),
  v.object({
    type: v.literal("control_result"),
    request_id: v.string(),
    result: ControlResultSchema,
  }),
  v.object({ type: v.literal("pong") }),
  /** Codes: 1 "Expected Register message" (then close), 2 "Already registered", 3 "Registration timeout". */
  v.object({ type: v.literal("error"), code: I32Schema, message: v.string() }),
  v.object({
    type: v.literal("shutting_down"),
    reason: ShutdownReasonSchema,
    delay_ms: U64Schema,
  }),
  v.object({ type: v.literal("shutdown") }),
  v.object({ type: v.literal("leader_ready") }),
] as const;
export const ServerMessageSchema = v.variant("type", serverVariants);
export type ServerMessage = v.InferOutput<typeof ServerMessageSchema>;

const clientVariants = [
  v.object({
    type: v.literal("register"),
    client_type: v.string(),
    mode: v.picklist(["stdio", "headless"]),
    capabilities: v.optional(ClientCapabilitiesSchema, {}),
  }),
  v.object({ type: v.literal("acp"), payload: v.string() }),
  v.object({ type: v.literal("control"), request_id: v.string(), command: ControlCommandSchema }),
  v.object({ type: v.literal("ping") }),
  v.object({ type: v.literal("disconnect") }),
] as const;
export const ClientMessageSchema = v.variant("type", clientVariants);
export type ClientMessage = v.InferOutput<typeof ClientMessageSchema>;

export const SERVER_MESSAGE_TYPES: readonly string[] = serverVariants.map(
  (s) => s.entries.type.literal,
);
export const CLIENT_MESSAGE_TYPES: readonly string[] = clientVariants.map(
  (s) => s.entries.type.literal,
);

function parseTagged<S extends v.GenericSchema>(
  schema: S,
  known: readonly string[],
  side: "server" | "client",
  value: unknown,
): v.InferOutput<S> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LeaderError("INVALID_MESSAGE", `${side} message is not a JSON object`, {
      details: { side },
    });
  }
  const type: unknown = "type" in value ? value.type : undefined;
  if (typeof type === "string" && !known.includes(type)) {
    throw new LeaderError("UNKNOWN_MESSAGE_TYPE", `unknown ${side} message type "${type}"`, {
      details: { side, type },
    });
  }
  const result = v.safeParse(schema, value);
  if (!result.success) {
    const issue = result.issues[0];
    throw new LeaderError("INVALID_MESSAGE", `invalid ${side} message: ${issue.message}`, {
      details: { side, type: typeof type === "string" ? type : null, path: v.getDotPath(issue) },
    });
  }
  return result.output;
}

/** Parse a decoded frame from the leader. Throws INVALID_MESSAGE or UNKNOWN_MESSAGE_TYPE. */
export function parseServerMessage(value: unknown): ServerMessage {
  return parseTagged(ServerMessageSchema, SERVER_MESSAGE_TYPES, "server", value);
}

/** Parse a decoded frame from a client (used by test leaders). Same errors as parseServerMessage. */
export function parseClientMessage(value: unknown): ClientMessage {
  return parseTagged(ClientMessageSchema, CLIENT_MESSAGE_TYPES, "client", value);
}

/** What this library names itself in `register.client_type` (it becomes `clientIdentifier`, §7). */
export const CLIENT_TYPE = "grok-seat";

/**
 * Our `register`: `mode:"stdio"` (`headless` would start the relay WebSocket, §3), no
 * `client_version`, which would only trigger a `version_mismatch` notice (§3), and
 * `status_line:true`. Every attach sets the session's status-row flag to the attaching client's
 * value (the leader injects it as `_meta.clientStatusLine`, `leader/server.rs`
 * `inject_session_request_context`; `agent/mvp_agent/agent_ops.rs` `attach_status_line`): `false`
 * would switch off a row the owner's TUI draws. The TUI itself registers `false` unless
 * `[ui.status_line]` reserves a row and it is not in minimal mode (`pager/src/app/status_line.rs`
 * `draws_a_row`); then our `true` only has the agent build status snapshots nobody paints. Keys
 * are in the Rust field order: this is byte-for-byte the note's fixture 2 with our `client_type`.
 */
export function registerMessage(clientType: string = CLIENT_TYPE): ClientMessage {
  return {
    type: "register",
    client_type: clientType,
    mode: "stdio",
    capabilities: {
      yolo_mode: false,
      auto_mode: false,
      default_model: null,
      client_version: null,
      code_nav_enabled: false,
      terminal: false,
      fs_read: false,
      fs_write: false,
      status_line: true,
    },
  };
}

export function acpMessage(payload: string): ClientMessage {
  return { type: "acp", payload };
}

export function controlMessage(requestId: string, command: ControlCommand): ClientMessage {
  return { type: "control", request_id: requestId, command };
}

export const PING: ClientMessage = Object.freeze({ type: "ping" });
export const DISCONNECT: ClientMessage = Object.freeze({ type: "disconnect" });
