/**
 * Outbound session notifications of one session actor (session/acp_session_impl/updates.rs):
 * `session/update` with the `_meta` of send_update_full (totalTokens, eventId,
 * agentTimestampMs, promptId, streamStartMs, turnStartMs, updateType, updateParams, chunkId),
 * persisted xAI notifications (`_x.ai/session_notification` with eventId/agentTimestampMs, also
 * written to updates.jsonl as `_x.ai/session/update`) and transient ones (agentTimestampMs only,
 * never persisted). While `gatewayEnabled` is false (a replaying load of a resident session)
 * updates are persisted but not forwarded. The user echo is not a send_update: turn.rs builds its
 * notification `_meta` with `build_notification_meta` (eventId and agentTimestampMs only, so no
 * promptId) and persists/forwards it directly. Every eventId is `{sessionId}-{n}` from one
 * process-wide counter (xai-grok-shell-base util/event_id.rs).
 */
import { notification } from "./rpc.js";
import type { SessionStore } from "./store.js";

export interface UpdateSink {
  emit(line: string): void;
  nextEventId(sessionId: string): string;
}

export interface TurnClock {
  promptId: string | undefined;
  turnStartMs: number | undefined;
  streamStartMs: number | undefined;
}

const UPDATE_TYPE: Record<string, string> = {
  user_message_chunk: "UserMessageChunk",
  agent_message_chunk: "AgentMessageChunk",
  agent_thought_chunk: "AgentThoughtChunk",
  tool_call: "ToolCall",
  tool_call_update: "ToolCallUpdate",
  plan: "Plan",
  current_mode_update: "CurrentModeUpdate",
};

function debugName(s: string): string {
  return (
    s.charAt(0).toUpperCase() + s.slice(1).replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())
  );
}

export class SessionEmitter {
  gatewayEnabled = true;
  totalTokens = 0;
  readonly clock: TurnClock = {
    promptId: undefined,
    turnStartMs: undefined,
    streamStartMs: undefined,
  };
  private readonly sessionId: string;
  private readonly store: SessionStore;
  private readonly sink: UpdateSink;

  constructor(sessionId: string, store: SessionStore, sink: UpdateSink) {
    this.sessionId = sessionId;
    this.store = store;
    this.sink = sink;
  }

  /** send_update_full: a persisted `session/update`. */
  update(update: Record<string, unknown>, chunkIndex?: number): void {
    const kind = String(update.sessionUpdate);
    const meta: Record<string, unknown> = {
      totalTokens: this.totalTokens,
      eventId: this.sink.nextEventId(this.sessionId),
      agentTimestampMs: Date.now(),
    };
    if (this.clock.promptId !== undefined) meta.promptId = this.clock.promptId;
    if (this.clock.streamStartMs !== undefined) meta.streamStartMs = this.clock.streamStartMs;
    if (this.clock.turnStartMs !== undefined) meta.turnStartMs = this.clock.turnStartMs;
    const updateType = UPDATE_TYPE[kind];
    if (updateType !== undefined) meta.updateType = updateType;
    if (kind === "tool_call") {
      meta.updateParams = {
        toolCallId: update.toolCallId,
        title: update.title,
        kind: debugName(String(update.kind ?? "other")),
        status: debugName(String(update.status ?? "pending")),
      };
    } else if (kind === "tool_call_update") {
      meta.updateParams = {
        toolCallId: update.toolCallId,
        status: update.status === undefined ? null : debugName(String(update.status)),
      };
    } else if (kind === "plan") {
      meta.updateParams = { planSteps: Array.isArray(update.entries) ? update.entries.length : 0 };
    } else if (kind === "current_mode_update") {
      meta.updateParams = { currentModeId: update.currentModeId };
    }
    if (chunkIndex !== undefined) meta.chunkId = chunkIndex;
    const params = { sessionId: this.sessionId, update, _meta: meta };
    this.store.append("session/update", params);
    if (this.gatewayEnabled) this.sink.emit(notification("session/update", params));
  }

  /**
   * An update stamped with `build_notification_meta` only (eventId, agentTimestampMs), persisted
   * and forwarded: the user echo (turn.rs) and `current_mode_update`
   * (`enqueue_current_mode_update`, updates.rs).
   */
  direct(update: Record<string, unknown>): void {
    const params = {
      sessionId: this.sessionId,
      update,
      _meta: { eventId: this.sink.nextEventId(this.sessionId), agentTimestampMs: Date.now() },
    };
    this.store.append("session/update", params);
    if (this.gatewayEnabled) this.sink.emit(notification("session/update", params));
  }

  /** A broadcast-only ACP notification without `_meta` (summary.rs session_info_update). */
  acpTransient(update: Record<string, unknown>): void {
    if (this.gatewayEnabled)
      this.sink.emit(notification("session/update", { sessionId: this.sessionId, update }));
  }

  /** send_xai_notification_with_extra_meta: persisted and forwarded. */
  xaiPersisted(update: Record<string, unknown>, extraMeta: Record<string, unknown> = {}): void {
    const params = {
      sessionId: this.sessionId,
      update,
      _meta: {
        eventId: this.sink.nextEventId(this.sessionId),
        agentTimestampMs: Date.now(),
        ...extraMeta,
      },
    };
    this.store.append("_x.ai/session/update", params);
    if (this.gatewayEnabled) this.sink.emit(notification("_x.ai/session_notification", params));
  }

  /** A broadcast-only xAI notification with no `_meta` (summary.rs notify_client). */
  xaiBroadcast(update: Record<string, unknown>): void {
    if (this.gatewayEnabled)
      this.sink.emit(
        notification("_x.ai/session_notification", { sessionId: this.sessionId, update }),
      );
  }

  /** send_xai_notification_transient: forwarded, never persisted. */
  xaiTransient(update: Record<string, unknown>): void {
    const params = { sessionId: this.sessionId, update, _meta: { agentTimestampMs: Date.now() } };
    if (this.gatewayEnabled) this.sink.emit(notification("_x.ai/session_notification", params));
  }
}
