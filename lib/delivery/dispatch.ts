/**
 * Fence, then send, then record the send: the one way a prompt leaves this library
 * (docs/design/adr-0224.md "Persist a delivery fence before native dispatch"). No I/O of its own: the
 * journal does the file I/O and the caller's `send` writes the frame.
 *
 * - A duplicate prompt id, a fail-stopped journal or a lost admission throws *before* `send` is
 *   called: nothing leaves.
 * - If `send` rejects, the frame may or may not have left: the receipt becomes `uncertain`
 *   (`send-failed`) unless evidence already showed the leader consumed it. It is never resent.
 * - If `send` resolves, the receipt becomes `dispatched` (unless evidence or a connection loss
 *   moved it meanwhile). Dispatched is not consumption: that needs the leader's queue evidence.
 */
import { failureOf } from "../errors.js";
import type { FenceInput, Journal } from "./journal.js";
import type { Receipt } from "./receipt.js";

/** What the sender gets: the exact text whose UTF-8 bytes were hashed into the fence. */
export interface OutgoingPrompt {
  readonly promptId: string;
  readonly sessionId: string;
  readonly text: string;
  /** `Buffer.from(text, "utf8")`: the bytes the fence's sha256 and length describe. */
  readonly textBytes: Uint8Array;
  readonly textSha256: string;
  /** The admitting controller's epoch: a fencing token the frame may carry. */
  readonly epoch: number;
}

/** Write the prompt frame; resolve once it is written, reject if it may not have been. */
export type PromptSender = (prompt: OutgoingPrompt) => Promise<void>;

function describe(err: unknown): string {
  const f = failureOf(err);
  if (f !== null) return `${f.code}: ${f.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** Fence durably, send, then journal the outcome. Resolves to the receipt after the send step. */
export async function dispatch(
  journal: Journal,
  prompt: FenceInput,
  send: PromptSender,
): Promise<Receipt> {
  const { receipt, textBytes } = journal.fence(prompt);
  const outgoing: OutgoingPrompt = {
    promptId: receipt.promptId,
    sessionId: receipt.sessionId,
    text: prompt.text,
    textBytes,
    textSha256: receipt.textSha256,
    epoch: receipt.epoch,
  };
  try {
    await send(outgoing);
  } catch (err) {
    const now = journal.receipt(receipt.promptId) ?? receipt;
    if (now.state !== "fenced" && now.state !== "dispatched") return now;
    return journal.markUncertain(receipt.promptId, "send-failed", describe(err));
  }
  return journal.markDispatched(receipt.promptId);
}
