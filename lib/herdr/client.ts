/**
 * The Herdr socket client: newline-delimited JSON, one request per connection, string ids,
 * `params` always present (docs/design/herdr-socket-api.md §1). Replies are parsed with valibot; a Herdr
 * `{code,message}` error becomes a `WireError("herdr", code, message)`; every local failure is a
 * `GrokSeatError` with a stable `HERDR_*` code. Only the methods in `methods.ts` can be called.
 */
import type { Socket } from "node:net";
import * as v from "valibot";
import { type GrokSeatError, UsageError, WireError } from "../errors.js";
import { HerdrError, type HerdrErrorCode } from "./herdr-error.js";
import { LineConnection } from "./line-connection.js";
import {
  assertAllowedMethod,
  type HerdrMethod,
  type HerdrParams,
  type HerdrResult,
  RESULT_SCHEMAS,
  SUBSCRIBE_METHOD,
} from "./methods.js";
import { HerdrSubscription } from "./subscription.js";
import {
  ErrorEnvelopeSchema,
  SubscriptionStartedSchema,
  SuccessEnvelopeSchema,
} from "./wire-envelope.js";
import type { SubscriptionSpec } from "./wire-events.js";

/** The server drops a request line over 1 MiB without answering (`MAX_INITIAL_REQUEST_BYTES`). */
export const MAX_REQUEST_BYTES = 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024;

/**
 * Runs on every connection except `ping`'s, after connect() and before the request line is
 * written; it throws (a typed error) to refuse the server. lib/observe/herdr-trust.ts supplies the
 * one that checks the server is ours (the herdr layer itself never looks at the kernel).
 */
export type HerdrGate = (
  socket: Socket,
  request: { readonly method: string; readonly socketPath: string },
) => void;

export interface HerdrClientOptions {
  readonly socketPath: string;
  /** Checked before every request but `ping` (which only reads what the server says it is). */
  readonly gate?: HerdrGate;
  /** Deadline per request (connect to reply line); Herdr itself never times out (§1.3). */
  readonly timeoutMs?: number;
  /** Longest reply or event line accepted, in bytes. */
  readonly maxLineBytes?: number;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

let counter = 0;

export class HerdrClient {
  readonly socketPath: string;
  readonly timeoutMs: number;
  readonly maxLineBytes: number;
  readonly gate: HerdrGate | null;

  constructor(options: HerdrClientOptions) {
    this.socketPath = options.socketPath;
    this.gate = options.gate ?? null;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_REPLY_BYTES;
  }

  /** Send one request on a fresh connection and return the parsed, type-checked result. */
  async request<M extends HerdrMethod>(
    method: M,
    params: HerdrParams[M],
    options: RequestOptions = {},
  ): Promise<HerdrResult<M>> {
    return (await this.requestWithPeer(method, params, () => null, options)).result;
  }

  /**
   * Like `request`, and also run `inspect` on the connected socket before the request is written;
   * the session descriptor reads the server's peer credentials this way (§2.2).
   */
  async requestWithPeer<M extends HerdrMethod, P>(
    method: M,
    params: HerdrParams[M],
    inspect: (socket: Socket) => P,
    options: RequestOptions = {},
  ): Promise<{ result: HerdrResult<M>; peer: P }> {
    assertAllowedMethod(method);
    const id = nextId();
    const deadline = Date.now() + (options.timeoutMs ?? this.timeoutMs);
    const seen: { peer?: { value: P } } = {};
    const lines = await LineConnection.open({
      socketPath: this.socketPath,
      line: encodeRequest(id, method, params),
      deadline,
      maxLineBytes: this.maxLineBytes,
      signal: options.signal,
      onConnect: (socket) => {
        if (method !== "ping") this.gate?.(socket, { method, socketPath: this.socketPath });
        seen.peer = { value: inspect(socket) };
      },
    });
    try {
      const line = await lines.nextLine(deadline, options.signal);
      if (line === null) throw closedEarly(method);
      const result = parseReply(line, id, method, RESULT_SCHEMAS[method]) as HerdrResult<M>;
      if (seen.peer === undefined) {
        throw new HerdrError("HERDR_PEER_UNREADABLE", "the connection was never inspected");
      }
      return { result, peer: seen.peer.value };
    } finally {
      lines.close();
    }
  }

  /**
   * Open an `events.subscribe` stream. Resolves once `subscription_started` arrived (within the
   * timeout); rejects with the Herdr error if the server refused (e.g. `pane_not_found`).
   */
  async subscribe(
    subscriptions: readonly SubscriptionSpec[],
    options: RequestOptions = {},
  ): Promise<HerdrSubscription> {
    const id = nextId();
    const deadline = Date.now() + (options.timeoutMs ?? this.timeoutMs);
    const lines = await LineConnection.open({
      socketPath: this.socketPath,
      line: encodeRequest(id, SUBSCRIBE_METHOD, { subscriptions }),
      deadline,
      maxLineBytes: this.maxLineBytes,
      signal: options.signal,
      onConnect: (socket) =>
        this.gate?.(socket, { method: SUBSCRIBE_METHOD, socketPath: this.socketPath }),
    });
    try {
      const line = await lines.nextLine(deadline, options.signal);
      if (line === null) throw closedEarly(SUBSCRIBE_METHOD);
      parseReply(line, id, SUBSCRIBE_METHOD, SubscriptionStartedSchema);
    } catch (err) {
      lines.close();
      throw err;
    }
    return new HerdrSubscription(lines, id);
  }
}

function nextId(): string {
  counter += 1;
  return `gs-${process.pid}-${counter}`;
}

/** `{"id","method","params"}`; `params` is required by the server even when empty (§1.4). */
export function encodeRequest(id: string, method: string, params: object): string {
  const line = JSON.stringify({ id, method, params });
  const bytes = Buffer.byteLength(line, "utf8");
  if (bytes + 1 > MAX_REQUEST_BYTES) {
    throw new UsageError<HerdrErrorCode>(
      "HERDR_REQUEST_TOO_LARGE",
      `request of ${bytes} bytes exceeds Herdr's ${MAX_REQUEST_BYTES} byte limit`,
      { details: { method, bytes } },
    );
  }
  return line;
}

function closedEarly(method: string): GrokSeatError {
  return new HerdrError("HERDR_CLOSED_EARLY", `Herdr closed the connection without a reply`, {
    details: { method },
  });
}

/**
 * Parse one reply line for request `id`: an error envelope becomes a WireError, a success must
 * carry our id and the result schema (whose `type` literal pins the variant).
 */
export function parseReply<S extends v.GenericSchema>(
  line: string,
  id: string,
  method: string,
  schema: S,
): v.InferOutput<S> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new HerdrError("HERDR_REPLY_MALFORMED", "Herdr reply is not JSON", {
      details: { method, line: line.slice(0, 200) },
      cause: err,
    });
  }
  const error = v.safeParse(ErrorEnvelopeSchema, value);
  if (error.success) {
    // "" is the id of a reply to a request the server could not parse (§1.4); a refused
    // pane-scoped subscription answers with its probe's derived id `<id>:sub:<index>:probe`
    // (`ActiveSubscription::new`, src/api/subscriptions.rs).
    const errorId = error.output.id;
    if (errorId !== id && errorId !== "" && !errorId.startsWith(`${id}:`))
      throw idMismatch(method, id, errorId);
    throw new WireError("herdr", error.output.error.code, error.output.error.message, {
      details: { method, id: error.output.id },
    });
  }
  const success = v.safeParse(SuccessEnvelopeSchema, value);
  if (!success.success) {
    throw new HerdrError("HERDR_REPLY_MALFORMED", "Herdr reply is neither a result nor an error", {
      details: { method, line: line.slice(0, 200) },
    });
  }
  if (success.output.id !== id) throw idMismatch(method, id, success.output.id);
  const body = v.safeParse(schema, success.output.result);
  if (!body.success) {
    throw new HerdrError(
      "HERDR_REPLY_INVALID",
      `Herdr ${method} result does not match its schema: ${v.summarize(body.issues)}`,
      { details: { method, type: success.output.result.type } },
    );
  }
  return body.output;
}

function idMismatch(method: string, sent: string, received: string): GrokSeatError {
  return new HerdrError("HERDR_REPLY_MISMATCH", "Herdr replied with another request's id", {
    details: { method, sent, received },
  });
}
