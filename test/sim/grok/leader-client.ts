/**
 * The client side of the leader socket as the real TUI and `grok leader` commands use it
 * (leader/client.rs LeaderClient): connect, `register`, wait for `registered` (10 s) and, when
 * not ready, for `leader_ready`; then ACP envelopes, control requests correlated by request_id,
 * ping keepalive, and `disconnect` on close.
 */
import { connect, type Socket } from "node:net";
import * as v from "valibot";
import { AcpRpc } from "./acp-rpc.js";
import { encodeFrame, FrameReader } from "./frame.js";
import { field, isRecord, parseJson, str } from "./json.js";
import type { ClientCapabilities } from "./wire.js";

const REGISTRATION_RESPONSE_TIMEOUT_MS = 10_000;
const LEADER_READY_TIMEOUT_MS = 120_000;

const Registered = v.object({
  type: v.literal("registered"),
  client_id: v.number(),
  ready: v.optional(v.boolean(), true),
  leader_protocol_version: v.optional(v.nullable(v.number())),
  leader_binary_version: v.optional(v.nullable(v.string())),
  leader_capabilities: v.optional(
    v.nullable(
      v.object({
        control_v1: v.optional(v.boolean(), false),
        relaunch_v1: v.optional(v.boolean(), false),
      }),
    ),
  ),
});
export type Registration = v.InferOutput<typeof Registered>;

export type CloseReason = "shutdown" | "eof";

export class LeaderClient extends AcpRpc {
  readonly registration: Registration;
  private readonly socket: Socket;
  private readonly reader: FrameReader;
  private nextControl = 0;
  private readonly controls = new Map<string, (result: unknown) => void>();
  private acpHandler: (msg: Record<string, unknown>) => void = () => {};
  private closeHandler: (reason: CloseReason) => void = () => {};
  private closed = false;
  private sawShutdown = false;
  /** The reason of the leader's `shutting_down` notice, when it sent one. */
  shutdownReason: string | undefined;
  private keepalive: NodeJS.Timeout | undefined;

  private constructor(socket: Socket, reader: FrameReader, registration: Registration) {
    super();
    this.socket = socket;
    this.reader = reader;
    this.registration = registration;
  }

  static connect(
    socketPath: string,
    clientType: string,
    capabilities: ClientCapabilities,
  ): Promise<LeaderClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(socketPath);
      const reader = new FrameReader();
      let registration: Registration | undefined;
      let settled = false;
      const early: Buffer[] = [];
      const fail = (err: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      let timer = setTimeout(
        () => fail(new Error("registration timed out")),
        REGISTRATION_RESPONSE_TIMEOUT_MS,
      );
      socket.on("error", (err) => fail(err));
      socket.on("close", () => fail(new Error("connection closed during registration")));
      socket.on("connect", () => {
        const register = { type: "register", client_type: clientType, mode: "stdio", capabilities };
        socket.write(encodeFrame(JSON.stringify(register)));
      });
      socket.on("data", (chunk: Buffer) => {
        for (const ev of reader.push(chunk)) {
          if (ev.kind !== "frame") return fail(new Error("oversized frame"));
          if (registration === undefined) {
            const parsed = v.safeParse(Registered, parseJson(ev.body.toString("utf8")));
            if (!parsed.success) {
              return fail(new Error(`unexpected frame: ${ev.body.toString("utf8")}`));
            }
            registration = parsed.output;
            if (!registration.ready) {
              clearTimeout(timer);
              timer = setTimeout(
                () => fail(new Error("leader_ready timed out")),
                LEADER_READY_TIMEOUT_MS,
              );
            }
          } else if (
            !registration.ready &&
            field(parseJson(ev.body.toString("utf8")), "type") === "leader_ready"
          ) {
            registration = { ...registration, ready: true };
          } else {
            early.push(ev.body);
          }
        }
        if (registration?.ready !== true || settled) return;
        settled = true;
        clearTimeout(timer);
        socket.removeAllListeners("data");
        socket.removeAllListeners("error");
        socket.removeAllListeners("close");
        const client = new LeaderClient(socket, reader, registration);
        client.backlog.push(...early);
        client.attach();
        resolve(client);
        // Frames that arrived with the registration are delivered once the caller had a chance
        // to install its handlers.
        setImmediate(() => client.drainBacklog());
      });
    });
  }

  private readonly backlog: Buffer[] = [];
  private draining = true;

  private drainBacklog(): void {
    for (let body = this.backlog.shift(); body !== undefined; body = this.backlog.shift()) {
      this.frame(body);
    }
    this.draining = false;
  }

  private attach(): void {
    this.socket.on("data", (chunk: Buffer) => {
      for (const ev of this.reader.push(chunk)) {
        if (ev.kind !== "frame") {
          this.socket.destroy();
          return;
        }
        if (this.draining) this.backlog.push(ev.body);
        else this.frame(ev.body);
      }
    });
    this.socket.on("error", () => this.socket.destroy());
    this.socket.on("close", () => {
      if (this.closed) return;
      this.closed = true;
      if (this.keepalive !== undefined) clearInterval(this.keepalive);
      this.closeHandler(this.sawShutdown ? "shutdown" : "eof");
    });
  }

  private frame(body: Buffer): void {
    const msg = parseJson(body.toString("utf8"));
    const type = field(msg, "type");
    if (type === "acp") {
      const payload = parseJson(str(field(msg, "payload")) ?? "");
      if (!isRecord(payload) || this.settle(payload)) return;
      this.acpHandler(payload);
    } else if (type === "control_result") {
      const id = str(field(msg, "request_id")) ?? "";
      const settle = this.controls.get(id);
      this.controls.delete(id);
      settle?.(field(msg, "result"));
    } else if (type === "shutdown" || type === "shutting_down") {
      this.sawShutdown = true;
      if (type === "shutting_down") this.shutdownReason = str(field(msg, "reason"));
    }
  }

  onAcp(handler: (msg: Record<string, unknown>) => void): void {
    this.acpHandler = handler;
  }

  onClose(handler: (reason: CloseReason) => void): void {
    this.closeHandler = handler;
  }

  startKeepalive(intervalMs: number): void {
    this.keepalive = setInterval(() => this.write({ type: "ping" }), intervalMs);
    this.keepalive.unref();
  }

  private write(msg: unknown): void {
    if (!this.closed && !this.socket.destroyed) this.socket.write(encodeFrame(JSON.stringify(msg)));
  }

  sendAcp(payload: unknown): void {
    this.write({ type: "acp", payload: JSON.stringify(payload) });
  }

  protected send(msg: unknown): void {
    this.sendAcp(msg);
  }

  control(command: unknown, timeoutMs = 5000): Promise<unknown> {
    const id = `sim-${this.nextControl++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.controls.delete(id);
        reject(new Error("control request timed out"));
      }, timeoutMs);
      this.controls.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      this.write({ type: "control", request_id: id, command });
    });
  }

  /** ClientMessage::Disconnect, then close (LeaderClient::cancel). */
  close(): void {
    this.write({ type: "disconnect" });
    this.closed = true;
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    this.socket.end();
  }
}
