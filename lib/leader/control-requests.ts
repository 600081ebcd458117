/**
 * Control requests in flight on one leader connection: ids, timeouts and correlation. Each command
 * runs in its own task on the leader, so replies can come back in any order
 * (docs/design/grok-leader-protocol.md §5); they are matched on `request_id` only. Request ids count up from "1"
 * as `client.rs` `send_control` does. A reply to an unknown id (late, after our timeout) is reported
 * to the caller, never matched to another request.
 */
import { GrokSeatError, WireError } from "../errors.js";
import type { ControlCommand, ControlPayload, ControlResult } from "./control.js";
import { LeaderError } from "./leader-error.js";

interface Pending {
  readonly command: string;
  readonly resolve: (payload: ControlPayload) => void;
  readonly reject: (err: GrokSeatError) => void;
  readonly timer: NodeJS.Timeout;
}

export class ControlRequests {
  readonly #pending = new Map<string, Pending>();
  #next = 1;

  get size(): number {
    return this.#pending.size;
  }

  /**
   * Register a request, hand its id to `send`, and settle on the reply, the timeout, or a failed
   * send. `send` must not throw synchronously.
   */
  issue(
    command: ControlCommand,
    timeoutMs: number,
    send: (requestId: string) => Promise<void>,
  ): Promise<ControlPayload> {
    const requestId = String(this.#next++);
    return new Promise<ControlPayload>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(requestId);
        reject(
          new LeaderError(
            "CONTROL_TIMEOUT",
            `control ${command.type} got no reply in ${timeoutMs} ms`,
            { details: { requestId, command: command.type, timeoutMs } },
          ),
        );
      }, timeoutMs);
      timer.unref();
      this.#pending.set(requestId, { command: command.type, resolve, reject, timer });
      send(requestId).catch((err: unknown) => {
        if (this.#take(requestId)) {
          reject(
            err instanceof GrokSeatError
              ? err
              : new LeaderError("CONNECTION_CLOSED", "control request not sent", { cause: err }),
          );
        }
      });
    });
  }

  /** Settle the request a `control_result` answers. False when no such request is waiting. */
  settle(requestId: string, result: ControlResult): boolean {
    const p = this.#take(requestId);
    if (!p) return false;
    if ("Ok" in result) p.resolve(result.Ok);
    else {
      const e = result.Err;
      p.reject(
        new WireError("leader", e.code, e.message, {
          data: e.details ?? null,
          details: { requestId, command: p.command },
        }),
      );
    }
    return true;
  }

  rejectAll(err: GrokSeatError): void {
    for (const id of [...this.#pending.keys()]) this.#take(id)?.reject(err);
  }

  #take(requestId: string): Pending | undefined {
    const p = this.#pending.get(requestId);
    if (!p) return undefined;
    this.#pending.delete(requestId);
    clearTimeout(p.timer);
    return p;
  }
}
