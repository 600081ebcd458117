/**
 * Leader IPC messages (docs/design/grok-leader-protocol.md §3; leader/protocol.rs ClientMessage /
 * ServerMessage). Client messages are parsed with serde's strictness: an unknown `type`, a
 * missing required field or a wrongly typed one is a decode error (the server closes the
 * connection), unknown extra fields are ignored. Server messages are written with serde's field
 * order so frames are byte-identical to the real leader's.
 */
import * as v from "valibot";

const optionalString = v.optional(v.nullable(v.string()));

const Capabilities = v.object({
  yolo_mode: v.optional(v.boolean()),
  auto_mode: v.optional(v.boolean()),
  default_model: optionalString,
  client_version: optionalString,
  code_nav_enabled: v.optional(v.boolean()),
  terminal: v.optional(v.boolean()),
  fs_read: v.optional(v.boolean()),
  fs_write: v.optional(v.boolean()),
  status_line: v.optional(v.boolean()),
});

const ControlCommand = v.variant("type", [
  v.object({ type: v.literal("get_leader_info") }),
  v.object({ type: v.literal("cpu_profile_status") }),
  v.object({
    type: v.literal("start_cpu_profile"),
    output: optionalString,
    frequency_hz: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
  }),
  v.object({ type: v.literal("stop_cpu_profile") }),
  v.object({ type: v.literal("workspace_start"), hub_url: optionalString, cwd: v.string() }),
  v.object({ type: v.literal("workspace_pause") }),
  v.object({ type: v.literal("workspace_resume") }),
  v.object({ type: v.literal("workspace_stop") }),
  v.object({ type: v.literal("workspace_status") }),
  v.object({ type: v.literal("relaunch_for_update"), to_version: v.string() }),
]);

export const ClientMessage = v.variant("type", [
  v.object({
    type: v.literal("register"),
    client_type: v.string(),
    mode: v.picklist(["stdio", "headless"]),
    capabilities: v.optional(Capabilities),
  }),
  v.object({ type: v.literal("acp"), payload: v.string() }),
  v.object({ type: v.literal("control"), request_id: v.string(), command: ControlCommand }),
  v.object({ type: v.literal("ping") }),
  v.object({ type: v.literal("disconnect") }),
]);
export type ClientMessage = v.InferOutput<typeof ClientMessage>;
export type ControlCommand = v.InferOutput<typeof ControlCommand>;

/** ClientCapabilities with serde defaults applied. */
export interface ClientCapabilities {
  yolo_mode: boolean;
  auto_mode: boolean;
  default_model: string | null;
  client_version: string | null;
  code_nav_enabled: boolean;
  terminal: boolean;
  fs_read: boolean;
  fs_write: boolean;
  status_line: boolean;
}

export function defaultCapabilities(): ClientCapabilities {
  return {
    yolo_mode: false,
    auto_mode: false,
    default_model: null,
    client_version: null,
    code_nav_enabled: false,
    terminal: false,
    fs_read: false,
    fs_write: false,
    status_line: false,
  };
}

export function withDefaults(
  caps: v.InferOutput<typeof Capabilities> | undefined,
): ClientCapabilities {
  const d = defaultCapabilities();
  if (caps === undefined) return d;
  return {
    yolo_mode: caps.yolo_mode ?? d.yolo_mode,
    auto_mode: caps.auto_mode ?? d.auto_mode,
    default_model: caps.default_model ?? null,
    client_version: caps.client_version ?? null,
    code_nav_enabled: caps.code_nav_enabled ?? d.code_nav_enabled,
    terminal: caps.terminal ?? d.terminal,
    fs_read: caps.fs_read ?? d.fs_read,
    fs_write: caps.fs_write ?? d.fs_write,
    status_line: caps.status_line ?? d.status_line,
  };
}

/** Decode one frame body as a ClientMessage; undefined is serde's decode error. */
export function decodeClientMessage(body: Buffer): ClientMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return undefined;
  }
  const result = v.safeParse(ClientMessage, parsed);
  return result.success ? result.output : undefined;
}

export const LEADER_PROTOCOL_VERSION = 1;

/** LeaderServerControlState::leader_capabilities for a build without the CPU profiler. */
export function leaderCapabilities(): Record<string, unknown> {
  return {
    control_v1: true,
    runtime_cpu_profile: false,
    profile_formats: [],
    workspace_exposure: true,
    relaunch_v1: true,
  };
}

export function registered(clientId: number, ready: boolean, binaryVersion: string): string {
  return JSON.stringify({
    type: "registered",
    client_id: clientId,
    ready,
    leader_protocol_version: LEADER_PROTOCOL_VERSION,
    leader_binary_version: binaryVersion,
    leader_capabilities: leaderCapabilities(),
  });
}

/** The pre-metadata `registered` of old leaders (protocol.rs serde-compat test). */
export function legacyRegistered(clientId: number): string {
  return JSON.stringify({ type: "registered", client_id: clientId });
}

export const LEADER_READY = JSON.stringify({ type: "leader_ready" });
export const PONG = JSON.stringify({ type: "pong" });
export const SHUTDOWN = JSON.stringify({ type: "shutdown" });

export function errorMessage(code: 1 | 2 | 3): string {
  const message =
    code === 1
      ? "Expected Register message"
      : code === 2
        ? "Already registered"
        : "Registration timeout";
  return JSON.stringify({ type: "error", code, message });
}

export function shuttingDown(reason: "auto_update" | "idle_timeout" | "manual"): string {
  return JSON.stringify({ type: "shutting_down", reason, delay_ms: 0 });
}

export function acpEnvelope(payload: string): string {
  return JSON.stringify({ type: "acp", payload });
}

export type ControlResult =
  | { Ok: Record<string, unknown> }
  | { Err: { code: string; message: string; details?: unknown } };

export function controlResult(requestId: string, result: ControlResult): string {
  return JSON.stringify({ type: "control_result", request_id: requestId, result });
}

export interface LeaderMetadata {
  pid: number;
  socketPath: string;
  lockPath: string;
  wsUrlSuffix: string;
  binaryVersion: string;
}

/** ControlPayload::LeaderInfo (server.rs leader_info_payload), profiler inactive. */
export function leaderInfo(meta: LeaderMetadata): Record<string, unknown> {
  return {
    type: "leader_info",
    pid: meta.pid,
    socket_path: meta.socketPath,
    lock_path: meta.lockPath,
    ws_url_suffix: meta.wsUrlSuffix,
    leader_protocol_version: LEADER_PROTOCOL_VERSION,
    leader_binary_version: meta.binaryVersion,
    profiling_supported: false,
    profiling_compiled_in: false,
    cpu_profile_active: false,
    cpu_profile_stopping: false,
    profile_started_at: null,
    profile_formats: [],
  };
}

/** ControlPayload::WorkspaceStatus with no exposure (build_workspace_status, None arm). */
export function workspaceStatusNone(pid: number): Record<string, unknown> {
  return {
    type: "workspace_status",
    state: "none",
    hub_url: null,
    cwd: null,
    uptime_ms: 0,
    active_tool_calls: 0,
    sessions: [],
    pid,
  };
}
