/**
 * One accepted client connection, as run_client_session (leader/server.rs) drives it:
 * registration first (30 s timeout -> error 3; a non-register message -> error 1 and close; a
 * frame that does not decode -> close), then `registered`, then — when the leader was not ready —
 * nothing until `leader_ready`, then the read loop: ping -> pong, a second register -> error 2,
 * disconnect / EOF / bad frame -> close, acp and control -> the server.
 */
import type { Socket } from "node:net";
import { encodeFrame, FrameReader } from "../frame.js";
import { trace } from "../trace.js";
import {
  type ClientCapabilities,
  type ClientMessage,
  decodeClientMessage,
  errorMessage,
  LEADER_READY,
  legacyRegistered,
  PONG,
  registered,
  withDefaults,
} from "../wire.js";

export interface ConnectionHost {
  readonly binaryVersion: string;
  readonly registrationTimeoutMs: number;
  readonly legacyRegistered: boolean;
  readonly earlyRead: boolean;
  isReady(): boolean;
  onReady(cb: () => void): void;
  /** The client finished registration (after leader_ready when it had to wait). */
  registered(conn: Connection): void;
  message(conn: Connection, msg: Extract<ClientMessage, { type: "acp" | "control" }>): void;
  disconnected(conn: Connection): void;
}

type Phase = "await_register" | "await_ready" | "open" | "closed";

export class Connection {
  readonly clientId: number;
  clientType = "";
  mode: "stdio" | "headless" = "stdio";
  capabilities: ClientCapabilities = withDefaults(undefined);
  private phase: Phase = "await_register";
  private readonly reader = new FrameReader();
  private readonly held: Buffer[] = [];
  private readonly outbox: string[] = [];
  private readonly socket: Socket;
  private readonly host: ConnectionHost;
  private timer: NodeJS.Timeout | undefined;
  /** Faults (GROK_SIM_LOSE_ACKS_AFTER_PROMPT, GROK_SIM_HALF_CLOSE_AFTER_PROMPT). */
  private muted = false;
  private halfClosed = false;

  constructor(clientId: number, socket: Socket, host: ConnectionHost) {
    this.clientId = clientId;
    this.socket = socket;
    this.host = host;
    this.timer = setTimeout(() => this.registrationTimeout(), host.registrationTimeoutMs);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("end", () => this.close());
    socket.on("error", () => this.close());
    socket.on("close", () => this.close());
  }

  get isOpen(): boolean {
    return this.phase === "open";
  }

  /** Queue a server message (ACP envelope, control result, shutdown...) for this client. */
  send(json: string): void {
    if (this.phase === "closed") return;
    if (this.phase !== "open") {
      this.outbox.push(json);
      return;
    }
    this.write(json);
  }

  /** Drop the connection without a goodbye (EOF on the client side). */
  close(): void {
    this.finish("destroy");
  }

  /** Write what is queued, then close (drain_client_outbound_on_cancel). */
  flushAndClose(): void {
    for (const json of this.outbox.splice(0)) this.write(json);
    this.finish("end");
  }

  /** Closes once: `end` after what the socket still holds, `destroy` at once. */
  private finish(how: "end" | "destroy"): void {
    if (this.phase === "closed") return;
    this.phase = "closed";
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (how === "end") this.socket.end();
    else this.socket.destroy();
    this.host.disconnected(this);
  }

  /** Fault: every later frame to this client is lost (traced); the connection stays open. */
  mute(): void {
    this.muted = true;
  }

  /** Fault: end our write side (FIN) and keep reading what the client still sends. */
  halfClose(): void {
    this.halfClosed = true;
    this.socket.end();
  }

  private write(json: string): void {
    if (this.socket.destroyed || this.halfClosed) return;
    if (this.muted) {
      trace("fault_frame_lost", { client_id: this.clientId, bytes: Buffer.byteLength(json) });
      return;
    }
    this.socket.write(encodeFrame(json));
  }

  private onData(chunk: Buffer): void {
    for (const ev of this.reader.push(chunk)) {
      if (this.phase === "closed") return;
      if (ev.kind === "too_large") {
        trace("frame_in", { client_id: this.clientId, too_large: ev.length });
        this.close();
        return;
      }
      if (this.phase === "await_ready") {
        this.held.push(ev.body);
        continue;
      }
      this.handleFrame(ev.body);
    }
  }

  private handleFrame(body: Buffer): void {
    const msg = decodeClientMessage(body);
    trace("frame_in", {
      client_id: this.clientId,
      client_type: this.clientType,
      frame: msg ?? body.toString("utf8"),
      decoded: msg !== undefined,
    });
    if (this.phase === "await_register") {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      if (msg === undefined) {
        this.close();
        return;
      }
      if (msg.type !== "register") {
        this.write(errorMessage(1));
        this.close();
        return;
      }
      this.clientType = msg.client_type;
      this.mode = msg.mode;
      this.capabilities = withDefaults(msg.capabilities);
      const ready = this.host.isReady();
      this.write(
        this.host.legacyRegistered
          ? legacyRegistered(this.clientId)
          : registered(this.clientId, ready, this.host.binaryVersion),
      );
      if (ready || this.host.earlyRead) {
        if (!ready) this.host.onReady(() => this.send(LEADER_READY));
        this.open();
      } else {
        this.phase = "await_ready";
        this.host.onReady(() => {
          if (this.phase !== "await_ready") return;
          this.write(LEADER_READY);
          this.open();
          for (const held of this.held.splice(0)) {
            if (!this.isOpen) return;
            this.handleFrame(held);
          }
        });
      }
      return;
    }
    if (msg === undefined) {
      this.close();
      return;
    }
    switch (msg.type) {
      case "acp":
      case "control":
        this.host.message(this, msg);
        return;
      case "ping":
        this.write(PONG);
        return;
      case "register":
        this.write(errorMessage(2));
        return;
      case "disconnect":
        this.close();
        return;
    }
  }

  private open(): void {
    this.phase = "open";
    this.host.registered(this);
    for (const json of this.outbox.splice(0)) this.write(json);
  }

  private registrationTimeout(): void {
    if (this.phase !== "await_register") return;
    this.write(errorMessage(3));
    this.socket.end();
    this.phase = "closed";
    this.host.disconnected(this);
  }
}
