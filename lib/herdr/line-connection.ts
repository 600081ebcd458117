/**
 * One connection to the Herdr API socket, carrying exactly one request line
 * (docs/design/herdr-socket-api.md §1.3: one request per connection; the server answers one line and closes,
 * or, for `events.subscribe`, keeps pushing lines).
 *
 * Two rules from §1.3 shape this file:
 * - after the request line nothing more is ever written, and the write side is never half-closed
 *   (`allowHalfOpen: true`, no `end()`): the server treats EOF *or any byte* on a streaming
 *   connection as "client closed";
 * - Herdr has no server-side timeout for ordinary requests, so every wait here has a deadline,
 *   and a line over the cap, a socket error or an early close is a typed error, never a hang.
 * Closing is always `destroy()`.
 */
import { createConnection, type Socket } from "node:net";
import { GrokSeatError } from "../errors.js";
import { HerdrError } from "./herdr-error.js";
import { LineBuffer } from "./line-buffer.js";

export interface OpenLineConnectionOptions {
  readonly socketPath: string;
  /** The request, without the trailing newline. */
  readonly line: string;
  /** Absolute deadline (ms since epoch, `Date.now()` clock) for connect + write. */
  readonly deadline: number;
  readonly maxLineBytes: number;
  readonly signal?: AbortSignal | undefined;
  /** Runs once connected, before the request is written (e.g. to read peer credentials). */
  readonly onConnect?: ((socket: Socket) => void) | undefined;
}

type State =
  | { readonly kind: "open" }
  | { readonly kind: "ended" }
  | { readonly kind: "failed"; readonly error: GrokSeatError };

const SOCKET_CLOSED_CODES = new Set(["ECONNRESET", "EPIPE"]);

export class LineConnection {
  readonly socket: Socket;
  readonly #buffer: LineBuffer;
  readonly #maxLineBytes: number;
  readonly #socketPath: string;
  readonly #lines: string[] = [];
  #state: State = { kind: "open" };
  #wake: (() => void) | null = null;

  private constructor(socket: Socket, socketPath: string, maxLineBytes: number) {
    this.socket = socket;
    this.#socketPath = socketPath;
    this.#maxLineBytes = maxLineBytes;
    this.#buffer = new LineBuffer(maxLineBytes);
  }

  /** Connect, run `onConnect`, write the request line. Rejects with a typed error. */
  static open(options: OpenLineConnectionOptions): Promise<LineConnection> {
    const socket = createConnection({ path: options.socketPath, allowHalfOpen: true });
    const conn = new LineConnection(socket, options.socketPath, options.maxLineBytes);
    return new Promise<LineConnection>((resolve, reject) => {
      let connected = false;
      const fail = (error: GrokSeatError): void => {
        cleanup();
        socket.destroy();
        reject(error);
      };
      const onError = (err: NodeJS.ErrnoException): void => {
        fail(
          new HerdrError(
            "HERDR_CONNECT_FAILED",
            `cannot connect to the Herdr socket ${options.socketPath}: ${err.code ?? err.message}`,
            { details: { socketPath: options.socketPath, errno: err.code ?? null }, cause: err },
          ),
        );
      };
      const onAbort = (): void => fail(abortError(options.socketPath));
      const timer = setTimeout(
        () => fail(timeoutError(options.socketPath, "connect")),
        Math.max(0, options.deadline - Date.now()),
      );
      const cleanup = (): void => {
        clearTimeout(timer);
        socket.off("error", onError);
        options.signal?.removeEventListener("abort", onAbort);
      };
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      socket.once("error", onError);
      socket.once("connect", () => {
        if (connected) return;
        connected = true;
        try {
          options.onConnect?.(socket);
        } catch (err) {
          return fail(
            err instanceof GrokSeatError
              ? err
              : new HerdrError("HERDR_PEER_UNREADABLE", "reading the socket peer failed", {
                  cause: err,
                }),
          );
        }
        cleanup();
        conn.#attach();
        socket.write(`${options.line}\n`);
        resolve(conn);
      });
    });
  }

  #attach(): void {
    const socket = this.socket;
    socket.on("data", (chunk: Buffer) => {
      if (this.#state.kind !== "open") return;
      const r = this.#buffer.push(chunk);
      // Lines completed before a bad one in the same chunk are delivered first (line-buffer.ts):
      // `nextLine` hands out every queued line before it throws the failure.
      if (r.lines.length > 0) {
        this.#lines.push(...r.lines);
        this.#notify();
      }
      if (r.kind === "too_long") {
        this.#fail(
          new HerdrError(
            "HERDR_REPLY_TOO_LARGE",
            `Herdr sent a line of at least ${r.bytes} bytes, over the ${this.#maxLineBytes} byte cap`,
            { details: { bytes: r.bytes } },
          ),
        );
      } else if (r.kind === "bad_utf8") {
        this.#fail(new HerdrError("HERDR_REPLY_MALFORMED", "Herdr sent a line that is not UTF-8"));
      }
    });
    socket.on("end", () => this.#serverClosed());
    socket.on("close", () => this.#serverClosed());
    socket.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== undefined && SOCKET_CLOSED_CODES.has(err.code)) return this.#serverClosed();
      this.#fail(
        new HerdrError("HERDR_SOCKET_ERROR", `Herdr socket error: ${err.code ?? err.message}`, {
          details: { errno: err.code ?? null },
          cause: err,
        }),
      );
    });
  }

  #serverClosed(): void {
    if (this.#state.kind !== "open") return;
    if (this.#buffer.pendingBytes > 0) {
      this.#fail(
        new HerdrError(
          "HERDR_CLOSED_EARLY",
          "Herdr closed the connection in the middle of a line",
          { details: { pendingBytes: this.#buffer.pendingBytes } },
        ),
      );
      return;
    }
    this.#state = { kind: "ended" };
    this.socket.destroy();
    this.#notify();
  }

  #fail(error: GrokSeatError): void {
    if (this.#state.kind !== "open") return;
    this.#state = { kind: "failed", error };
    this.socket.destroy();
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  /**
   * The next complete line, or null once the server has closed cleanly after its last line.
   * With a deadline, waiting past it rejects with HERDR_TIMEOUT (the connection stays usable).
   */
  async nextLine(deadline?: number, signal?: AbortSignal): Promise<string | null> {
    for (;;) {
      const line = this.#lines.shift();
      if (line !== undefined) return line;
      if (this.#state.kind === "ended") return null;
      if (this.#state.kind === "failed") throw this.#state.error;
      await this.#waitForChange(deadline, signal);
    }
  }

  #waitForChange(deadline: number | undefined, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        this.#wake = null;
        clearTimeout(timer);
        reject(abortError(this.#socketPath));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      if (deadline !== undefined) {
        timer = setTimeout(
          () => {
            this.#wake = null;
            signal?.removeEventListener("abort", onAbort);
            reject(timeoutError(this.#socketPath, "reply"));
          },
          Math.max(0, deadline - Date.now()),
        );
      }
      this.#wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
    });
  }

  /** Close by destroying: never `end()` (no half-close, §1.3). Idempotent. */
  close(): void {
    if (this.#state.kind === "open") this.#state = { kind: "ended" };
    this.socket.destroy();
    this.#notify();
  }
}

function timeoutError(where: string, phase: "connect" | "reply"): GrokSeatError {
  return new HerdrError("HERDR_TIMEOUT", `Herdr did not answer in time (${phase}, ${where})`, {
    details: { phase },
  });
}

function abortError(where: string): GrokSeatError {
  return new HerdrError("HERDR_ABORTED", `Herdr request aborted (${where})`);
}
