/**
 * `delivery.reply`: what the agent answered to *our* prompt, collected from the updates Grok stamps
 * with our prompt id (`_meta.promptId`, `session/acp_session_impl/updates.rs`) and settled when
 * the turn ends (docs/design/decisions.md §13.1). This is the awareness evidence of ADR 0224: the
 * text comes from Grok's model, not from our own prompt.
 *
 * State is kept only for unsettled deliveries and dropped when they settle. The reply settles on
 * the first of:
 * - the live `turn_completed{prompt_id}` of our session: persisted after the turn's last update
 *   (`turn_end.rs`: "lands strictly after the turn's last session/update delta");
 * - the answer to our `session/prompt` (correlated by request id), which `MvpAgent::prompt`
 *   sends last; an answer without the echo of our session and prompt id means no turn ran —
 *   Grok's `prompt` returns `end_turn` at once when `allowed_models` excludes every model
 *   (`agent/mvp_agent/acp_agent.rs`) — and the reply rejects PROMPT_NOT_RUN;
 * - the receipt ending without a turn: refused (PROMPT_REJECTED), cancelled before it ran
 *   (PROMPT_CANCELLED), uncertain (DELIVERY_UNCERTAIN), or the connection lost
 *   (DELIVERY_UNCERTAIN / CONNECTION_CLOSED).
 * A turn that ends `cancelled` rejects PROMPT_CANCELLED with what it said so far in
 * `context.partial`.
 */
import * as v from "valibot";
import type { Receipt } from "../delivery/receipt.js";
import { chunkText, type UpdateFacts } from "../grok/transcript-entry.js";
import { AcpError, type AcpErrorCode } from "./acp-error.js";

/** Grok's PromptUsage (`extensions/notification.rs`): counts, per-model rows, loop rounds. */
export const PromptUsageSchema = v.looseObject({
  inputTokens: v.optional(v.number()),
  outputTokens: v.optional(v.number()),
  totalTokens: v.optional(v.number()),
  cachedReadTokens: v.optional(v.number()),
  cacheCreationTokens: v.optional(v.number()),
  reasoningTokens: v.optional(v.number()),
  modelCalls: v.optional(v.number()),
  apiDurationMs: v.optional(v.number()),
  costUsdTicks: v.optional(v.number()),
  modelUsage: v.optional(v.record(v.string(), v.looseObject({}))),
  numTurns: v.optional(v.number()),
  usageIsIncomplete: v.optional(v.boolean()),
});
export type PromptUsage = v.InferOutput<typeof PromptUsageSchema>;

export interface ReplyToolCall {
  readonly toolCallId: string;
  readonly title: string;
  /** `pending`, `in_progress`, `completed`, `failed` (ACP ToolCallStatus), as last reported. */
  readonly status: string;
}

export interface Reply {
  readonly promptId: string;
  /** The text of its `agent_message_chunk`s, in order, exactly as sent. */
  readonly text: string;
  /** The text of its `agent_thought_chunk`s, in order. */
  readonly thoughts: string;
  readonly toolCalls: readonly ReplyToolCall[];
  /** Grok's stop reason (`end_turn`, `max_tokens`, `refusal`, `error`, `rate_limit`, …). */
  readonly stopReason: string;
  readonly usage: PromptUsage | null;
  /** True when `text` or `thoughts` reached the bound (`maxReplyChars`) and the rest was dropped. */
  readonly truncated: boolean;
}

/** Default bound on a reply's text (and, separately, its thoughts), in characters. */
export const REPLY_MAX_CHARS = 16 * 1024 * 1024;

const ToolCallSchema = v.looseObject({
  toolCallId: v.string(),
  title: v.optional(v.nullable(v.string())),
  status: v.optional(v.nullable(v.string())),
});

const PromptAnswerSchema = v.looseObject({
  stopReason: v.string(),
  _meta: v.optional(
    v.nullable(
      v.looseObject({
        sessionId: v.optional(v.nullable(v.unknown())),
        promptId: v.optional(v.nullable(v.unknown())),
        usage: v.optional(v.nullable(v.unknown())),
      }),
    ),
  ),
});

interface Pending {
  text: string[];
  textChars: number;
  thoughts: string[];
  thoughtChars: number;
  readonly toolCalls: Map<string, { title: string; status: string }>;
  truncated: boolean;
  /** An update of this prompt arrived: its turn ran. */
  ran: boolean;
  resolve(r: Reply): void;
  reject(e: AcpError): void;
}

function usageOf(x: unknown): PromptUsage | null {
  const u = v.safeParse(PromptUsageSchema, x);
  return u.success ? u.output : null;
}

export class ReplyCollector {
  readonly #sessionId: string;
  readonly #maxChars: number;
  readonly #pending = new Map<string, Pending>();

  constructor(sessionId: string, maxChars: number = REPLY_MAX_CHARS) {
    this.#sessionId = sessionId;
    this.#maxChars = maxChars;
  }

  /** Deliveries whose reply is still open (the only per-prompt state kept). */
  get open(): number {
    return this.#pending.size;
  }

  /**
   * Start collecting for `promptId` before its frame leaves (an unobserved rejection is not a
   * crash). Null when one is already open for it: a reused id, which the journal refuses.
   */
  expect(promptId: string): Promise<Reply> | null {
    if (this.#pending.has(promptId)) return null;
    const p = new Promise<Reply>((resolve, reject) => {
      this.#pending.set(promptId, {
        text: [],
        textChars: 0,
        thoughts: [],
        thoughtChars: 0,
        toolCalls: new Map(),
        truncated: false,
        ran: false,
        resolve,
        reject,
      });
    });
    p.catch(() => {});
    return p;
  }

  /** One live update of our session (duplicates already dropped by the live transcript). */
  update(f: UpdateFacts): void {
    if (f.promptId === null) return;
    const p = this.#pending.get(f.promptId);
    if (p === undefined) return;
    p.ran = true;
    const u = f.update;
    switch (f.kind) {
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const text = chunkText(u);
        if (text === null || text === "") return;
        const thought = f.kind === "agent_thought_chunk";
        const room = this.#maxChars - (thought ? p.thoughtChars : p.textChars);
        const kept = text.length <= room ? text : text.slice(0, Math.max(room, 0));
        if (kept.length < text.length) p.truncated = true;
        if (thought) {
          p.thoughts.push(kept);
          p.thoughtChars += kept.length;
        } else {
          p.text.push(kept);
          p.textChars += kept.length;
        }
        return;
      }
      case "tool_call":
      case "tool_call_update": {
        const t = v.safeParse(ToolCallSchema, u);
        if (!t.success) return;
        const was = p.toolCalls.get(t.output.toolCallId);
        p.toolCalls.set(t.output.toolCallId, {
          title: t.output.title ?? was?.title ?? "",
          status: t.output.status ?? was?.status ?? "pending",
        });
        return;
      }
      case "turn_completed": {
        const stop = u.stop_reason;
        if (typeof stop === "string") this.#end(f.promptId, stop, usageOf(u.usage));
        return;
      }
      default:
        return;
    }
  }

  /**
   * The answer to our `session/prompt` for `promptId` arrived. `turnRan`: consumption evidence
   * was seen, so an answer without the echo still leaves its `turn_completed` to settle the reply.
   */
  answered(promptId: string, result: unknown, turnRan: boolean): void {
    const pending = this.#pending.get(promptId);
    if (pending === undefined) return;
    const a = v.safeParse(PromptAnswerSchema, result);
    const meta = a.success ? a.output._meta : null;
    if (a.success && meta?.sessionId === this.#sessionId && meta?.promptId === promptId) {
      this.#end(promptId, a.output.stopReason, usageOf(meta.usage));
      return;
    }
    if (turnRan || pending.ran) return;
    this.#fail(
      promptId,
      "PROMPT_NOT_RUN",
      `Grok answered prompt ${promptId} without echoing our session and prompt id, and no turn_completed came: no turn ran for it (as when allowed_models excludes every model)`,
      { answer: a.success ? a.output.stopReason : null },
    );
  }

  /** The receipt moved: settle when it ended without a turn we can wait for. */
  receipt(r: Receipt): void {
    const p = this.#pending.get(r.promptId);
    if (p === undefined) return;
    if (r.state === "rejected") {
      this.#fail(r.promptId, "PROMPT_REJECTED", `Grok refused prompt ${r.promptId}`, {
        rejection: r.rejection,
      });
    } else if (r.state === "uncertain") {
      this.#fail(
        r.promptId,
        "DELIVERY_UNCERTAIN",
        `prompt ${r.promptId} may or may not have left`,
        {
          uncertainty: r.uncertainty?.reason ?? null,
        },
      );
    } else if (r.state === "cancelled" && !p.ran) {
      this.#fail(
        r.promptId,
        "PROMPT_CANCELLED",
        `prompt ${r.promptId} was cancelled before it ran`,
        {
          requested: r.cancelRequest !== null,
        },
      );
    } else if (r.state === "completed" && r.result?.channel === "rpc-response") {
      // The answer is the last word: here a failed turn answered by a JSON-RPC error (`error`,
      // `rate_limit`) after consumption (an answer with a result settled the reply already).
      this.#end(r.promptId, r.result.stopReason, null);
    }
  }

  /** The connection ended: every open reply rejects, with the receipt's state deciding the code. */
  connectionLost(receiptOf: (promptId: string) => Receipt | undefined): void {
    for (const id of [...this.#pending.keys()]) {
      const uncertain = receiptOf(id)?.state === "uncertain";
      this.#fail(
        id,
        uncertain ? "DELIVERY_UNCERTAIN" : "CONNECTION_CLOSED",
        `the leader connection ended before the reply to ${id}`,
        {},
      );
    }
  }

  /** Stop collecting for `promptId` (its dispatch failed): reject with `error`. */
  abandon(promptId: string, error: AcpError): void {
    const p = this.#pending.get(promptId);
    if (p === undefined) return;
    this.#pending.delete(promptId);
    p.reject(error);
  }

  #reply(promptId: string, p: Pending, stopReason: string, usage: PromptUsage | null): Reply {
    return {
      promptId,
      text: p.text.join(""),
      thoughts: p.thoughts.join(""),
      toolCalls: [...p.toolCalls].map(([toolCallId, t]) => ({ toolCallId, ...t })),
      stopReason,
      usage,
      truncated: p.truncated,
    };
  }

  #end(promptId: string, stopReason: string, usage: PromptUsage | null): void {
    const p = this.#pending.get(promptId);
    if (p === undefined) return;
    this.#pending.delete(promptId);
    const reply = this.#reply(promptId, p, stopReason, usage);
    if (stopReason !== "cancelled") {
      p.resolve(reply);
      return;
    }
    p.reject(
      new AcpError("PROMPT_CANCELLED", `prompt ${promptId} was cancelled`, {
        details: { promptId, partial: reply },
      }),
    );
  }

  #fail(
    promptId: string,
    code: AcpErrorCode,
    message: string,
    details: Record<string, unknown>,
  ): void {
    const p = this.#pending.get(promptId);
    if (p === undefined) return;
    this.#pending.delete(promptId);
    p.reject(
      new AcpError(code, message, {
        details: { promptId, ...details, partial: this.#reply(promptId, p, "", null) },
      }),
    );
  }
}
