/**
 * Step `connect`: one `connect()` to the proven socket; before a byte is sent, the kernel's peer
 * of our connection must be a listener of that very file, run as our uid, be named by a kernel
 * identity and be the child of the TUI we launched while that TUI lives
 * (lib/leader/connect-proven.ts, the rule `verify-proof socket --leader` follows too).
 */
import type { SocketFacts } from "../../kernel/index.js";
import { connectProven } from "../../leader/connect-proven.js";
import type { BoundTui } from "../../proof/leader.js";
import { refuseOnCheck } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";

export interface ConnectInput {
  readonly socketPath: string;
  /** The socket file as `socket_proof` saw it. */
  readonly socket: SocketFacts;
  /** The TUI we launched: while it lives, its leader is its direct child (protocol §13). */
  readonly tui: BoundTui;
  /** Bound on `connect()` (default 5 s). */
  readonly timeoutMs?: number;
}

export const connect = hireStep("connect", async (input: ConnectInput, ctx) => {
  const r = await connectProven(
    input.socketPath,
    { socket: input.socket, uid: ctx.uid, tui: input.tui },
    { timeoutMs: input.timeoutMs ?? 5_000, kernel: ctx.kernel },
  );
  if (!r.ok) throw refuseOnCheck("connect", r.code, r.failed, {}, r.cause);
  ctx.stack.adopt(r.socket, (s) => s.destroy());
  return outcome(
    r.socket,
    `connected once to ${input.socketPath}; the kernel names the listener as our peer, the TUI's child`,
    r.checks,
    null,
  );
});
