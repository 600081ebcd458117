/**
 * Pure payload inspection and rewriting done by the leader's routing loop, one function per
 * helper of leader/server.rs (rewrite_request_id, parse_response_id, extract_session_id,
 * method_of, inject_session_request_context, ...). They mutate parsed JSON in place and report
 * whether they did, so the caller re-serializes only mutated payloads (select_outbound_payload).
 */

import { ensureMeta, field, has, isRecord, type JsonRecord, str, u64 } from "../json.js";
import type { ClientCapabilities } from "../wire.js";

const ID_NAMESPACE_SEP = "|";

/** rewrite_request_id: only messages with both `method` and `id` (id may be null). */
export function rewriteRequestId(
  json: unknown,
  clientId: number,
): { namespacedId: string; originalId: unknown } | undefined {
  if (!isRecord(json) || !has(json, "method") || !has(json, "id")) return undefined;
  const originalId = json.id;
  const namespacedId = `${clientId}${ID_NAMESPACE_SEP}${JSON.stringify(originalId)}`;
  json.id = namespacedId;
  return { namespacedId, originalId };
}

/** parse_response_id: "<u64>|<json>" restores the original id (type preserved). */
export function parseResponseId(
  json: unknown,
): { clientId: number; namespacedId: string } | undefined {
  const id = field(json, "id");
  if (typeof id !== "string" || !isRecord(json)) return undefined;
  const sep = id.indexOf(ID_NAMESPACE_SEP);
  if (sep < 0) return undefined;
  const clientPart = id.slice(0, sep);
  if (!/^\+?\d+$/.test(clientPart)) return undefined;
  let original: unknown;
  try {
    original = JSON.parse(id.slice(sep + 1));
  } catch {
    return undefined;
  }
  json.id = original;
  return { clientId: Number(clientPart), namespacedId: id };
}

function sessionIdIn(value: unknown): string | undefined {
  return str(field(value, "sessionId")) ?? str(field(value, "session_id"));
}

/** extract_session_id: params.sessionId | params.session_id | params.params.sessionId. */
export function extractSessionId(json: unknown): string | undefined {
  const params = field(json, "params");
  if (params === undefined) return undefined;
  return sessionIdIn(params) ?? sessionIdIn(field(params, "params"));
}

export function isSessionAttachRequest(json: unknown): boolean {
  const m = field(json, "method");
  return m === "session/load" || m === "session/resume";
}

function metaValue(json: unknown, key: string): unknown {
  const params = field(json, "params");
  const direct = field(field(params, "_meta"), key);
  return direct !== undefined ? direct : field(field(field(params, "params"), "_meta"), key);
}

/** extract_target_client_id: params._meta["x.ai/leaderClientId"] as u64. */
export function extractTargetClientId(json: unknown): number | undefined {
  return u64(metaValue(json, "x.ai/leaderClientId"));
}

/** event_seq_of: the counter after the last '-' of _meta.eventId. */
export function eventSeqOf(json: unknown): number | undefined {
  const id = str(metaValue(json, "eventId"));
  if (id === undefined) return undefined;
  const dash = id.lastIndexOf("-");
  if (dash < 0) return undefined;
  const tail = id.slice(dash + 1);
  return /^\+?\d+$/.test(tail) ? Number(tail) : undefined;
}

/** method_of: normalizes `_x.ai/foo` (direct) and the gateway-wrapped form to `x.ai/foo`. */
export function methodOf(json: unknown): string | undefined {
  const top = str(field(json, "method"));
  if (top === undefined) return undefined;
  if (top.startsWith("_")) return str(field(field(json, "params"), "method")) ?? top.slice(1);
  return top;
}

export function interactionInnerParams(json: unknown): unknown {
  const params = field(json, "params");
  if (params === undefined) return undefined;
  const inner = field(params, "params");
  return has(params, "method") && inner !== undefined ? inner : params;
}

const MACHINE_WIDE = new Set([
  "x.ai/sessions/changed",
  "x.ai/models/update",
  "x.ai/mcp/servers_updated",
  "x.ai/announcements/update",
]);

/** Whether the message's method (as `methodOf` reads it) is one of `methods`. */
function methodIn(json: unknown, methods: ReadonlySet<string>): boolean {
  const m = methodOf(json);
  return m !== undefined && methods.has(m);
}

export function isMachineWideBroadcast(json: unknown): boolean {
  return methodIn(json, MACHINE_WIDE);
}

export function isScheduledTaskInjectPrompt(json: unknown): boolean {
  return methodOf(json) === "x.ai/scheduled_task_inject_prompt";
}

const INTERACTIONS = new Set([
  "session/request_permission",
  "x.ai/ask_user_question",
  "x.ai/exit_plan_mode",
]);

export function isInteractionRequest(json: unknown): boolean {
  return methodIn(json, INTERACTIONS);
}

export function extractInteractionToolCallId(json: unknown): string | undefined {
  const params = interactionInnerParams(json);
  const direct = str(field(params, "toolCallId")) ?? str(field(params, "tool_call_id"));
  if (direct !== undefined) return direct;
  const tc = field(params, "toolCall") ?? field(params, "tool_call");
  return str(field(tc, "toolCallId")) ?? str(field(tc, "tool_call_id")) ?? str(field(tc, "id"));
}

export function extractInteractionResolvedToolCallId(json: unknown): string | undefined {
  if (methodOf(json) !== "x.ai/session_notification") return undefined;
  const update = field(interactionInnerParams(json), "update");
  if (field(update, "sessionUpdate") !== "interaction_resolved") return undefined;
  return str(field(update, "tool_call_id")) ?? str(field(update, "toolCallId"));
}

/** extract_session_id_from_prompt_complete: matches the raw (unprefixed) method only. */
export function extractSessionIdFromPromptComplete(json: unknown): string | undefined {
  if (field(json, "method") !== "x.ai/session/prompt_complete") return undefined;
  return sessionIdIn(field(json, "params"));
}

export function extractSessionIdFromResult(json: unknown): string | undefined {
  const result = field(json, "result");
  return str(field(result, "session_id")) ?? str(field(result, "sessionId"));
}

/** inject_session_request_context (server.rs), for session/new | load | resume. */
export function injectSessionRequestContext(
  json: unknown,
  caps: ClientCapabilities,
  clientType: string,
  clientId: number,
): boolean {
  const hasModel = caps.default_model !== null && caps.default_model !== "";
  if (
    !caps.yolo_mode &&
    !caps.auto_mode &&
    !hasModel &&
    clientType === "" &&
    !caps.code_nav_enabled &&
    !caps.terminal &&
    !caps.fs_read &&
    !caps.fs_write &&
    !caps.status_line
  ) {
    return false;
  }
  const method = str(field(json, "method")) ?? "";
  const isNew = method === "session/new";
  if (!isNew && method !== "session/load" && method !== "session/resume") return false;
  const params = field(json, "params");
  if (!isRecord(params)) return false;
  const meta = ensureMeta(params);
  if (meta === undefined) return false;
  if (isNew && caps.yolo_mode && !has(meta, "yoloMode")) meta.yoloMode = true;
  if (caps.auto_mode && !caps.yolo_mode && !has(meta, "autoMode")) meta.autoMode = true;
  if (isNew && hasModel && !has(meta, "modelId")) meta.modelId = caps.default_model;
  if (clientType !== "" && !has(meta, "clientIdentifier")) meta.clientIdentifier = clientType;
  if (!has(meta, "x.ai/leaderClientId")) meta["x.ai/leaderClientId"] = clientId;
  setKey(meta, "codeNavEnabled", caps.code_nav_enabled);
  setKey(meta, "clientTerminal", caps.terminal);
  setKey(meta, "clientFsRead", caps.fs_read);
  setKey(meta, "clientFsWrite", caps.fs_write);
  setKey(meta, "clientStatusLine", caps.status_line);
  return true;
}

/** serde_json Map::insert keeps an existing key's position (IndexMap, preserve_order). */
function setKey(obj: JsonRecord, key: string, value: unknown): void {
  obj[key] = value;
}

/** inject_client_identity_into_initialize: returns [mutated, wasInitialize]. */
export function injectClientIdentityIntoInitialize(
  json: unknown,
  clientType: string,
): [boolean, boolean] {
  if (clientType === "") return [false, false];
  if (field(json, "method") !== "initialize") return [false, false];
  const params = field(json, "params");
  if (!isRecord(params)) return [false, true];
  const meta = ensureMeta(params);
  if (meta === undefined || has(meta, "clientIdentifier")) return [false, true];
  meta.clientIdentifier = clientType;
  return [true, true];
}

export function injectClientIdentityIntoYoloNotification(
  json: unknown,
  clientType: string,
): boolean {
  if (clientType === "" || field(json, "method") !== "x.ai/yolo_mode_changed") return false;
  const params = field(json, "params");
  if (!isRecord(params)) return false;
  params.clientIdentifier = clientType;
  return true;
}

export function extractYoloModeChange(json: unknown): boolean | undefined {
  if (field(json, "method") !== "x.ai/yolo_mode_changed") return undefined;
  const value = field(field(json, "params"), "yolo_mode");
  return typeof value === "boolean" ? value : undefined;
}

export function extractAutoModeChange(json: unknown): boolean | undefined {
  if (field(json, "method") !== "x.ai/yolo_mode_changed") return undefined;
  const params = field(json, "params");
  const auto = field(params, "auto_mode");
  if (typeof auto === "boolean") return auto;
  const mode = field(params, "permission_mode");
  if (mode === "auto") return true;
  if (mode === "always-approve" || mode === "ask" || mode === "default") return false;
  return undefined;
}

export function extractModelIdFromSetModel(json: unknown): string | undefined {
  if (field(json, "method") !== "session/set_model") return undefined;
  const params = field(json, "params");
  const id = str(field(params, "modelId")) ?? str(field(params, "model_id"));
  return id === "" ? undefined : id;
}

/** make_leader_starting_error: only for messages with a non-null id. */
export function makeLeaderStartingError(json: unknown): string | undefined {
  const id = field(json, "id");
  if (id === undefined || id === null) return undefined;
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: {
      code: -32002,
      message: "leader_starting",
      data: "Leader is still initializing (auth in progress). Retry shortly.",
    },
  });
}

/** make_version_mismatch_notification: raw method, no `_` prefix. */
export function makeVersionMismatchNotification(
  clientVersion: string,
  leaderVersion: string,
): string | undefined {
  if (clientVersion === leaderVersion || leaderVersion === "unknown") return undefined;
  return JSON.stringify({
    jsonrpc: "2.0",
    method: "x.ai/leader/version_mismatch",
    params: {
      clientVersion,
      leaderVersion,
      message: `Client version ${clientVersion} differs from leader version ${leaderVersion}. Restart the grok binary to use the same version.`,
    },
  });
}

/** patch_initialize_response_model: pointer /result/meta/modelState/currentModelId. */
export function patchInitializeResponseModel(json: unknown, defaultModel: string | null): boolean {
  if (defaultModel === null || defaultModel === "") return false;
  const modelState = field(field(field(json, "result"), "meta"), "modelState");
  const current = str(field(modelState, "currentModelId"));
  if (current === undefined || current === defaultModel || !isRecord(modelState)) return false;
  modelState.currentModelId = defaultModel;
  return true;
}

/** leader_is_older_than: strictly older parseable semver; unparseable never. */
export function leaderIsOlderThan(leaderVersion: string, baseline: string): boolean {
  const a = parseSemver(leaderVersion);
  const b = parseSemver(baseline);
  if (a === undefined || b === undefined) return false;
  return compareSemver(a, b) < 0;
}

interface Semver {
  core: [number, number, number];
  pre: string[];
}

function parseSemver(s: string): Semver | undefined {
  const m =
    /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(s);
  if (m === null) return undefined;
  return {
    core: [Number(m[1]), Number(m[2]), Number(m[3])],
    pre: m[4] === undefined ? [] : m[4].split("."),
  };
}

function compareSemver(a: Semver, b: Semver): number {
  for (let i = 0; i < 3; i++) {
    const d = (a.core[i] ?? 0) - (b.core[i] ?? 0);
    if (d !== 0) return d;
  }
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length;
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
