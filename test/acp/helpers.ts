/**
 * In-memory stand-ins for the ACP layer's unit tests: a pipe with the shape of the leader
 * connection's ACP surface, and a scripted agent on its far end. End-to-end behaviour is tested
 * against the `grok` simulator; these only exercise our own layers.
 */

import { parseAcpPayload, type RpcMessage } from "../../lib/acp/json-rpc.js";
import type { AcpPipe, CloseReason } from "../../lib/acp/transport.js";
import { GrokSeatError } from "../../lib/errors.js";
import { poll } from "../helpers/poll.js";

export class MemoryPipe implements AcpPipe {
  /** Every payload our side sent, in order. */
  readonly sent: string[] = [];
  readonly closed: Promise<CloseReason>;
  /** Called for each payload our side sends (the agent's inbox). */
  onSend: (payload: string) => void = () => {};
  #queue: string[] = [];
  #waiter: ((r: IteratorResult<string>) => void) | null = null;
  #ended = false;
  #resolveClosed: (r: CloseReason) => void = () => {};

  constructor() {
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  async sendAcp(payload: string): Promise<void> {
    if (this.#ended) throw new GrokSeatError("CONNECTION_CLOSED", "memory pipe closed");
    this.sent.push(payload);
    this.onSend(payload);
  }

  acpMessages(): AsyncIterableIterator<string> {
    const it: AsyncIterableIterator<string> = {
      next: () => {
        const value = this.#queue.shift();
        if (value !== undefined) return Promise.resolve({ value, done: false });
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiter = resolve;
        });
      },
      return: () => Promise.resolve({ value: undefined, done: true }),
      [Symbol.asyncIterator]: () => it,
    };
    return it;
  }

  /** The agent side sends one payload to us. */
  push(payload: string): void {
    if (this.#ended) return;
    const w = this.#waiter;
    if (w) {
      this.#waiter = null;
      w({ value: payload, done: false });
    } else this.#queue.push(payload);
  }

  /** The connection ends (default: EOF without a shutdown frame). */
  end(reason: CloseReason = { kind: "connection_lost", shuttingDown: null, error: null }): void {
    if (this.#ended) return;
    this.#ended = true;
    const w = this.#waiter;
    this.#waiter = null;
    w?.({ value: undefined, done: true });
    this.#resolveClosed(reason);
  }

  /** Parsed messages our side sent. */
  sentMessages(): RpcMessage[] {
    return this.sent.map((p) => {
      const m = parseAcpPayload(p);
      if (m instanceof GrokSeatError) throw m;
      return m;
    });
  }
}

type Handler = (params: unknown) => unknown;

/** A scripted agent: answers requests by method, sends notifications and reverse-requests. */
export class FakeAgent {
  readonly pipe: MemoryPipe;
  readonly received: RpcMessage[] = [];
  readonly #handlers = new Map<string, Handler>();
  #nextId = 1000;

  constructor(pipe: MemoryPipe) {
    this.pipe = pipe;
    pipe.onSend = (payload) => {
      const m = parseAcpPayload(payload);
      if (m instanceof GrokSeatError) throw m;
      this.received.push(m);
      if (m.kind !== "request") return;
      const handler = this.#handlers.get(m.method);
      queueMicrotask(() => {
        if (handler === undefined) {
          this.send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "not found" } });
          return;
        }
        Promise.resolve()
          .then(() => handler(m.params))
          .then(
            (result) => this.send({ jsonrpc: "2.0", id: m.id, result }),
            (err: unknown) =>
              this.send({
                jsonrpc: "2.0",
                id: m.id,
                error:
                  typeof err === "object" && err !== null && "code" in err
                    ? err
                    : { code: -32603, message: String(err) },
              }),
          );
      });
    };
  }

  on(method: string, handler: Handler): this {
    this.#handlers.set(method, handler);
    return this;
  }

  send(message: unknown): void {
    this.pipe.push(JSON.stringify(message));
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  /** A reverse-request; returns its id. */
  request(method: string, params: unknown, id: number | string = this.#nextId++): number | string {
    this.send({ jsonrpc: "2.0", id, method, params });
    return id;
  }

  /** Responses our side sent to reverse-requests. */
  responses(): RpcMessage[] {
    return this.received.filter((m) => m.kind === "response");
  }
}

/** Poll `fn` until it returns a value other than undefined (no fixed sleeps). */
export function until<T>(fn: () => T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
  return poll(what, fn, timeoutMs, 5);
}

/** `p`, or a failure naming `what` after `ms` (keeps a hung promise from ending the run silently). */
export async function within<T>(p: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
