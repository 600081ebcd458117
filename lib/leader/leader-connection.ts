/**
 * The one connection to a Grok leader (docs/design/grok-leader-protocol.md §2-§5; `leader/client.rs` is the
 * first-party client this follows): connect once, `register`, wait for readiness, keep alive with
 * pings, correlate control requests, and pass ACP payloads through as raw strings (the ACP layer is
 * `lib/acp/`).
 *
 * Deliberate differences from `client.rs`:
 * - No retry and no reconnect, ever. A closed connection stays closed and says why (`closed`);
 *   another leader must be proven again (ADR 0224 (docs/design/adr-0224.md): "never reconnect to another leader").
 * - Bounded everywhere: capped frames, a partial-frame idle timeout and per-frame deadline
 *   (`frame-watchdog.ts`), a byte cap on unconsumed ACP payloads (`acp-inbox.ts`, the socket is
 *   paused above it), a byte cap on queued writes, a timeout on every control request.
 * - A frame the leader should never send (bad bytes, unknown `type`) closes the connection with a
 *   typed error rather than a log line.
 */
import type net from "node:net";
import { GrokSeatError, WireError } from "../errors.js";
import { AcpInbox } from "./acp-inbox.js";
import { checkAcpPayload } from "./acp-payload.js";
import { connectPath } from "./connect-path.js";
import type { ControlCommand, ControlPayload, LeaderInfo } from "./control.js";
import { ControlRequests } from "./control-requests.js";
import { encodeFrame, FrameDecoder } from "./frame-codec.js";
import { FrameWatchdog } from "./frame-watchdog.js";
import {
  type CloseReason,
  CONNECTION_DEFAULTS,
  type ConnectionSettings,
  type ConnectionState,
  type LeaderConnectionOptions,
  type LeaderEvent,
} from "./leader-connection-types.js";
import { LeaderError } from "./leader-error.js";
import {
  acpMessage,
  type ClientMessage,
  controlMessage,
  DISCONNECT,
  LEADER_PROTOCOL_VERSION,
  PING,
  parseServerMessage,
  type Registered,
  registerMessage,
  type ServerMessage,
  type ShutdownReason,
} from "./messages.js";

export type { CloseReason, ConnectionState, LeaderConnectionOptions, LeaderEvent };

/**
 * Connect (once) and register. `target` is a socket path that already passed the socket proof, or
 * an already-connected socket, so the caller can prove the peer before anything is sent. Resolves
 * when the leader is ready for ACP traffic; otherwise rejects with a typed error and closes.
 */
export async function connectLeader(
  target: string | net.Socket,
  options: LeaderConnectionOptions = {},
): Promise<LeaderConnection> {
  const settings: ConnectionSettings = { ...CONNECTION_DEFAULTS, ...options };
  const socket =
    typeof target === "string" ? await connectPath(target, settings.connectTimeoutMs) : target;
  if (socket.destroyed || socket.connecting || socket.readyState !== "open") {
    socket.destroy();
    throw new LeaderError("SOCKET_NOT_CONNECTED", "the given socket is not an open connection", {
      details: { readyState: socket.readyState },
    });
  }
  const conn = new LeaderConnection(socket, settings);
  await conn.ready;
  return conn;
}

export class LeaderConnection {
  /** The underlying socket, for kernel facts about *this* connection (peer credentials). */
  readonly socket: net.Socket;
  /** Resolves once registered and ready; rejects (and closes) when registration fails. */
  readonly ready: Promise<void>;
  /** Resolves once, with the reason, when the connection has ended. Never rejects. */
  readonly closed: Promise<CloseReason>;

  readonly #s: ConnectionSettings;
  readonly #decoder: FrameDecoder;
  readonly #inbox: AcpInbox;
  readonly #watchdog: FrameWatchdog;
  readonly #controls = new ControlRequests();
  readonly #listeners = new Set<(event: LeaderEvent) => void>();
  /** One entry per ping in flight, in order; null for a keepalive nobody awaits. */
  readonly #pongWaiters: (((ok: boolean) => void) | null)[] = [];
  #state: ConnectionState = "registering";
  #registered: Registered | null = null;
  #shuttingDown: ShutdownReason | null = null;
  #phaseTimer: NodeJS.Timeout | null = null;
  #keepalive: NodeJS.Timeout | null = null;
  #settleReady: (err: GrokSeatError | null) => void = () => {};
  #resolveClosed: (reason: CloseReason) => void = () => {};

  /** Prefer `connectLeader`. Takes over an open socket and sends `register` at once. */
  constructor(socket: net.Socket, options: LeaderConnectionOptions = {}) {
    this.socket = socket;
    this.#s = { ...CONNECTION_DEFAULTS, ...options };
    this.#decoder = new FrameDecoder({ maxFrameBytes: this.#s.maxFrameBytes });
    this.#inbox = new AcpInbox(this.#s.maxQueuedAcpBytes, (paused) => this.#setPaused(paused));
    this.#watchdog = new FrameWatchdog(
      this.#s.partialFrameIdleMs,
      this.#s.frameDeadlineMs,
      (code) =>
        this.#fail(
          new LeaderError(code, "a partial frame from the leader stalled", {
            details: { pendingBytes: this.#decoder.pendingBytes },
          }),
        ),
    );
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.ready = new Promise((resolve, reject) => {
      this.#settleReady = (err) => (err ? reject(err) : resolve());
    });
    // Registration failures reach callers through `ready`; a caller that only watches `closed`
    // must not get an unhandled rejection.
    this.ready.catch(() => {});
    socket.on("data", (chunk: Buffer) => this.#onData(chunk));
    socket.on("end", () => this.#onEnd(null));
    socket.on("close", () => this.#onEnd(null));
    socket.on("error", (err: NodeJS.ErrnoException) =>
      this.#onEnd(
        new LeaderError("CONNECTION_LOST", `leader socket error: ${err.code ?? err.message}`, {
          details: { errno: err.code ?? null },
          cause: err,
        }),
      ),
    );
    this.#startPhaseTimer(this.#s.registrationTimeoutMs, "REGISTRATION_TIMEOUT", "registered");
    this.#write(registerMessage(this.#s.clientType)).catch(() => {});
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** The leader's `registered` reply as parsed (wire field names). Throws before registration. */
  get registered(): Registered {
    if (!this.#registered) throw new LeaderError("NOT_REGISTERED", "not registered yet");
    return this.#registered;
  }

  /** The reason of a `shutting_down` the leader announced, or null (none so far). */
  get shuttingDown(): ShutdownReason | null {
    return this.#shuttingDown;
  }

  /** `client.rs` `send_control` preconditions: protocol 1 and `control_v1`. */
  get controlSupported(): boolean {
    return this.#controlRefusal() === null;
  }

  onEvent(listener: (event: LeaderEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * ACP payloads (raw JSON-RPC text) in push mode. Payloads that arrived before the first consumer
   * are delivered first. One consumer at a time (this or `acpMessages`).
   */
  onAcp(listener: (payload: string) => void): () => void {
    return this.#inbox.subscribe(listener);
  }

  /** ACP payloads in pull mode; ends when the connection has closed and the queue is drained. */
  acpMessages(): AsyncIterableIterator<string> {
    return this.#inbox.iterate();
  }

  /** Send one ACP JSON-RPC message, single-line JSON text (§4 "Envelope"). */
  async sendAcp(payload: string): Promise<void> {
    checkAcpPayload(payload);
    this.#requireOpen();
    await this.#write(acpMessage(payload));
  }

  /** Send a control command; resolves with `result.Ok`, rejects WireError("leader") on `result.Err`. */
  async control(
    command: ControlCommand,
    options: { timeoutMs?: number } = {},
  ): Promise<ControlPayload> {
    this.#requireOpen();
    const refusal = this.#controlRefusal();
    if (refusal) {
      const r = this.#registered;
      throw new LeaderError("CONTROL_UNSUPPORTED", refusal, {
        details: {
          leaderProtocolVersion: r?.leader_protocol_version ?? null,
          controlV1: r?.leader_capabilities?.control_v1 ?? null,
        },
      });
    }
    return this.#controls.issue(command, options.timeoutMs ?? this.#s.controlTimeoutMs, (id) =>
      this.#write(controlMessage(id, command)),
    );
  }

  /** `get_leader_info`: the leader's self-report (pid, socket and lock path, versions). */
  async getLeaderInfo(options: { timeoutMs?: number } = {}): Promise<LeaderInfo> {
    const payload = await this.control({ type: "get_leader_info" }, options);
    if (payload.type !== "leader_info") {
      throw new LeaderError(
        "UNEXPECTED_CONTROL_PAYLOAD",
        `get_leader_info returned ${payload.type}`,
        {
          details: { type: payload.type },
        },
      );
    }
    return payload;
  }

  /** One ping, resolved by its pong (the leader answers pings in order). */
  async ping(): Promise<void> {
    this.#requireOpen();
    const pong = new Promise<void>((resolve, reject) => {
      this.#pongWaiters.push((ok) =>
        ok ? resolve() : reject(new LeaderError("CONNECTION_CLOSED", "closed before pong")),
      );
    });
    await this.#write(PING);
    await pong;
  }

  /** Send `disconnect`, end the socket, resolve with the close reason. Idempotent. */
  close(): Promise<CloseReason> {
    this.#closeLocally({ kind: "client_closed" });
    return this.closed;
  }

  // ------------------------------------------------------------------------------- internals

  #requireOpen(): void {
    if (this.#state === "open") return;
    throw this.#state === "closed"
      ? new LeaderError("CONNECTION_CLOSED", "leader connection is closed")
      : new LeaderError("NOT_READY", `leader connection is ${this.#state}`);
  }

  #controlRefusal(): string | null {
    const r = this.#registered;
    if (r?.leader_protocol_version == null)
      return "leader is legacy and does not advertise protocol metadata";
    if (r.leader_protocol_version !== LEADER_PROTOCOL_VERSION) {
      return `leader uses unsupported protocol version ${r.leader_protocol_version}`;
    }
    if (!r.leader_capabilities) return "leader did not advertise capabilities metadata";
    if (!r.leader_capabilities.control_v1) return "leader does not advertise control_v1 support";
    return null;
  }

  #write(message: ClientMessage): Promise<void> {
    if (this.#state === "closed" || this.socket.destroyed || !this.socket.writable) {
      return Promise.reject(new LeaderError("CONNECTION_CLOSED", "leader connection is closed"));
    }
    let frame: Buffer;
    try {
      frame = encodeFrame(message, this.#s.maxFrameBytes);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.socket.writableLength + frame.length > this.#s.maxPendingWriteBytes) {
      return Promise.reject(
        new LeaderError("WRITE_BUFFER_FULL", "the leader is not reading; send refused", {
          details: { pending: this.socket.writableLength, frame: frame.length },
        }),
      );
    }
    return new Promise((resolve, reject) => {
      this.socket.write(frame, (err) => {
        if (!err) return resolve();
        reject(new LeaderError("CONNECTION_CLOSED", "write to the leader failed", { cause: err }));
      });
    });
  }

  #emit(event: LeaderEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's bug must not break the connection's state machine.
      }
    }
  }

  #onData(chunk: Buffer): void {
    if (this.#state === "closed") return;
    try {
      this.#decoder.push(chunk, (value) => this.#dispatch(parseServerMessage(value)));
    } catch (err) {
      this.#fail(
        err instanceof GrokSeatError
          ? err
          : new LeaderError("INVALID_MESSAGE", String(err), { cause: err }),
      );
      return;
    }
    // #dispatch may have closed the connection.
    if (this.state !== "closed")
      this.#watchdog.update(this.#decoder.midFrame, this.socket.isPaused());
  }

  #dispatch(msg: ServerMessage): void {
    switch (this.#state) {
      case "closed":
        return;
      case "registering":
        this.#onRegistering(msg);
        return;
      case "awaiting_ready":
        this.#onAwaitingReady(msg);
        return;
    }
    switch (msg.type) {
      case "acp":
        this.#inbox.push(msg.payload);
        return;
      case "control_result":
        if (!this.#controls.settle(msg.request_id, msg.result))
          this.#emit({ type: "unexpected", message: msg });
        return;
      case "pong":
        this.#pongWaiters.shift()?.(true);
        return;
      case "shutting_down":
        this.#shuttingDown = msg.reason;
        this.#emit({ type: "shutting_down", reason: msg.reason, delayMs: msg.delay_ms });
        return;
      case "shutdown":
        this.#emit({ type: "shutdown" });
        this.#finish({ kind: "leader_shutdown", shuttingDown: this.#shuttingDown });
        return;
      case "error":
        this.#emit({
          type: "error_frame",
          error: new WireError("leader", String(msg.code), msg.message),
        });
        return;
      case "leader_ready": // benign late readiness; client.rs ignores it too
      case "registered":
        this.#emit({ type: "unexpected", message: msg });
        return;
    }
  }

  #onRegistering(msg: ServerMessage): void {
    if (msg.type === "registered") {
      this.#registered = msg;
      if (msg.ready) {
        this.#open();
        return;
      }
      this.#state = "awaiting_ready";
      this.#startPhaseTimer(this.#s.readyTimeoutMs, "LEADER_READY_TIMEOUT", "leader_ready");
    } else if (msg.type === "error") {
      this.#fail(new WireError("leader", String(msg.code), msg.message));
    } else {
      this.#fail(this.#unexpected(msg, "registered"));
    }
  }

  /** client.rs: after `registered{ready:false}` only `leader_ready` or a shutdown may follow. */
  #onAwaitingReady(msg: ServerMessage): void {
    if (msg.type === "leader_ready") {
      this.#open();
    } else if (msg.type === "shutting_down") {
      this.#shuttingDown = msg.reason;
    } else if (msg.type === "shutdown") {
      const reason: CloseReason = { kind: "leader_shutdown", shuttingDown: this.#shuttingDown };
      this.#settleReady(
        new LeaderError("CONNECTION_CLOSED", "the leader shut down before it was ready", {
          details: { reason: reason.kind, shuttingDown: this.#shuttingDown },
        }),
      );
      this.#finish(reason);
    } else {
      this.#fail(this.#unexpected(msg, "leader_ready"));
    }
  }

  #unexpected(msg: ServerMessage, wanted: string): GrokSeatError {
    return new LeaderError("REGISTRATION_UNEXPECTED", `expected ${wanted}, got ${msg.type}`, {
      details: { expected: wanted, received: msg.type },
    });
  }

  #open(): void {
    this.#clearPhaseTimer();
    this.#state = "open";
    if (this.#s.keepaliveIntervalMs > 0) {
      this.#keepalive = setInterval(() => {
        this.#pongWaiters.push(null);
        this.#write(PING).catch(() => {});
      }, this.#s.keepaliveIntervalMs);
      this.#keepalive.unref();
    }
    this.#settleReady(null);
  }

  #startPhaseTimer(
    ms: number,
    code: "REGISTRATION_TIMEOUT" | "LEADER_READY_TIMEOUT",
    waitingFor: string,
  ): void {
    this.#clearPhaseTimer();
    this.#phaseTimer = setTimeout(
      () =>
        this.#fail(
          new LeaderError(code, `no ${waitingFor} within ${ms} ms`, {
            details: { timeoutMs: ms },
          }),
        ),
      ms,
    );
    this.#phaseTimer.unref();
  }

  #clearPhaseTimer(): void {
    if (this.#phaseTimer) clearTimeout(this.#phaseTimer);
    this.#phaseTimer = null;
  }

  #setPaused(paused: boolean): void {
    if (this.#state === "closed") return;
    if (paused) this.socket.pause();
    else this.socket.resume();
    this.#watchdog.update(this.#decoder.midFrame, paused);
  }

  /** A local failure (bad frame, timeout, failed registration): close with `protocol_error`. */
  #fail(error: GrokSeatError): void {
    this.#closeLocally({ kind: "protocol_error", error });
  }

  /** The leader side ended: EOF, socket close or socket error. */
  #onEnd(error: GrokSeatError | null): void {
    if (this.#state === "closed") return;
    const cause = error ?? this.#decoder.finish();
    if (this.#state !== "open") {
      this.#settleReady(
        new LeaderError(
          "CONNECTION_CLOSED",
          "the leader closed the connection before it was ready",
          {
            details: { reason: "connection_lost", shuttingDown: this.#shuttingDown },
            ...(cause ? { cause } : {}),
          },
        ),
      );
    }
    this.#finish({ kind: "connection_lost", shuttingDown: this.#shuttingDown, error: cause });
  }

  /** We end the connection: `disconnect` (as client.rs does on cancel), then end the socket. */
  #closeLocally(reason: CloseReason): void {
    if (this.#state === "closed") return;
    this.#settleReady(
      reason.kind === "protocol_error"
        ? reason.error
        : new LeaderError("CONNECTION_CLOSED", "closed by the caller before the leader was ready"),
    );
    const socket = this.socket;
    this.#finish(reason, false);
    if (socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(encodeFrame(DISCONNECT));
    const t = setTimeout(() => socket.destroy(), 1_000);
    t.unref();
    socket.once("close", () => clearTimeout(t));
  }

  #finish(reason: CloseReason, destroy = true): void {
    if (this.#state === "closed") return;
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    this.#clearPhaseTimer();
    this.#watchdog.clear();
    if (this.#keepalive) clearInterval(this.#keepalive);
    this.#keepalive = null;
    const err = new LeaderError("CONNECTION_CLOSED", `leader connection closed (${reason.kind})`, {
      details: { reason: reason.kind },
      ...("error" in reason && reason.error ? { cause: reason.error } : {}),
    });
    if (!wasOpen) this.#settleReady(err); // no-op when already settled
    this.#controls.rejectAll(err);
    for (const w of this.#pongWaiters.splice(0)) w?.(false);
    this.#inbox.end();
    if (destroy) this.socket.destroy();
    this.#emit({ type: "closed", reason });
    this.#resolveClosed(reason);
  }
}
