import { LeaderError } from "./leader-error.js";

export class AcpInbox {
  readonly #maxBytes: number;
  readonly #onPause: (paused: boolean) => void;
  #queue: string[] = [];
  #head = 0;
  #bytes = 0;
  #paused = false;
  #ended = false;
  #listener: ((payload: string) => void) | null = null;
  #iterating = false;
  #waiter: ((result: IteratorResult<string>) => void) | null = null;

  constructor(maxBytes: number, onPause: (paused: boolean) => void) {
    this.#maxBytes = maxBytes;
    this.#onPause = onPause;
  }

  /** Bytes (UTF-16 code units, an upper bound's proxy) of queued, unconsumed payloads. */
  get queuedBytes(): number {
    return this.#bytes;
  }

  push(payload: string): void {
    if (this.#ended) return;
    if (this.#listener) {
      deliver(this.#listener, payload);
      return;
    }
    if (this.#waiter) {
      const w = this.#waiter;
      this.#waiter = null;
      w({ value: payload, done: false });
      return;
    }
    this.#queue.push(payload);
    this.#bytes += payload.length;
    if (!this.#paused && this.#bytes > this.#maxBytes) {
      this.#paused = true;
      this.#onPause(true);
    }
  }

  /** No more payloads will come; a pull consumer ends after the queue is drained. */
  end(): void {
    this.#ended = true;
    if (this.#waiter && this.#size() === 0) {
      const w = this.#waiter;
      this.#waiter = null;
      w({ value: undefined, done: true });
    }
  }

  subscribe(listener: (payload: string) => void): () => void {
    this.#claim();
    this.#listener = listener;
    while (this.#listener === listener && this.#size() > 0) deliver(listener, this.#shift());
    return () => {
      if (this.#listener === listener) this.#listener = null;
    };
  }

  iterate(): AsyncIterableIterator<string> {
    this.#claim();
    this.#iterating = true;
    const release = (): IteratorResult<string> => {
      this.#iterating = false;
      if (this.#waiter) {
        const w = this.#waiter;
        this.#waiter = null;
        w({ value: undefined, done: true });
      }
      return { value: undefined, done: true };
    };
    const it: AsyncIterableIterator<string> = {
      next: () => {
        if (!this.#iterating) return Promise.resolve({ value: undefined, done: true });
        if (this.#size() > 0) return Promise.resolve({ value: this.#shift(), done: false });
        if (this.#ended) return Promise.resolve(release());
        return new Promise((resolve) => {
          this.#waiter = resolve;
        });
      },
      return: () => Promise.resolve(release()),
      [Symbol.asyncIterator]: () => it,
    };
    return it;
  }

  #claim(): void {
    if (this.#listener || this.#iterating) {
      throw new LeaderError("ACP_CONSUMER_TAKEN", "the ACP stream already has a consumer");
    }
  }

  #size(): number {
    return this.#queue.length - this.#head;
  }

  #shift(): string {
    const payload = this.#queue[this.#head] as string;
    this.#head++;
    this.#bytes -= payload.length;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (this.#size() === 0) {
      this.#queue = [];
      this.#head = 0;
    }
    if (this.#paused && this.#bytes <= this.#maxBytes / 2) {
      this.#paused = false;
      this.#onPause(false);
    }
    return payload;
  }
}

/** A consumer's exception is its own bug: rethrow it outside our state machine, like an emitter. */
function deliver(listener: (payload: string) => void, payload: string): void {
  try {
    listener(payload);
  } catch (err) {
    queueMicrotask(() => {
      throw err;
    });
  }
}
