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
import { type CatalogReadiness, catalogReadiness, McpListResultSchema } from "../grok/catalog.js";
import { echoConfirms, type ModelEcho, type ModelSelection } from "../grok/models.js";
import { AcpError, type AcpErrorCode } from "./acp-error.js";
import { type DeliveryEvent, DeliveryTracker } from "./deliveries.js";
import type { GrokEvent } from "./grok-extensions.js";
import type { AttachFacts } from "./handshake.js";
import { type OwnerAction, OwnerActions } from "./owner-actions.js";
import {
  evidenceFromEvent,
  evidenceFromPromptError,
  evidenceFromPromptResponse,
} from "./receipt-evidence.js";
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
  | { readonly type: "closed"; readonly reason: CloseReason };

/** Connection state shared by the seat's methods. */
export class SessionCore {
  readonly pipe: AcpPipe;
  readonly opts: AcpSessionOptions;
  readonly tap: AcpTap;
  readonly sdk: acp.ClientConnection;
  readonly tracker: DeliveryTracker;
  readonly listeners = new Set<(event: AcpSessionEvent) => void>();
  readonly clientIdentifier: string;
  readonly timeoutMs: number;
  readonly owner = new OwnerActions();
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

  constructor(pipe: AcpPipe, opts: AcpSessionOptions) {
    this.pipe = pipe;
    this.opts = opts;
    this.clientIdentifier = opts.clientIdentifier ?? "grok-seat";
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.tap = new AcpTap(opts.log === undefined ? {} : { log: opts.log });
    this.tracker = new DeliveryTracker(opts.journal, opts.sessionId, (e) => this.emit(e));
    this.tap.on((e) => this.#onEvent(e));
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
    if (this.#closed || this.sdk.signal.aborted) {
      throw new AcpError("CONNECTION_CLOSED", "the ACP connection is closed");
    }
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

  async listCatalog(): Promise<CatalogReadiness> {
    const raw = await this.request("_x.ai/mcp/list", { sessionId: this.opts.sessionId });
    // ExtMethodResult: {"result": {servers}, "error"?} (session/result.rs).
    const parsed = v.safeParse(v.looseObject({ result: McpListResultSchema }), raw);
    if (!parsed.success) {
      throw new AcpError("ACP_MCP_LIST_INVALID", "x.ai/mcp/list answer has the wrong shape");
    }
    return catalogReadiness(parsed.output.result);
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
        const e = evidenceFromPromptResponse(result, this.opts.sessionId, promptId);
        if (e !== null) this.tracker.apply(e);
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

  #onEvent(event: GrokEvent): void {
    const sid = this.opts.sessionId;
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
      for (const w of [...this.#modelWaiters]) w(echo);
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
