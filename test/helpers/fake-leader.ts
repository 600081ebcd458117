/**
 * A small in-test Grok leader: a plain `net` server speaking the real frames (4-byte BE length +
 * JSON, docs/design/grok-leader-protocol.md §2) with the behaviour of `leader/server.rs` `run_client_session`:
 * first frame must be `register` (else `error` code 1 and close), registration timeout (`error`
 * code 3), `registered` with the fixture-2 metadata, `leader_ready` on demand, `ping`->`pong`,
 * `control`, a second `register` -> `error` code 2, `disconnect`/EOF/bad frame -> close.
 *
 * It frames bytes with its own few lines of code, not with lib/leader, so a bug in our codec
 * cannot hide behind the same bug on the other end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { lockPathForSocket } from "../../lib/grok/paths.js";
import { leaderInfo } from "../sim/grok/wire.js";
import { pollTrue } from "./poll.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function frame(message: Json): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  const out = Buffer.alloc(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

export const CAPABILITIES: JsonObject = {
  control_v1: true,
  runtime_cpu_profile: false,
  profile_formats: [],
  workspace_exposure: true,
  relaunch_v1: true,
};

/** What a control handler answers: a payload (`Ok`), an error (`Err`), or no reply at all. */
export type ControlAnswer =
  | { ok: JsonObject }
  | { err: { code: string; message: string; details?: Json } }
  | { none: true }
  | { delayMs: number; answer: ControlAnswer };

export interface FakeLeaderOptions {
  /** Listen here instead of a fresh temp dir (the caller owns the directory). */
  readonly socketPath?: string;
  /**
   * Override the reply to `register` (a whole message, e.g. `{type:"registered",client_id:7}` for a
   * legacy leader or an `error` frame); null sends nothing at all.
   */
  readonly registerReply?: (clientId: number) => JsonObject | null;
  /** Reply `registered{ready:false}` and hold until `makeReady()`. */
  readonly startNotReady?: boolean;
  readonly registrationTimeoutMs?: number;
  readonly binaryVersion?: string;
  readonly pid?: number;
  readonly control?: (command: JsonObject, requestId: string, client: FakeClient) => ControlAnswer;
  /** Extra behaviour for `acp` frames (default: record only). */
  readonly onAcp?: (payload: string, client: FakeClient) => void;
}

export class FakeClient {
  readonly id: number;
  readonly socket: net.Socket;
  readonly received: JsonObject[] = [];
  registered = false;
  closed = false;

  constructor(id: number, socket: net.Socket) {
    this.id = id;
    this.socket = socket;
  }

  send(message: JsonObject): void {
    if (!this.socket.destroyed) this.socket.write(frame(message));
  }

  sendRaw(bytes: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  close(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export class FakeLeader {
  readonly socketPath: string;
  readonly dir: string;
  readonly clients: FakeClient[] = [];
  readonly options: FakeLeaderOptions;
  /** Every connection ever accepted (a reconnect would show up here). */
  connections = 0;
  #server: net.Server;
  #nextId = 1;
  #ready: boolean;

  readonly #ownsDir: boolean;

  private constructor(dir: string, options: FakeLeaderOptions) {
    this.dir = dir;
    this.#ownsDir = options.socketPath === undefined;
    this.socketPath = options.socketPath ?? join(dir, "leader.sock");
    this.options = options;
    this.#ready = !options.startNotReady;
    this.#server = net.createServer((s) => this.#accept(s));
  }

  static async start(options: FakeLeaderOptions = {}): Promise<FakeLeader> {
    const dir = options.socketPath
      ? dirname(options.socketPath)
      : mkdtempSync(join(tmpdir(), "grok-seat-fake-leader-"));
    const fake = new FakeLeader(dir, options);
    await new Promise<void>((resolve, reject) => {
      fake.#server.once("error", reject);
      fake.#server.listen(fake.socketPath, () => resolve());
    });
    return fake;
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** Finish "startup": every client waiting at `registered{ready:false}` gets `leader_ready`. */
  makeReady(): void {
    this.#ready = true;
    for (const c of this.clients) if (c.registered && !c.closed) c.send({ type: "leader_ready" });
  }

  /** Graceful shutdown as `broadcast_shutdown` does it: `shutting_down` + `shutdown`, then close. */
  shutdown(reason: "auto_update" | "idle_timeout" | "manual" = "manual"): void {
    for (const c of this.clients) {
      if (c.closed) continue;
      c.send({ type: "shutting_down", reason, delay_ms: 0 });
      c.send({ type: "shutdown" });
      c.close();
    }
  }

  async stop(): Promise<void> {
    for (const c of this.clients) c.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    if (this.#ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }

  #accept(socket: net.Socket): void {
    this.connections++;
    const client = new FakeClient(this.#nextId++, socket);
    this.clients.push(client);
    let buf = Buffer.alloc(0);
    const regTimer = setTimeout(() => {
      if (!client.registered) {
        client.send({ type: "error", code: 3, message: "Registration timeout" });
        client.close();
      }
    }, this.options.registrationTimeoutMs ?? 30_000);
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4) {
        const len = buf.readUInt32BE(0);
        if (len > 64 * 1024 * 1024) return void socket.destroy();
        if (buf.length < 4 + len) break;
        const body = buf.subarray(4, 4 + len).toString("utf8");
        buf = buf.subarray(4 + len);
        let msg: Json;
        try {
          msg = JSON.parse(body);
        } catch {
          return void socket.destroy(); // protocol error: the leader drops the connection
        }
        if (!isObject(msg)) return void socket.destroy();
        client.received.push(msg);
        this.#handle(client, msg, regTimer);
      }
    });
    socket.on("close", () => {
      client.closed = true;
      clearTimeout(regTimer);
    });
    socket.on("error", () => {});
  }

  #handle(client: FakeClient, msg: JsonObject, regTimer: NodeJS.Timeout): void {
    if (!client.registered) {
      clearTimeout(regTimer);
      if (msg.type !== "register") {
        client.send({ type: "error", code: 1, message: "Expected Register message" });
        client.close();
        return;
      }
      client.registered = true;
      if (this.options.registerReply) {
        const reply = this.options.registerReply(client.id);
        if (reply) client.send(reply);
        return;
      }
      client.send({
        type: "registered",
        client_id: client.id,
        ready: this.#ready,
        leader_protocol_version: 1,
        leader_binary_version: this.options.binaryVersion ?? "1.0.48",
        leader_capabilities: CAPABILITIES,
      });
      return;
    }
    switch (msg.type) {
      case "ping":
        client.send({ type: "pong" });
        return;
      case "register":
        client.send({ type: "error", code: 2, message: "Already registered" });
        return;
      case "disconnect":
        client.close();
        return;
      case "acp":
        this.options.onAcp?.(String(msg.payload), client);
        return;
      case "control": {
        const requestId = String(msg.request_id);
        const command = isObject(msg.command) ? msg.command : {};
        const answer =
          this.options.control?.(command, requestId, client) ?? this.#defaultControl(command);
        this.#answer(client, requestId, answer);
        return;
      }
      default:
        client.destroy(); // unknown type: protocol error, connection dropped
    }
  }

  #defaultControl(command: JsonObject): ControlAnswer {
    if (command.type !== "get_leader_info") {
      return { err: { code: "internal_error", message: `unsupported ${String(command.type)}` } };
    }
    // The simulator's payload (server.rs leader_info_payload), so the two doubles cannot drift.
    const info = leaderInfo({
      pid: this.options.pid ?? process.pid,
      socketPath: this.socketPath,
      lockPath: lockPathForSocket(this.socketPath),
      wsUrlSuffix: "",
      binaryVersion: this.options.binaryVersion ?? "1.0.48",
    });
    return { ok: info as JsonObject };
  }

  #answer(client: FakeClient, requestId: string, answer: ControlAnswer): void {
    if ("none" in answer) return;
    if ("delayMs" in answer) {
      setTimeout(() => this.#answer(client, requestId, answer.answer), answer.delayMs);
      return;
    }
    const result = "ok" in answer ? { Ok: answer.ok } : { Err: answer.err };
    client.send({ type: "control_result", request_id: requestId, result });
  }
}

/** Poll until `fn` returns true (no sleeping-and-hoping). */
export function until(fn: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  return pollTrue(what, fn, timeoutMs, 5);
}

/**
 * Run as a child process (`node --import tsx test/helpers/fake-leader.ts <socket> [reported-pid]`):
 * a leader process with the real leader's file behaviour (`leader/lock.rs`): it writes its pid to
 * the sibling lock file, holds an exclusive flock on it for its lifetime, listens on the socket and
 * prints "ready". With `reported-pid` its `get_leader_info` lies about its pid.
 */
async function serveMain(socketPath: string, reportedPid: number | null): Promise<void> {
  const { openSync, writeSync, ftruncateSync, fsyncSync } = await import("node:fs");
  const { flock } = await import("../../lib/kernel/flock.js");
  const lockFd = openSync(lockPathForSocket(socketPath), "w");
  if (!flock(lockFd, "exclusive", { nonBlocking: true })) throw new Error("lock held");
  ftruncateSync(lockFd, 0);
  writeSync(lockFd, String(process.pid));
  fsyncSync(lockFd);
  const fake = await FakeLeader.start({
    socketPath,
    ...(reportedPid === null ? {} : { pid: reportedPid }),
  });
  process.stdout.write("ready\n");
  process.on("SIGTERM", () => {
    void fake.stop().then(() => process.exit(0));
  });
}

if (
  process.argv[1] !== undefined &&
  import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href
) {
  const [socketPath, reported] = process.argv.slice(2);
  if (socketPath === undefined) throw new Error("usage: fake-leader.ts <socket> [reported-pid]");
  await serveMain(socketPath, reported === undefined ? null : Number(reported));
}
