/** The one `connect()` to a leader socket path. */
import net from "node:net";
import type { GrokSeatError } from "../errors.js";
import { LeaderError } from "./leader-error.js";

/** Connect once to a unix socket path, bounded. No retry (client.rs retries 3 times; we do not). */
export function connectPath(path: string, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection({ path });
    const fail = (err: GrokSeatError): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () =>
        fail(
          new LeaderError("CONNECT_TIMEOUT", `connect to ${path} timed out`, {
            details: { path, timeoutMs },
          }),
        ),
      timeoutMs,
    );
    timer.unref();
    socket.once("error", (cause: NodeJS.ErrnoException) =>
      fail(
        new LeaderError(
          "CONNECT_FAILED",
          `cannot connect to ${path}: ${cause.code ?? cause.message}`,
          {
            details: { path, errno: cause.code ?? null },
            cause,
          },
        ),
      ),
    );
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      resolve(socket);
    });
  });
}
