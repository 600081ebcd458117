/**
 * Receipt evidence: what in an ACP message proves that Grok consumed a prompt or that its turn
 * ended, and for which prompt id (pure; lib/delivery/receipt.ts decides what it changes). A result
 * counts only when it echoes both our session id and our prompt id; the rules and their sources
 * are docs/design/decisions.md §4.2.
 */
import * as v from "valibot";
import type {
  ConsumptionEvidence,
  RejectionEvidence,
  ResultEvidence,
} from "../delivery/receipt.js";
import { type GrokEvent, SessionEnvelopeSchema } from "./grok-extensions.js";

/** The journal's stop-reason form (`lib/delivery/journal-record.ts`, `StopReason`). */
const STOP_REASON = /^[a-z][a-z0-9_]{0,31}$/;

/** A queue row as last seen, for `x.ai/queue/remove {expectedVersion, owner}`. */
export interface QueueRow {
  readonly promptId: string;
  readonly version: number;
  readonly owner: string | null;
  readonly position: number;
}

export type Evidence =
  | {
      readonly kind: "consumed";
      readonly evidence: ConsumptionEvidence;
      /** The queue row when the prompt is queued; null when it is running. */
      readonly row: QueueRow | null;
    }
  | { readonly kind: "result"; readonly evidence: ResultEvidence };

function result(
  sessionId: string,
  promptId: string,
  channel: ResultEvidence["channel"],
  stopReason: string,
  detail: string,
): Evidence | null {
  if (!STOP_REASON.test(stopReason)) return null;
  return { kind: "result", evidence: { sessionId, promptId, channel, stopReason, detail } };
}

/** Every piece of evidence one tap event carries for prompts of `sessionId`. */
export function evidenceFromEvent(event: GrokEvent, sessionId: string): Evidence[] {
  switch (event.type) {
    case "queue_changed": {
      if (event.sessionId !== sessionId) return [];
      const out: Evidence[] = event.entries.map((e) => ({
        kind: "consumed",
        evidence: {
          sessionId,
          promptId: e.id,
          kind: "queue-entry",
          detail: `position ${e.position}, version ${e.version}`,
        },
        row: { promptId: e.id, version: e.version, owner: e.owner, position: e.position },
      }));
      if (event.runningPromptId !== null) {
        out.push({
          kind: "consumed",
          evidence: {
            sessionId,
            promptId: event.runningPromptId,
            kind: "running-prompt",
            detail: "x.ai/queue/changed runningPromptId",
          },
          row: null,
        });
      }
      return out;
    }
    case "session_update":
      if (event.sessionId !== sessionId || event.promptId === null) return [];
      return [
        {
          kind: "consumed",
          evidence: {
            sessionId,
            promptId: event.promptId,
            kind: "running-prompt",
            detail: `session/update ${event.kind}${event.replay ? " (replay)" : ""}`,
          },
          row: null,
        },
      ];
    case "prompt_complete": {
      if (event.sessionId !== sessionId) return [];
      const e = result(
        sessionId,
        event.promptId,
        "prompt-complete",
        event.stopReason,
        "x.ai/session/prompt_complete",
      );
      return e === null ? [] : [e];
    }
    case "turn_completed": {
      if (event.sessionId !== sessionId) return [];
      const e = result(
        sessionId,
        event.promptId,
        "turn-completed",
        event.stopReason,
        event.replay ? "turn_completed (replayed)" : "turn_completed",
      );
      return e === null ? [] : [e];
    }
    default:
      return [];
  }
}

const PromptResponseSchema = v.looseObject({
  stopReason: v.string(),
  _meta: v.optional(
    v.nullable(
      v.looseObject({
        sessionId: v.optional(v.nullable(v.string())),
        promptId: v.optional(v.nullable(v.string())),
      }),
    ),
  ),
});

/**
 * Final evidence from a `session/prompt` result, only when it echoes both ids we sent
 * (`agent/mvp_agent/mod.rs`, `PromptResponseMeta`); null otherwise.
 */
export function evidenceFromPromptResponse(
  response: unknown,
  sessionId: string,
  promptId: string,
): Evidence | null {
  const r = v.safeParse(PromptResponseSchema, response);
  if (!r.success) return null;
  const meta = r.output._meta;
  if (meta?.sessionId !== sessionId || meta?.promptId !== promptId) return null;
  return result(sessionId, promptId, "rpc-response", r.output.stopReason, "session/prompt result");
}

const RecordLineSchema = v.looseObject({ method: v.string(), params: SessionEnvelopeSchema });
const RecordTurnSchema = v.looseObject({
  sessionUpdate: v.literal("turn_completed"),
  prompt_id: v.string(),
  stop_reason: v.string(),
});

/**
 * Evidence in one line of the session's durable record (`updates.jsonl`, as a `session/load`
 * replays it or `x.ai/session/updates` returns it: `{timestamp, method, params}`,
 * `extensions/session_updates.rs`): a `turn_completed` record is a final result; a persisted
 * `session/update` with our `_meta.promptId` is consumption.
 */
export function evidenceFromRecord(line: unknown, sessionId: string): Evidence | null {
  const r = v.safeParse(RecordLineSchema, line);
  if (!r.success || r.output.params.sessionId !== sessionId) return null;
  const method = r.output.method.replace(/^_/, "");
  if (method === "x.ai/session/update" || method === "x.ai/session_notification") {
    const t = v.safeParse(RecordTurnSchema, r.output.params.update);
    if (!t.success) return null;
    return result(
      sessionId,
      t.output.prompt_id,
      "turn-completed",
      t.output.stop_reason,
      "turn_completed (durable record)",
    );
  }
  const promptId = r.output.params._meta?.promptId;
  if (method === "session/update" && typeof promptId === "string") {
    return {
      kind: "consumed",
      evidence: { sessionId, promptId, kind: "running-prompt", detail: "durable session/update" },
      row: null,
    };
  }
  return null;
}

/** Grok's rate-limit error code (`sampling/error.rs`, `RATE_LIMITED_ERROR_CODE`). */
export const RATE_LIMITED_ERROR_CODE = -32003;

/** The JSON-RPC error object as the SDK hands it over (`RequestError`). */
export interface RpcErrorAnswer {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * `data` as text: a string as is; an object's string `message` (what Grok's
 * `error_message_from_data` shows, `sampling/error.rs`); anything else as JSON. Null when absent.
 */
function dataText(data: unknown): string | null {
  if (data === undefined || data === null) return null;
  if (typeof data === "string") return data;
  if (typeof data === "object" && !Array.isArray(data)) {
    const message: unknown = Reflect.get(data, "message");
    if (typeof message === "string") return message;
  }
  try {
    // Bounded before it is journaled (clipDetail); a peer's deep nesting must not throw here.
    return JSON.stringify(data)?.slice(0, 1024) ?? null;
  } catch {
    return null;
  }
}

/**
 * The evidence of a JSON-RPC error answering our `session/prompt` (docs/design/grok-leader-protocol.md §6:
 * "Errors come back as JSON-RPC errors"). The stop reason it would mean for a turn already
 * running is the one Grok's `prompt_complete` gives the same error (`prompt_complete_fields`:
 * `rate_limit` for -32003, else `error`).
 */
export function evidenceFromPromptError(
  error: RpcErrorAnswer,
  sessionId: string,
  promptId: string,
): RejectionEvidence {
  const detail = dataText(error.data);
  return {
    promptId,
    sessionId,
    code: error.code,
    message: error.message,
    ...(detail === null ? {} : { detail }),
    stopReason: error.code === RATE_LIMITED_ERROR_CODE ? "rate_limit" : "error",
  };
}
