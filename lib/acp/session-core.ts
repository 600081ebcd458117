/**
 * The ACP connection of one seat: the SDK client app over the leader pipe (stream.ts), the tap,
 * bounded requests, the outgoing-prompt write signal the fence journal needs, the model echo, and
 * the routing of tap events into receipts, owner actions and seat events. `AcpSession` (client.ts)
 * is the public face; this file holds the state and does the I/O with it.
 */
import * as acp from "@agentclientprotocol/sdk";
import * as v from "valibot";
import type { OutgoingPrompt } from "../delivery/dispatch.js";
import type { Journal } from "../delivery/journal.js";
import type { Receipt } from "../delivery/receipt.js";
import { GrokSeatError, UsageError, WireError } from "../errors.js";
import {
  type CatalogContext,
  type CatalogReadiness,
  catalogReadiness,
  EMPTY_CATALOG_CONTEXT,
  type McpListResult,
  McpListResultSchema,
} from "../grok/catalog.js";
import { echoConfirms, type ModelEcho, type ModelSelection } from "../grok/models.js";
import type { TranscriptEntry } from "../grok/transcript-entry.js";
import { AcpError, type AcpErrorCode } from "./acp-error.js";
import { type DeliveryEvent, DeliveryTracker } from "./deliveries.js";
import type { GrokEvent } from "./grok-extensions.js";
import type { AttachFacts } from "./handshake.js";
import type { RpcMessage } from "./json-rpc.js";
import { LiveTranscript } from "./live-transcript.js";
import { type OwnerAction, OwnerActions } from "./owner-actions.js";
import {
  evidenceFromEvent,
  evidenceFromPromptError,
  evidenceFromPromptResponse,
} from "./receipt-evidence.js";
import { ReplyCollector } from "./replies.js";
import { createAcpStream } from "./stream.js";
import { AcpTap } from "./tap.js";
import type { AcpPipe, CloseReason } from "./transport.js";

export interface AcpSessionOptions {
  /** The exact session UUID the TUI created (`--session-id`). */
  readonly sessionId: string;
  /** The TUI's cwd: the session lives under it on disk and must run in it. */
  readonly cwd: string;
  /** The admitted controller's journal (`admitController`): fences and receipts. */
  readonly journal: Journal;
  /** Fence identities (`FenceInput.leader` / `.pane`), from the leader and pane proofs. */
  readonly leaderIdentity: string;
  readonly paneIdentity: string;
  /** `_meta.clientIdentifier` on our prompts: the queue row `owner` (default "grok-seat"). */
  readonly clientIdentifier?: string;
  /** Bound on each request and on the model echo (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Where unknown/malformed messages are logged (default: nowhere; they are kept in the tap). */
  readonly log?: (line: string) => void;
  /** Bound on one transcript entry's params, in characters of JSON (default 256 Ki). */
  readonly transcriptEntryMaxChars?: number;
  /** Bound on a reply's text (and its thoughts), in characters (default 16 Mi). */
  readonly replyMaxChars?: number;
}

export type AcpSessionEvent =
  | DeliveryEvent
  | { readonly type: "dispatched"; readonly receipt: Receipt }
  | { readonly type: "cancel-submitted"; readonly receipt: Receipt }
  /**
   * Grok answered our `session/prompt` with a JSON-RPC error. `receipt` (the journal's, after the
   * error) says what it was: state `rejected` for a refusal before consumption (durable, terminal,
   * never resent), `completed` with stop reason `error`/`rate_limit` for a turn that failed after
   * consumption. If the journal could not record it, a `journal-failed` event came first and the
   * receipt is the one before the error.
   */
  | {
      readonly type: "rejected";
      readonly promptId: string;
      readonly error: WireError;
      readonly receipt: Receipt;
    }
  | { readonly type: "owner-action-pending"; readonly action: OwnerAction }
  | { readonly type: "owner-action-resolved"; readonly action: OwnerAction }
  | { readonly type: "model-changed"; readonly echo: ModelEcho }
  | { readonly type: "grok"; readonly event: GrokEvent }
  /**
   * One update of our session as Grok sent it (`session/update`, `_x.ai/session_notification`),
   * nothing of another session; a replayed one we already had is not repeated.
   */
  | { readonly type: "transcript"; readonly entry: TranscriptEntry }
  /**
   * The leader announced `shutting_down` (e.g. `auto_update`): every unsettled delivery is now
   * `uncertain` (never resent) and the seat delivers nothing more; the leader the TUI may start
   * next is never connected to.
   */
  | { readonly type: "leader-shutting-down"; readonly reason: string; readonly delayMs: number }
  | { readonly type: "closed"; readonly reason: CloseReason };

/** The stop reason of a `session/prompt` answer, for a journal detail. */
function answerStopReason(result: unknown): string {
  const stop: unknown =
    typeof result === "object" && result !== null ? Reflect.get(result, "stopReason") : null;
  return typeof stop === "string" ? stop.slice(0, 64) : "without a stop reason";
}

/** How long a selection waits for the attach's own `model_changed` before arming its waiter. */
export const ATTACH_ECHO_GRACE_MS = 1_000;

/** Connection state shared by the seat's methods. */
export class SessionCore {
  readonly pipe: AcpPipe;
  readonly opts: AcpSessionOptions;
  readonly tap: AcpTap;
  readonly sdk: acp.ClientConnection;
  readonly tracker: DeliveryTracker;
  readonly live: LiveTranscript;
  readonly replies: ReplyCollector;
  readonly listeners = new Set<(event: AcpSessionEvent) => void>();
  readonly clientIdentifier: string;
  readonly timeoutMs: number;
  readonly owner = new OwnerActions();
  /** Set once the leader announced its shutdown. */
  shuttingDown: { readonly reason: string; readonly delayMs: number } | null = null;
  models: AttachFacts["models"] = null;
  sessionConfig: AttachFacts["sessionConfig"] = null;
  #closed = false;
  /**
   * Write signals of prompts in flight, keyed by the very `params` object handed to the SDK: the
   * SDK puts it into the message it writes (`prepareRequest`), so the stream's write callback
   * finds our prompt by identity, without reading our own message back.
   */
  readonly #written = new Map<object, { resolve(): void; reject(err: unknown): void }>();
  readonly #modelWaiters = new Set<(echo: ModelEcho) => void>();
  /**
   * Every attach re-applies the session's model and broadcasts `model_changed` to all
   * subscribers; the attaching client's copy comes from the leader's load buffer right after its
   * own answer (`handlers/model_switch.rs` `broadcast_model_changed`, `session_setup.rs`
   * `restore_persisted_model`). That echo names the model as it was: it must never be taken as
   * the echo of a selection of ours, so no waiter is armed before it has arrived (or a short grace
   * for an agent that sends none has passed). docs/design/decisions.md §12.4.
   */
  #attachEcho: { pending: boolean; drained: Promise<void>; settle: () => void } = {
    pending: false,
    drained: Promise.resolve(),
    settle: () => {},
  };
  /** The model the attach re-applied, as its echo named it (null until it arrived). */
  attachEcho: ModelEcho | null = null;

  constructor(pipe: AcpPipe, opts: AcpSessionOptions) {
    this.pipe = pipe;
    this.opts = opts;
    this.clientIdentifier = opts.clientIdentifier ?? "grok-seat";
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.tap = new AcpTap(opts.log === undefined ? {} : { log: opts.log });
    this.live = new LiveTranscript(
      opts.sessionId,
      opts.transcriptEntryMaxChars === undefined
        ? {}
        : { maxEntryChars: opts.transcriptEntryMaxChars },
    );
    this.replies = new ReplyCollector(opts.sessionId, opts.replyMaxChars);
    this.tracker = new DeliveryTracker(opts.journal, opts.sessionId, (e) => {
      if (e.type === "completed" || e.type === "cancelled" || e.type === "uncertain") {
        this.replies.receipt(e.receipt);
      }
      this.emit(e);
    });
    this.tap.on((e, m) => this.#onEvent(e, m));
    const stream = createAcpStream(pipe, this.tap, {
      onSent: (m) => this.#writeSignal(m)?.resolve(),
      onSendFailed: (m, err) => this.#writeSignal(m)?.reject(err),
    });
    this.sdk = acp.client({ name: "grok-seat" }).connect(stream);
    void pipe.closed.then((reason) => this.#onClosed(reason));
  }

  attached(facts: AttachFacts): void {
    this.models = facts.models;
    this.sessionConfig = facts.sessionConfig;
    this.tracker.queueSnapshot(facts.runningPromptId, []);
    let resolve: () => void = () => {};
    const drained = new Promise<void>((r) => {
      resolve = r;
    });
    const state = { pending: true, drained, settle: () => {} };
    // Not unref'd: a selection may be all that is waiting on it (at most the grace).
    const timer = setTimeout(() => state.settle(), Math.min(ATTACH_ECHO_GRACE_MS, this.timeoutMs));
    state.settle = () => {
      state.pending = false;
      clearTimeout(timer);
      resolve();
    };
    this.#attachEcho = state;
  }

  /** Resolves once the attach's own `model_changed` was drained (or its grace passed). */
  attachEchoDrained(): Promise<void> {
    return this.#attachEcho.drained;
  }

  emit(event: AcpSessionEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.opts.log?.(`acp seat: listener failed on ${event.type}: ${String(err)}`);
      }
    }
  }

  requireOpen(): void {
    if (this.shuttingDown !== null) {
      throw new AcpError(
        "LEADER_SHUTTING_DOWN",
        `the leader is shutting down (${this.shuttingDown.reason})`,
        { details: { ...this.shuttingDown } },
      );
    }
    if (this.#closed || this.sdk.signal.aborted) {
      throw new AcpError("CONNECTION_CLOSED", "the ACP connection is closed");
    }
  }

  /**
   * The leader said `shutting_down`: the seat ends here, as for a lost connection (every receipt
   * without consumption evidence becomes `uncertain`; late evidence may still settle one).
   * Idempotent.
   */
  leaderShuttingDown(reason: string, delayMs: number): void {
    if (this.shuttingDown !== null) return;
    this.shuttingDown = { reason, delayMs };
    this.tracker.connectionLost(`leader shutting down: ${reason}`);
    this.emit({ type: "leader-shutting-down", reason, delayMs });
  }

  /** One bounded request; JSON-RPC errors become WireError("acp", code). */
  async request(method: string, params: unknown): Promise<unknown> {
    if (method === "session/new") {
      throw new UsageError<AcpErrorCode>(
        "SESSION_NEW_FORBIDDEN",
        "a seat attaches to the TUI's session",
      );
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new AcpError("ACP_TIMEOUT", `${method} got no answer in ${this.timeoutMs} ms`, {
              details: { method, timeoutMs: this.timeoutMs },
            }),
          ),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([this.sdk.agent.request<unknown>(method, params), timeout]);
    } catch (err) {
      throw wireError(err, method);
    } finally {
      clearTimeout(timer);
    }
  }

  async notify(method: string, params: unknown): Promise<void> {
    try {
      await this.sdk.agent.notify(method, params);
    } catch (err) {
      throw wireError(err, method);
    }
  }

  /** `x.ai/mcp/list` for our session, rows kept as sent (loose objects). */
  async mcpList(): Promise<McpListResult> {
    const raw = await this.request("_x.ai/mcp/list", { sessionId: this.opts.sessionId });
    const parsed = v.safeParse(v.looseObject({ result: McpListResultSchema }), raw);
    if (!parsed.success) {
      throw new AcpError("ACP_MCP_LIST_INVALID", "x.ai/mcp/list answer has the wrong shape");
    }
    return parsed.output.result;
  }

  /** What the catalog rule reads besides the list (plugins, our own servers): the handshake's. */
  catalogContext: CatalogContext = EMPTY_CATALOG_CONTEXT;

  async listCatalog(): Promise<CatalogReadiness> {
    // ExtMethodResult: {"result": {servers}, "error"?} (session/result.rs).
    return catalogReadiness(await this.mcpList(), this.catalogContext);
  }

  /** Send the fenced prompt through the SDK; resolves once its frame was written. */
  sendPrompt(prompt: OutgoingPrompt): Promise<void> {
    const { promptId, sessionId, text } = prompt;
    const params = {
      sessionId,
      prompt: [{ type: "text", text }],
      _meta: { promptId, clientIdentifier: this.clientIdentifier },
    };
    const written = new Promise<void>((resolve, reject) => {
      this.#written.set(params, { resolve, reject });
    });
    const response = this.sdk.agent.request<unknown>("session/prompt", params);
    response.then(
      (result) => {
        // The reply first: it takes the usage from the answer, the receipt only the stop reason.
        const e = evidenceFromPromptResponse(result, this.opts.sessionId, promptId);
        const state = this.tracker.receipt(promptId)?.state;
        const turnRan = e !== null || (state !== "fenced" && state !== "dispatched");
        this.replies.answered(promptId, result, turnRan);
        if (e !== null) this.tracker.apply(e);
        else if (!turnRan) this.tracker.answeredWithoutTurn(promptId, answerStopReason(result));
      },
      (err: unknown) => {
        if (!(err instanceof acp.RequestError)) {
          // Never written (closed before the write), or the connection ended before an answer.
          this.#written.get(params)?.reject(err);
          return;
        }
        // Grok answered with a JSON-RPC error. An answer proves the frame was written, even if
        // the write signal is still on its way: the send did not fail, nothing is uncertain.
        this.#written.get(params)?.resolve();
        const evidence = evidenceFromPromptError(
          { code: err.code, message: err.message, data: err.data },
          this.opts.sessionId,
          promptId,
        );
        const receipt = this.tracker.rejected(evidence) ?? this.tracker.receipt(promptId);
        if (receipt !== undefined) this.replies.receipt(receipt);
        const wire = wireError(err, "session/prompt");
        if (wire instanceof WireError && receipt !== undefined && !this.#closed) {
          this.emit({ type: "rejected", promptId, error: wire, receipt });
        }
      },
    );
    return written.finally(() => this.#written.delete(params));
  }

  /** The write signal of a prompt whose message the stream wrote (or failed to), if it is one. */
  #writeSignal(message: unknown): { resolve(): void; reject(err: unknown): void } | undefined {
    const params: unknown =
      typeof message === "object" && message !== null ? Reflect.get(message, "params") : undefined;
    return typeof params === "object" && params !== null ? this.#written.get(params) : undefined;
  }

  /** The first `model_changed` for our session confirming `selection`, within the timeout. */
  awaitModelEcho(selection: ModelSelection): Promise<ModelEcho> {
    const seen: ModelEcho[] = [];
    return new Promise<ModelEcho>((resolve, reject) => {
      const onEcho = (echo: ModelEcho): void => {
        seen.push(echo);
        if (!echoConfirms(selection, echo)) return;
        done();
        resolve(echo);
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new AcpError("MODEL_NOT_ECHOED", "no model_changed echo confirmed the selection", {
            details: { selection: { ...selection }, seen: seen.map((e) => ({ ...e })) },
          }),
        );
      }, this.timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#modelWaiters.delete(onEcho);
      };
      this.#modelWaiters.add(onEcho);
    });
  }

  #onEvent(event: GrokEvent, message: RpcMessage | null): void {
    const sid = this.opts.sessionId;
    if (message !== null && message.kind === "notification") {
      // Before the receipts: a reply settled by turn_completed is ready when `completed` is.
      const update = this.live.accept(message.method, message.params);
      if (update !== null) {
        this.replies.update(update.facts);
        this.emit({ type: "transcript", entry: update.entry });
      }
    }
    const change = this.owner.apply(event, sid);
    if (change !== null) {
      this.emit(
        change.type === "pending"
          ? { type: "owner-action-pending", action: change.action }
          : { type: "owner-action-resolved", action: change.action },
      );
    }
    if (event.type === "model_changed" && event.sessionId === sid) {
      const echo = { modelId: event.modelId, reasoningEffort: event.reasoningEffort };
      this.emit({ type: "model-changed", echo });
      if (this.#attachEcho.pending) {
        // The attach's own re-application: drained here, never a selection's confirmation.
        this.attachEcho = echo;
        this.#attachEcho.settle();
      } else {
        for (const w of [...this.#modelWaiters]) w(echo);
      }
    }
    const evidence = evidenceFromEvent(event, sid);
    if (event.type === "queue_changed" && event.sessionId === sid) {
      const rows = evidence.flatMap((e) => (e.kind === "consumed" && e.row ? [e.row] : []));
      this.tracker.queueSnapshot(event.runningPromptId, rows);
    }
    for (const e of evidence) this.tracker.apply(e);
    this.emit({ type: "grok", event });
  }

  #onClosed(reason: CloseReason): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of this.#written.values()) {
      w.reject(new AcpError("CONNECTION_CLOSED", "the leader connection ended"));
    }
    this.tracker.connectionLost(`leader connection ended: ${reason.kind}`);
    this.replies.connectionLost((id) => this.tracker.receipt(id));
    this.sdk.close();
    this.emit({ type: "closed", reason });
  }
}

export function wireError(err: unknown, method: string): GrokSeatError {
  if (err instanceof acp.RequestError) {
    return new WireError("acp", String(err.code), err.message, {
      data: err.data,
      details: { method },
      cause: err,
    });
  }
  if (err instanceof GrokSeatError) return err;
  return new AcpError("CONNECTION_CLOSED", `${method}: the ACP connection failed`, {
    details: { method },
    cause: err,
  });
}
