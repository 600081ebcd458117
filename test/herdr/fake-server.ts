/**
 * A tiny in-test Herdr socket server for client framing tests. It reads the first line the way
 * Herdr does (`read_initial_request_line_with_limits`, docs/design/herdr-socket-api.md §1.2) and hands the
 * parsed request to the test's handler, which decides what goes back. It also records everything
 * the client does after its request line (bytes, EOF), so tests can assert on the server side that
 * a streaming client never writes again and never half-closes (§1.3).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pollTrue } from "../helpers/poll.js";

export interface FakeConn {
  readonly socket: Socket;
  /** The request line as received (without the newline). */
  readonly line: string;
  /** The request parsed as JSON, or undefined when it is not JSON. */
  readonly request: { id?: unknown; method?: unknown; params?: unknown } | undefined;
  /** Bytes the client sent after its request line. */
  readonly extraBytes: () => number;
  /** True once the client half-closed or closed (EOF seen). */
  readonly sawEof: () => boolean;
  reply(value: unknown): void;
  writeRaw(data: string | Buffer): void;
  close(): void;
}

export type FakeHandler = (conn: FakeConn) => void | Promise<void>;

export interface FakeHerdr {
  readonly socketPath: string;
  readonly conns: FakeConn[];
  /** Connections accepted, including those that never sent a full line. */
  accepted: number;
  stop(): Promise<void>;
}

export async function startFakeHerdr(handler: FakeHandler): Promise<FakeHerdr> {
  const dir = mkdtempSync(join(tmpdir(), "gs-fake-herdr-"));
  const socketPath = join(dir, "herdr.sock");
  const conns: FakeConn[] = [];
  const sockets = new Set<Socket>();
  const state: FakeHerdr = {
    socketPath,
    conns,
    accepted: 0,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    state.accepted += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buf = Buffer.alloc(0);
    let conn: FakeConn | null = null;
    let extra = 0;
    let eof = false;
    socket.on("end", () => {
      eof = true;
    });
    socket.on("data", (chunk: Buffer) => {
      if (conn !== null) {
        extra += chunk.length;
        return;
      }
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(0x0a);
      if (nl < 0) return;
      const line = buf.subarray(0, nl).toString("utf8");
      extra += buf.length - nl - 1;
      let request: FakeConn["request"];
      try {
        request = JSON.parse(line);
      } catch {
        request = undefined;
      }
      conn = {
        socket,
        line,
        request,
        extraBytes: () => extra,
        sawEof: () => eof,
        reply: (value) => {
          if (!socket.destroyed) socket.write(`${JSON.stringify(value)}\n`);
        },
        writeRaw: (data) => {
          if (!socket.destroyed) socket.write(data);
        },
        close: () => socket.end(),
      };
      conns.push(conn);
      void handler(conn);
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return state;
}

/** Poll until `cond` holds (no sleep-and-hope); throws after `timeoutMs`. */
export function until(cond: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
  return pollTrue(what, cond, timeoutMs, 10);
}
