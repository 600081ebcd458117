/**
 * A deliberately dumb client for the simulator tests: a unix socket, 4-byte big-endian length
 * prefixes written and read by hand, and every received frame kept as raw bytes. It shares no
 * code with the simulator or with lib/, so the tests check the wire, not our own codec.
 */
import { connect, type Socket } from "node:net";

export interface RawFrame {
  raw: Buffer;
  text: string;
  json: Record<string, unknown>;
}

export function frameBytes(text: string): Buffer {
  const body = Buffer.from(text, "utf8");
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v))
    : {};
}

export class RawClient {
  readonly frames: RawFrame[] = [];
  closed = false;
  private buf = Buffer.alloc(0);
  private readonly socket: Socket;
  private readonly waiters: Array<() => void> = [];
  private nextId = 100;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      while (this.buf.length >= 4) {
        const len = this.buf.readUInt32BE(0);
        if (this.buf.length < 4 + len) break;
        const raw = this.buf.subarray(4, 4 + len);
        this.buf = this.buf.subarray(4 + len);
        const text = raw.toString("utf8");
        let json: Record<string, unknown> = {};
        try {
          json = asRecord(JSON.parse(text));
        } catch {
          // kept as text
        }
        this.frames.push({ raw: Buffer.from(raw), text, json });
      }
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => undefined);
  }

  /**
   * Connect, retrying ECONNREFUSED briefly: a listener's socket file exists from bind() on, a
   * moment before listen() (the real TUI retries the same way, wait_for_socket_connectable).
   */
  static async open(path: string, retryMs = 3000): Promise<RawClient> {
    const deadline = Date.now() + retryMs;
    for (;;) {
      try {
        return await new Promise<RawClient>((resolve, reject) => {
          const s = connect(path);
          s.once("connect", () => resolve(new RawClient(s)));
          s.once("error", reject);
        });
      } catch (err) {
        const refused = err instanceof Error && "code" in err && err.code === "ECONNREFUSED";
        if (!refused || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  send(obj: unknown): void {
    this.write(frameBytes(JSON.stringify(obj)));
  }

  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Wait for the first received frame (from index `from`) matching `pred`. */
  async next(pred: (f: RawFrame) => boolean, timeoutMs = 10_000, from = 0): Promise<RawFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.frames.slice(from).find(pred);
      if (hit !== undefined) return hit;
      if (this.closed)
        throw new Error(`connection closed; frames: ${this.frames.map((f) => f.text).join("\n")}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out; frames: ${this.frames.map((f) => f.text).join("\n")}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The last few frames, shortened, for failure messages. */
  tail(n = 6): string {
    return this.frames
      .slice(-n)
      .map((f) => (f.text.length > 300 ? `${f.text.slice(0, 300)}…` : f.text))
      .join("\n");
  }

  async waitClosed(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error("connection did not close");
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** ACP payloads (parsed) received so far. */
  acp(): Record<string, unknown>[] {
    return this.frames
      .filter((f) => f.json.type === "acp" && typeof f.json.payload === "string")
      .map((f) => asRecord(JSON.parse(String(f.json.payload))));
  }

  async nextAcp(
    pred: (m: Record<string, unknown>) => boolean,
    timeoutMs = 10_000,
  ): Promise<Record<string, unknown>> {
    const frame = await this.next((f) => {
      if (f.json.type !== "acp" || typeof f.json.payload !== "string") return false;
      return pred(asRecord(JSON.parse(f.json.payload)));
    }, timeoutMs);
    return asRecord(JSON.parse(String(frame.json.payload)));
  }

  async register(
    clientType = "sim-test",
    capabilities: Record<string, unknown> = { status_line: true },
  ): Promise<Record<string, unknown>> {
    this.send({ type: "register", client_type: clientType, mode: "stdio", capabilities });
    const f = await this.next((fr) => fr.json.type === "registered");
    if (f.json.ready === false) await this.next((fr) => fr.json.type === "leader_ready", 30_000);
    return f.json;
  }

  sendAcp(msg: unknown): void {
    this.send({ type: "acp", payload: JSON.stringify(msg) });
  }

  /** Send a JSON-RPC request and wait for its response (matched by our id). */
  async request(
    method: string,
    params: unknown,
    timeoutMs = 15_000,
    id: unknown = this.nextId++,
  ): Promise<Record<string, unknown>> {
    this.sendAcp({ jsonrpc: "2.0", id, method, params });
    return this.nextAcp(
      (m) => m.method === undefined && JSON.stringify(m.id) === JSON.stringify(id),
      timeoutMs,
    );
  }

  notify(method: string, params: unknown): void {
    this.sendAcp({ jsonrpc: "2.0", method, params });
  }

  /** The session updates of `kind` (params.update.sessionUpdate) received so far. */
  updates(kind: string): Record<string, unknown>[] {
    return this.acp().filter((m) => get(m, "params", "update", "sessionUpdate") === kind);
  }

  /** Sends session/prompt as request `id` without waiting: the turn streams before it answers. */
  sendPrompt(id: unknown, sessionId: string, text: string, meta?: Record<string, unknown>): void {
    this.sendAcp({
      jsonrpc: "2.0",
      id,
      method: "session/prompt",
      params: promptParams(sessionId, text, meta),
    });
  }
}

/** A client registered as `clientType` once the leader has closed its connection. */
export async function registeredUntilClosed(
  socketPath: string,
  clientType: string,
  timeoutMs: number,
): Promise<RawClient> {
  const c = await RawClient.open(socketPath);
  await c.register(clientType);
  await c.waitClosed(timeoutMs);
  return c;
}

/** Whether `m` is an x.ai/sessions/changed whose first upserted session has `key` = `value`. */
export function upsertsSession(m: Record<string, unknown>, key: string, value: unknown): boolean {
  const upserted = get(m, "params", "upserted");
  return (
    m.method === "_x.ai/sessions/changed" &&
    Array.isArray(upserted) &&
    get(upserted[0], key) === value
  );
}

/** session/prompt params: one text block and, when given, `_meta` (promptId, clientIdentifier…). */
export function promptParams(
  sessionId: string,
  text: string,
  meta?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    sessionId,
    prompt: [{ type: "text", text }],
    ...(meta === undefined ? {} : { _meta: meta }),
  };
}

export function record(v: unknown): Record<string, unknown> {
  return asRecord(v);
}

export function get(v: unknown, ...path: string[]): unknown {
  let cur = v;
  for (const key of path) cur = asRecord(cur)[key];
  return cur;
}
