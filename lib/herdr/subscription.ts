/**
 * A live `events.subscribe` stream (docs/design/herdr-socket-api.md §1.5). The request line was the only
 * write; this object never writes again and never half-closes, because the server reads any byte
 * or an EOF as "client gone" (§1.3, `ipc::probe_stream_closed`). Closing destroys the socket.
 *
 * Pushed lines are parsed into `HerdrEvent`s and read with `for await`. A line that is not JSON,
 * has neither event shape or is over the size cap ends the stream with a typed error: after a
 * framing fault nothing later on the stream can be trusted. Every event pushed *before* the bad
 * line is still delivered first, however the kernel chunked the bytes: the connection queues the
 * lines a failing chunk completed before it records the failure (`line-connection.ts`,
 * `line-buffer.ts`), and `next` takes queued lines before it reports the error.
 *
 * A Herdr error line on the stream (`{"id","error":{code,message}}` with our request id, or the
 * id of one of its probes) ends it with a `WireError("herdr", code, …)`, whatever the code: a
 * known one such as `events_lost` (herdrdev/herdr PR #4225: the subscription fell behind the
 * retained history and is closed) or one this library has never seen. It is never an event.
 */
import * as v from "valibot";
import { GrokSeatError, WireError } from "../errors.js";
import { HerdrError } from "./herdr-error.js";
import type { LineConnection } from "./line-connection.js";
import { ErrorEnvelopeSchema } from "./wire-envelope.js";
import { type HerdrEvent, parseEventLine } from "./wire-events.js";

export type SubscriptionEnd =
  | { readonly reason: "closed" }
  | { readonly reason: "server_closed" }
  | { readonly reason: "error"; readonly error: GrokSeatError };

export class HerdrSubscription implements AsyncIterable<HerdrEvent> {
  readonly #lines: LineConnection;
  readonly #requestId: string;
  #closedByUs = false;
  #end: SubscriptionEnd | null = null;
  readonly #ended: Promise<SubscriptionEnd>;
  #resolveEnded: (end: SubscriptionEnd) => void = () => {};

  /** `requestId`: the id of the `events.subscribe` request (error lines carry it). */
  constructor(lines: LineConnection, requestId: string) {
    this.#lines = lines;
    this.#requestId = requestId;
    this.#ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  /** Settles once the stream is over, with why. */
  get ended(): Promise<SubscriptionEnd> {
    return this.#ended;
  }

  /** The next event, or null when the stream ended; throws the typed error that ended it. */
  async next(): Promise<HerdrEvent | null> {
    if (this.#end !== null) {
      if (this.#end.reason === "error") throw this.#end.error;
      return null;
    }
    let line: string | null;
    try {
      line = await this.#lines.nextLine();
    } catch (err) {
      const error =
        err instanceof GrokSeatError
          ? err
          : new HerdrError("HERDR_SOCKET_ERROR", "event stream failed", { cause: err });
      if (this.#closedByUs) {
        this.#finish({ reason: "closed" });
        return null;
      }
      this.#finish({ reason: "error", error });
      throw error;
    }
    if (line === null) {
      this.#finish({ reason: this.#closedByUs ? "closed" : "server_closed" });
      return null;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw this.#abort(
        new HerdrError("HERDR_REPLY_MALFORMED", "Herdr pushed a line that is not JSON", {
          details: { line: line.slice(0, 200) },
          cause: err,
        }),
      );
    }
    const error = v.safeParse(ErrorEnvelopeSchema, value);
    if (error.success) {
      const id = error.output.id;
      if (id !== this.#requestId && id !== "" && !id.startsWith(`${this.#requestId}:`)) {
        throw this.#abort(
          new HerdrError("HERDR_REPLY_MISMATCH", "Herdr pushed another request's error", {
            details: { sent: this.#requestId, received: id },
          }),
        );
      }
      throw this.#abort(
        new WireError("herdr", error.output.error.code, error.output.error.message, {
          details: { method: "events.subscribe", id },
        }),
      );
    }
    const event = parseEventLine(value);
    if (event === null) {
      throw this.#abort(
        new HerdrError("HERDR_REPLY_MALFORMED", "Herdr pushed a line that is not an event", {
          details: { line: line.slice(0, 200) },
        }),
      );
    }
    return event;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<HerdrEvent> {
    try {
      for (;;) {
        const event = await this.next();
        if (event === null) return;
        yield event;
      }
    } finally {
      this.close();
    }
  }

  /** Stop the stream: destroy the socket (never `end()`). Idempotent. */
  close(): void {
    this.#closedByUs = true;
    this.#lines.close();
    this.#finish({ reason: "closed" });
  }

  #abort(error: GrokSeatError): GrokSeatError {
    this.#lines.close();
    this.#finish({ reason: "error", error });
    return error;
  }

  #finish(end: SubscriptionEnd): void {
    if (this.#end !== null) return;
    this.#end = end;
    this.#resolveEnded(end);
  }
}
