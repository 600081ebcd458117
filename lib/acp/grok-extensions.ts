/**
 * Grok's ACP extensions as they arrive on the wire (prefixed, wrapped or bare), normalised into one
 * typed event union (docs/design/grok-leader-protocol.md §4; the shapes and their source files:
 * docs/design/decisions.md §3.1-§3.2). A modelled method whose params fail its schema is a typed
 * ACP_EXTENSION_MALFORMED event, never an exception.
 */
import * as v from "valibot";
import type { GrokSeatError } from "../errors.js";
import { AcpError } from "./acp-error.js";
import type { RpcId, RpcMessage } from "./json-rpc.js";

const QueueEntrySchema = v.looseObject({
  id: v.string(),
  version: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  owner: v.optional(v.nullable(v.string()), null),
  lastEditor: v.optional(v.nullable(v.string()), null),
  kind: v.optional(v.string(), ""),
  text: v.optional(v.string(), ""),
  position: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
});
export type QueueEntry = v.InferOutput<typeof QueueEntrySchema>;

export const QueueChangedSchema = v.looseObject({
  sessionId: v.string(),
  entries: v.optional(v.array(QueueEntrySchema), []),
  runningPromptId: v.optional(v.nullable(v.string()), null),
});

export const PromptCompleteSchema = v.looseObject({
  sessionId: v.string(),
  promptId: v.string(),
  stopReason: v.string(),
  agentResult: v.optional(v.nullable(v.string()), null),
  cancelTrigger: v.optional(v.nullable(v.string()), null),
});

const MetaSchema = v.optional(
  v.nullable(
    v.looseObject({
      promptId: v.optional(v.nullable(v.string())),
      eventId: v.optional(v.nullable(v.union([v.string(), v.number()]))),
      isReplay: v.optional(v.nullable(v.boolean())),
    }),
  ),
);

/** Envelope shared by `session/update` and Grok's session notifications. */
export const SessionEnvelopeSchema = v.looseObject({
  sessionId: v.string(),
  update: v.looseObject({ sessionUpdate: v.string() }),
  _meta: MetaSchema,
});

const TurnCompletedSchema = v.looseObject({
  prompt_id: v.string(),
  stop_reason: v.string(),
  agent_result: v.optional(v.nullable(v.string()), null),
});
const ModelChangedSchema = v.looseObject({
  model_id: v.string(),
  reasoning_effort: v.optional(v.nullable(v.string()), null),
});
const PendingInteractionSchema = v.looseObject({ tool_call_id: v.string(), kind: v.string() });
const InteractionResolvedSchema = v.looseObject({ tool_call_id: v.string() });

export const VersionMismatchSchema = v.looseObject({
  clientVersion: v.string(),
  leaderVersion: v.string(),
  message: v.string(),
});

/**
 * `x.ai/mcp/server_status` (xai-grok-shell session/mcp_dispatcher.rs `McpServerStatusPayload`):
 * one MCP server's status change in a session, e.g. `unavailable` / `config_removed` when an
 * attach's server list no longer holds it.
 */
const McpServerStatusSchema = v.looseObject({
  sessionId: v.string(),
  name: v.string(),
  status: v.string(),
  reason: v.string(),
  detail: v.optional(v.nullable(v.string()), null),
});

const PermissionRequestSchema = v.looseObject({
  sessionId: v.string(),
  toolCall: v.looseObject({ toolCallId: v.string() }),
});
const ToolCallRequestSchema = v.looseObject({
  sessionId: v.string(),
  toolCallId: v.string(),
});

/** Which owner action an interaction reverse-request asks for. */
export type InteractionKind = "permission" | "question" | "plan_approval";

export type GrokEvent =
  | {
      readonly type: "queue_changed";
      readonly sessionId: string;
      readonly entries: readonly QueueEntry[];
      readonly runningPromptId: string | null;
    }
  | {
      readonly type: "prompt_complete";
      readonly sessionId: string;
      readonly promptId: string;
      readonly stopReason: string;
      readonly agentResult: string | null;
    }
  | {
      readonly type: "turn_completed";
      readonly sessionId: string;
      readonly promptId: string;
      readonly stopReason: string;
      readonly agentResult: string | null;
      readonly replay: boolean;
    }
  | {
      readonly type: "model_changed";
      readonly sessionId: string;
      readonly modelId: string;
      readonly reasoningEffort: string | null;
    }
  | {
      readonly type: "pending_interaction";
      readonly sessionId: string;
      readonly toolCallId: string;
      readonly kind: string;
    }
  | {
      readonly type: "interaction_resolved";
      readonly sessionId: string;
      readonly toolCallId: string;
    }
  | {
      /** A standard ACP `session/update` (any kind, including ones the SDK does not know). */
      readonly type: "session_update";
      readonly sessionId: string;
      readonly kind: string;
      readonly promptId: string | null;
      readonly replay: boolean;
    }
  | {
      /** A Grok session update of a kind we do not model (kept, counted). */
      readonly type: "grok_update";
      readonly sessionId: string;
      readonly kind: string;
      readonly replay: boolean;
    }
  | {
      /** A shared interaction reverse-request: the owner answers it in the TUI, never us. */
      readonly type: "interaction_request";
      readonly id: RpcId;
      readonly method: string;
      readonly kind: InteractionKind;
      readonly sessionId: string;
      readonly toolCallId: string;
    }
  | {
      readonly type: "version_mismatch";
      readonly clientVersion: string;
      readonly leaderVersion: string;
      readonly message: string;
    }
  | { readonly type: "config_changed"; readonly params: unknown }
  | {
      readonly type: "mcp_server_status";
      readonly sessionId: string;
      readonly name: string;
      readonly status: string;
      readonly reason: string;
      readonly detail: string | null;
    }
  | { readonly type: "malformed"; readonly method: string; readonly error: GrokSeatError }
  | { readonly type: "unknown"; readonly key: string; readonly message: RpcMessage };

/** Method name and real params of a request/notification, unwrapping every ext form. */
export function normalizeExt(method: string, params: unknown): { method: string; params: unknown } {
  if (!method.startsWith("_")) return { method, params };
  if (
    typeof params === "object" &&
    params !== null &&
    "method" in params &&
    typeof params.method === "string" &&
    "params" in params
  ) {
    return { method: params.method, params: params.params };
  }
  return { method: method.slice(1), params };
}

const INTERACTION_METHODS: Readonly<Record<string, InteractionKind>> = {
  "session/request_permission": "permission",
  "x.ai/ask_user_question": "question",
  "x.ai/exit_plan_mode": "plan_approval",
};

/** Whether a (normalised) request method is a shared interaction the owner must answer. */
export function interactionKindOf(method: string): InteractionKind | null {
  return INTERACTION_METHODS[normalizeExt(method, undefined).method] ?? null;
}

function bad(method: string, issues: readonly v.BaseIssue<unknown>[]): GrokEvent {
  return {
    type: "malformed",
    method,
    error: new AcpError("ACP_EXTENSION_MALFORMED", `malformed ${method} params`, {
      details: { method, issues: issues.map((i) => i.message).slice(0, 5) },
    }),
  };
}

function sessionUpdateEvent(method: string, params: unknown, grok: boolean): GrokEvent {
  const env = v.safeParse(SessionEnvelopeSchema, params);
  if (!env.success) return bad(method, env.issues);
  const { sessionId, update, _meta } = env.output;
  const replay = _meta?.isReplay === true;
  if (!grok) {
    return {
      type: "session_update",
      sessionId,
      kind: update.sessionUpdate,
      promptId: _meta?.promptId ?? null,
      replay,
    };
  }
  switch (update.sessionUpdate) {
    case "turn_completed": {
      const t = v.safeParse(TurnCompletedSchema, update);
      if (!t.success) return bad(`${method}#turn_completed`, t.issues);
      return {
        type: "turn_completed",
        sessionId,
        promptId: t.output.prompt_id,
        stopReason: t.output.stop_reason,
        agentResult: t.output.agent_result,
        replay,
      };
    }
    case "model_changed": {
      const m = v.safeParse(ModelChangedSchema, update);
      if (!m.success) return bad(`${method}#model_changed`, m.issues);
      return {
        type: "model_changed",
        sessionId,
        modelId: m.output.model_id,
        reasoningEffort: m.output.reasoning_effort,
      };
    }
    case "pending_interaction": {
      const p = v.safeParse(PendingInteractionSchema, update);
      if (!p.success) return bad(`${method}#pending_interaction`, p.issues);
      return {
        type: "pending_interaction",
        sessionId,
        toolCallId: p.output.tool_call_id,
        kind: p.output.kind,
      };
    }
    case "interaction_resolved": {
      const r = v.safeParse(InteractionResolvedSchema, update);
      if (!r.success) return bad(`${method}#interaction_resolved`, r.issues);
      return { type: "interaction_resolved", sessionId, toolCallId: r.output.tool_call_id };
    }
    default:
      return { type: "grok_update", sessionId, kind: update.sessionUpdate, replay };
  }
}

/**
 * Classify one incoming request or notification. Responses are not events (the SDK correlates
 * them); passing one yields `unknown`.
 */
export function classifyGrokMessage(message: RpcMessage): GrokEvent {
  if (message.kind === "response") return { type: "unknown", key: "response", message };
  const { method, params } = normalizeExt(message.method, message.params);
  if (message.kind === "request") {
    const kind = INTERACTION_METHODS[method];
    if (kind === undefined) return { type: "unknown", key: `request:${method}`, message };
    let target: { sessionId: string; toolCallId: string };
    if (kind === "permission") {
      const p = v.safeParse(PermissionRequestSchema, params);
      if (!p.success) return bad(method, p.issues);
      target = { sessionId: p.output.sessionId, toolCallId: p.output.toolCall.toolCallId };
    } else {
      const p = v.safeParse(ToolCallRequestSchema, params);
      if (!p.success) return bad(method, p.issues);
      target = { sessionId: p.output.sessionId, toolCallId: p.output.toolCallId };
    }
    return { type: "interaction_request", id: message.id, method: message.method, kind, ...target };
  }
  switch (method) {
    case "x.ai/queue/changed": {
      const q = v.safeParse(QueueChangedSchema, params);
      if (!q.success) return bad(method, q.issues);
      return {
        type: "queue_changed",
        sessionId: q.output.sessionId,
        entries: q.output.entries,
        runningPromptId: q.output.runningPromptId,
      };
    }
    case "x.ai/session/prompt_complete": {
      const c = v.safeParse(PromptCompleteSchema, params);
      if (!c.success) return bad(method, c.issues);
      return {
        type: "prompt_complete",
        sessionId: c.output.sessionId,
        promptId: c.output.promptId,
        stopReason: c.output.stopReason,
        agentResult: c.output.agentResult,
      };
    }
    case "x.ai/session_notification":
    case "x.ai/session/update":
      return sessionUpdateEvent(method, params, true);
    case "session/update":
      return sessionUpdateEvent(method, params, false);
    case "x.ai/leader/version_mismatch": {
      const m = v.safeParse(VersionMismatchSchema, params);
      if (!m.success) return bad(method, m.issues);
      return {
        type: "version_mismatch",
        clientVersion: m.output.clientVersion,
        leaderVersion: m.output.leaderVersion,
        message: m.output.message,
      };
    }
    case "x.ai/config_changed":
      return { type: "config_changed", params };
    case "x.ai/mcp/server_status": {
      const m = v.safeParse(McpServerStatusSchema, params);
      if (!m.success) return bad(method, m.issues);
      const { sessionId, name, status, reason, detail } = m.output;
      return { type: "mcp_server_status", sessionId, name, status, reason, detail };
    }
    default:
      return { type: "unknown", key: `notification:${method}`, message };
  }
}
