/**
 * `AcpSession`: the ACP side of one seat once attached to the owner's session
 * (lib/acp/acp-handshake.ts gets it there). It delivers prompts with caller ids and durable
 * receipts, cancels only what is ours, selects model/effort with an echo, reconciles receipts
 * with Grok's record, and leaves permission prompts and questions to the owner. With
 * session-core.ts, the only files of lib/acp that do I/O (the pipe and the journal).
 *
 * Never sent by this class: `session/new` (refused even if asked), `authenticate`, answers to
 * interaction reverse-requests (the stream keeps them from the SDK), `--allow`/`--deny` anything
 * (leader mode ignores CLI permission rules, docs/design/grok-leader-protocol.md §12; other MCP
 * servers and permission prompts keep their native policy). It never spawns a process and never
 * reconnects.
 */

import { randomUUID } from "node:crypto";
import * as v from "valibot";
import { dispatch } from "../delivery/dispatch.js";
import { isTerminal, type Receipt } from "../delivery/receipt.js";
import { UsageError, WireError } from "../errors.js";
import type { CatalogReadiness, McpListResult } from "../grok/catalog.js";
import { type ModelEcho, resolveModelSelection, setModelParams } from "../grok/models.js";
import { assertPromptId, newPromptId } from "../grok/prompt-id.js";
import { type SkillRow, SkillsListAnswerSchema } from "../grok/skills.js";
import type { TranscriptPage } from "../grok/transcript-page.js";
import { AcpError, type AcpErrorCode } from "./acp-error.js";
import { ATTACH_PERMISSION_META, type AttachFacts, type InitializeFacts } from "./handshake.js";
import type { OwnerAction } from "./owner-actions.js";
import { evidenceFromRecord } from "./receipt-evidence.js";
import type { Reply } from "./replies.js";
import type { AcpSessionEvent, AcpSessionOptions, SessionCore } from "./session-core.js";
import type { TapStats } from "./tap.js";
import { readTranscriptPage, type TranscriptQuery } from "./transcript-pages.js";
import type { CloseReason } from "./transport.js";

export type { AcpSessionEvent, AcpSessionOptions, TranscriptQuery };

/**
 * A prompt on its way: its receipt after dispatch, and the two promises named apart.
 *
 * When Grok refuses the prompt (a JSON-RPC error answering `session/prompt` before it took it:
 * -32602 `unknown session id`, the leader's -32002 `leader_starting`, ...) the receipt becomes
 * `rejected`, durably, with `rejection: {code, message, detail}`, and is never resent. It ends
 * the way a cancelled prompt does: `completed` resolves with that terminal receipt (check
 * `receipt.state`), and `consumed` rejects with PROMPT_REJECTED (details carry the receipt).
 */
export interface Delivery {
  readonly promptId: string;
  /**
   * The receipt once the frame was written: `dispatched`, or already `rejected` when Grok's
   * refusal arrived before this call returned.
   */
  readonly receipt: Receipt;
  /**
   * Grok took the prompt (queue row or running). Not model awareness. Rejects with
   * PROMPT_REJECTED when Grok refused it, DELIVERY_UNCERTAIN when the connection ended first.
   */
  readonly consumed: Promise<Receipt>;
  /**
   * The prompt's end: a final result echoing our session and prompt id (state `completed` —
   * stop reason `error`/`rate_limit` for a failed turn — or `cancelled`), or Grok's refusal
   * (state `rejected`).
   */
  readonly completed: Promise<Receipt>;
  /**
   * What the agent answered to this prompt, from the updates Grok stamped with its id, settled
   * when the turn ends (lib/acp/replies.ts): the awareness evidence. Rejects with
   * PROMPT_REJECTED, PROMPT_CANCELLED (what it said so far in `context.partial`), PROMPT_NOT_RUN
   * (Grok answered without running a turn), DELIVERY_UNCERTAIN or CONNECTION_CLOSED.
   */
  readonly reply: Promise<Reply>;
}

const LONE_SURROGATE = /\p{Cs}/u;
/** ExtMethodResult `{"result":{"ok":true}}` (session_admin.rs). */
const UpdateOkSchema = v.looseObject({ result: v.looseObject({ ok: v.literal(true) }) });

/** An ACP `McpServer` of the http kind, as a client sends it (`headers` as name/value pairs). */
export interface AcpHttpMcpServer {
  readonly type: "http";
  readonly name: string;
  readonly url: string;
  readonly headers: readonly { readonly name: string; readonly value: string }[];
}
const UpdatesResultSchema = v.looseObject({ updates: v.array(v.unknown()) });

export class AcpSession {
  readonly sessionId: string;
  readonly initialize: InitializeFacts;
  readonly attachment: AttachFacts;
  readonly catalog: CatalogReadiness;
  /** Resolves when the leader connection ended. */
  readonly closed: Promise<CloseReason>;

  readonly #s: SessionCore;

  /** Built by `AcpHandshake.attach` (lib/acp/acp-handshake.ts), once the session is attached. */
  constructor(s: SessionCore, init: InitializeFacts, attach: AttachFacts, cat: CatalogReadiness) {
    this.#s = s;
    this.sessionId = s.opts.sessionId;
    this.initialize = init;
    this.attachment = attach;
    this.catalog = cat;
    this.closed = s.pipe.closed;
  }

  /** The agent's `_meta.agentVersion` (for `admitVersion`), or null when it reported none. */
  get agentVersion(): string | null {
    return this.initialize.agentVersion;
  }

  on(listener: (event: AcpSessionEvent) => void): () => void {
    this.#s.listeners.add(listener);
    return () => this.#s.listeners.delete(listener);
  }

  receipt(promptId: string): Receipt | undefined {
    return this.#s.tracker.receipt(promptId);
  }

  /** Interactions waiting for the owner in the TUI. We never answer them. */
  pendingOwnerActions(): OwnerAction[] {
    return this.#s.owner.list();
  }

  /** Owner actions dropped because the cap was reached (lib/acp/owner-actions.ts). */
  ownerActionsDropped(): number {
    return this.#s.owner.dropped;
  }

  /** The leader's announced shutdown, or null. */
  get shuttingDown(): { readonly reason: string; readonly delayMs: number } | null {
    return this.#s.shuttingDown;
  }

  /** The session's running prompt id as last seen (anyone's). */
  get runningPromptId(): string | null {
    return this.#s.tracker.runningPromptId;
  }

  tapStats(): TapStats {
    return this.#s.tap.stats();
  }

  /**
   * Deliver `text` as one prompt. The prompt id is the caller's (a UUID, not reserved, never used
   * before) or a fresh UUIDv4. The fence is fsynced before the frame leaves; resolves once the
   * frame was written. A send that may have failed leaves the receipt `uncertain` (never resent)
   * and rejects with DELIVERY_UNCERTAIN. A prompt Grok refuses is not an error of this call: the
   * delivery's `completed` resolves with the `rejected` receipt (see `Delivery`).
   */
  async deliver(text: string, options: { promptId?: string } = {}): Promise<Delivery> {
    const s = this.#s;
    s.requireOpen();
    if (typeof text !== "string" || text.trim() === "" || LONE_SURROGATE.test(text)) {
      throw new UsageError<AcpErrorCode>(
        "PROMPT_TEXT_INVALID",
        "prompt text must be non-empty, well-formed text",
      );
    }
    // A reused id is refused by the journal's fence (PROMPT_ID_DUPLICATE), before anything is sent.
    const promptId = assertPromptId(options.promptId ?? newPromptId());
    // Collect the reply before the frame can leave: its first update may beat `dispatch`'s return.
    // Null for an id with a reply still open: the fence below refuses the reused id.
    const reply = s.replies.expect(promptId);
    let receipt: Receipt;
    try {
      receipt = await dispatch(
        s.opts.journal,
        {
          promptId,
          sessionId: this.sessionId,
          leader: s.opts.leaderIdentity,
          pane: s.opts.paneIdentity,
          text,
        },
        (prompt) => s.sendPrompt(prompt),
      );
    } catch (err) {
      if (reply !== null) {
        s.replies.abandon(
          promptId,
          new AcpError("DELIVERY_UNCERTAIN", "the prompt was not delivered", { cause: err }),
        );
      }
      throw err;
    }
    if (reply === null) {
      // Unreachable: the journal refuses a reused id before anything is sent.
      throw new UsageError("PROMPT_ID_DUPLICATE", `prompt id ${promptId} was already used`);
    }
    if (receipt.state === "uncertain") {
      const error = new AcpError("DELIVERY_UNCERTAIN", "the prompt may or may not have left", {
        details: { promptId, uncertainty: receipt.uncertainty?.reason ?? null },
      });
      s.replies.abandon(promptId, error);
      throw error;
    }
    s.emit({ type: "dispatched", receipt });
    const { consumed, completed } = s.tracker.track(promptId);
    return { promptId, receipt, consumed, completed, reply };
  }

  /**
   * Cancel one of our prompts: a queued one by `x.ai/queue/remove` with its row version and our
   * owner label, the running one by `session/cancel` only while `runningPromptId` is ours.
   * NOT_OURS for any other id (the TUI's own turn included); NOT_CANCELLABLE when ours is neither
   * queued nor running. The receipt becomes `cancel-submitted` until a result arrives.
   */
  async cancel(promptId: string): Promise<Receipt> {
    const s = this.#s;
    s.requireOpen();
    const r = s.tracker.receipt(promptId);
    if (r === undefined || !s.tracker.isOurs(promptId)) {
      throw new AcpError("NOT_OURS", `prompt ${promptId} was not delivered by this seat`, {
        details: { promptId, runningPromptId: s.tracker.runningPromptId },
      });
    }
    const row = s.tracker.queuedRow(promptId);
    const running = s.tracker.runningPromptId === promptId;
    if (isTerminal(r.state) || (row === null && !running)) {
      throw new AcpError("NOT_CANCELLABLE", `prompt ${promptId} is neither queued nor running`, {
        details: { promptId, state: r.state },
      });
    }
    const how = row !== null ? "queue-remove" : "session-cancel";
    const submitted = s.opts.journal.recordCancelSubmitted(promptId, how);
    if (row !== null) {
      // ext_parsers.rs: {sessionId, id, expectedVersion, owner|clientIdentifier}; the agent removes
      // only an exact version match owned by `owner` (queue_mutation.rs).
      await s.notify("_x.ai/queue/remove", {
        sessionId: this.sessionId,
        id: promptId,
        expectedVersion: row.version,
        owner: s.clientIdentifier,
      });
    } else {
      // session/cancel cancels the running turn whoever started it: sent only while it is ours.
      await s.notify("session/cancel", { sessionId: this.sessionId });
    }
    s.emit({ type: "cancel-submitted", receipt: submitted });
    return submitted;
  }

  /**
   * Select a model (and effort) offered by this session, send `session/set_model` and require the
   * `model_changed` echo of both. MODEL_UNKNOWN / EFFORT_UNKNOWN before anything is sent;
   * MODEL_NOT_ECHOED when no confirming echo arrives in time. No fallback. The echo every attach
   * broadcasts (the model as it was) is drained before the waiter is armed, so it is never taken
   * as ours.
   */
  async selectModel(request: { modelId: string; effort?: string | null }): Promise<ModelEcho> {
    const s = this.#s;
    s.requireOpen();
    const models = s.models;
    if (models === null) {
      throw new AcpError("MODEL_UNKNOWN", "the session reported no model options");
    }
    const selection = resolveModelSelection(models, s.sessionConfig, request);
    // The attach's own echo (the old model) first: a waiter armed before it could take it.
    await s.attachEchoDrained();
    s.requireOpen();
    const echo = s.awaitModelEcho(selection);
    try {
      await s.request("session/set_model", setModelParams(this.sessionId, selection));
    } catch (err) {
      // Grok refused the switch (e.g. MODEL_SWITCH_INCOMPATIBLE_AGENT after a turn): no echo
      // will come, and the waiter's later timeout must not become an unhandled rejection.
      echo.catch(() => undefined);
      throw err;
    }
    const confirmed = await echo;
    s.models = { ...models, currentModelId: confirmed.modelId };
    return confirmed;
  }

  /** The session's `x.ai/mcp/list` rows as Grok sent them (read-only). */
  async mcpServers(): Promise<McpListResult> {
    this.#s.requireOpen();
    return this.#s.mcpList();
  }

  /**
   * `x.ai/session/update_mcp_servers`: the session's servers become the configured ones plus
   * `servers` (xai-grok-shell `extensions/session_admin.rs`; the answer comes once the new
   * servers finished their handshake). In memory only: the next load or resume of the session
   * (the TUI's own) replaces the set again. A `-32601` is the agent's WireError.
   */
  async updateMcpServers(servers: readonly AcpHttpMcpServer[]): Promise<void> {
    this.#s.requireOpen();
    const raw = await this.#s.request("_x.ai/session/update_mcp_servers", {
      sessionId: this.sessionId,
      mcpServers: servers.map((s) => ({ ...s, headers: s.headers.map((h) => ({ ...h })) })),
    });
    if (!v.is(UpdateOkSchema, raw)) {
      throw new AcpError(
        "ACP_EXTENSION_ANSWER_INVALID",
        "x.ai/session/update_mcp_servers did not answer {ok: true}",
      );
    }
  }

  /**
   * Whether the agent has `x.ai/session/update_mcp_servers`, asked without touching any session:
   * the request names a fresh random session id, which a supporting agent refuses as invalid
   * params (`unknown session id`) while one without the method answers `-32601`.
   */
  async probeUpdateMcpServers(): Promise<"supported" | "method_not_found"> {
    this.#s.requireOpen();
    try {
      await this.#s.request("_x.ai/session/update_mcp_servers", {
        sessionId: randomUUID(),
        mcpServers: [],
      });
      return "supported";
    } catch (err) {
      if (err instanceof WireError && err.code === "-32601") return "method_not_found";
      if (err instanceof WireError) return "supported";
      throw err;
    }
  }

  /** `x.ai/skills/list {cwd}` (read-only): the skills this session's cwd and profile load. */
  async listSkills(): Promise<SkillRow[]> {
    this.#s.requireOpen();
    const raw = await this.#s.request("_x.ai/skills/list", { cwd: this.#s.opts.cwd });
    const parsed = v.safeParse(SkillsListAnswerSchema, raw);
    if (!parsed.success) {
      throw new AcpError(
        "ACP_EXTENSION_ANSWER_INVALID",
        "x.ai/skills/list answer has the wrong shape",
      );
    }
    return parsed.output.result.skills;
  }

  /** List the session's MCP servers again and judge readiness (never refuses by itself). */
  async checkCatalog(): Promise<CatalogReadiness> {
    this.#s.requireOpen();
    return this.#s.listCatalog();
  }

  /**
   * Reconcile our open receipts (uncertain ones above all) with the session's durable record:
   * its persisted `turn_completed` records and updates naming our prompt ids. Returns the
   * receipts it changed; never sends a prompt. Two ways to read the record:
   * - `via: "updates"` (default): `x.ai/session/updates`, a read-only tail of `updates.jsonl`
   *   (`extensions/session_updates.rs`). No replay, so the owner's TUI is not touched at all.
   * - `via: "replay"`: a replaying `session/load` (mcpServers `[]`, `x.ai/restore_code:false`, both
   *   permission keys off as on every attach).
   *   The records arrive as replayed `_x.ai/session/update` lines before the answer. Costly for
   *   the owner: while a resident session replays, `attach_session` sets `gateway_enabled=false`
   *   and events produced meanwhile reach only us, so use it only for an agent without
   *   `x.ai/session/updates`, and only while the session is idle.
   */
  async reconcile(options: { tail?: number; via?: "updates" | "replay" } = {}): Promise<Receipt[]> {
    const s = this.#s;
    s.requireOpen();
    const open = s.opts.journal
      .receipts()
      .filter((r) => r.sessionId === this.sessionId && !isTerminal(r.state));
    if (open.length === 0) return [];
    const before = new Map(open.map((r) => [r.promptId, r.state]));
    if (options.via === "replay") {
      // Replayed lines go through the tap and into the receipts as they arrive; the live
      // transcript drops the ones it already had (lib/acp/live-transcript.ts).
      const replayed = s.live.replaying();
      try {
        await s.request("session/load", {
          sessionId: this.sessionId,
          cwd: s.opts.cwd,
          mcpServers: [],
          _meta: { "x.ai/restore_code": false, ...ATTACH_PERMISSION_META },
        });
      } finally {
        replayed();
      }
    } else {
      const raw = await s.request("_x.ai/session/updates", {
        sessionId: this.sessionId,
        cwd: s.opts.cwd,
        offset: -(options.tail ?? 5000),
      });
      const parsed = v.safeParse(UpdatesResultSchema, raw);
      if (!parsed.success) {
        throw new AcpError(
          "ACP_UPDATES_INVALID",
          "x.ai/session/updates answer has the wrong shape",
        );
      }
      for (const line of parsed.output.updates) {
        const e = evidenceFromRecord(line, this.sessionId);
        if (e !== null) s.tracker.apply(e);
      }
    }
    const changed: Receipt[] = [];
    for (const [id, state] of before) {
      const now = s.tracker.receipt(id);
      if (now !== undefined && now.state !== state) changed.push(now);
    }
    return changed;
  }

  /**
   * One page of the session's stored transcript over `x.ai/session/updates` (read-only, no replay,
   * nothing the owner sees): the entries after `since` (an eventId, exclusive), ordered by
   * eventId, at most `limit` (default 500). The last entry's eventId is the next page's `since`.
   * A stored line merges consecutive chunks; `TranscriptReconciler` joins pages with live
   * entries without duplicating text (lib/acp/transcript-pages.ts).
   */
  async transcript(query: TranscriptQuery = {}): Promise<TranscriptPage> {
    const s = this.#s;
    s.requireOpen();
    return readTranscriptPage((m, p) => s.request(m, p), this.sessionId, s.opts.cwd, query);
  }

  /**
   * The leader announced `shutting_down` (the seat wires the leader connection's event here):
   * unsettled deliveries become `uncertain`, a `leader-shutting-down` event is emitted, and every
   * later call refuses with LEADER_SHUTTING_DOWN.
   */
  leaderShuttingDown(reason: string, delayMs: number): void {
    this.#s.leaderShuttingDown(reason, delayMs);
  }

  /** Close the ACP connection (the leader connection is the caller's to close). */
  close(): void {
    this.#s.sdk.close();
  }
}
