/**
 * An `@agentclientprotocol/sdk` 2.x `Stream` (a pair of web streams of JSON-RPC objects,
 * acp-mcp-toolchain.md §1.3) over the leader's `acp` payload strings, with the raw-frame tap in
 * front of the SDK.
 *
 * Routing of incoming messages, and why:
 * - responses go to the SDK, which correlates them with our requests;
 * - the three shared **interaction** reverse-requests (`session/request_permission`,
 *   `x.ai/ask_user_question`, `x.ai/exit_plan_mode`) go to the tap only and are never given to
 *   the SDK. The leader broadcasts them to every subscriber and the first answer wins
 *   (grok-leader-protocol.md §12). The SDK answers any request without a handler with -32601
 *   (`Connection.processIncomingMessage`), and a handler's return value is always sent as the
 *   response (`registerAppRequest`); either would resolve the owner's modal in the TUI. Not
 *   delivering the request at all is the only way the SDK cannot answer it. An unanswered
 *   reverse-request costs the agent nothing: the owner's answer settles it;
 * - other reverse-requests (`fs/*`, `terminal/*`, driver-only) go to the SDK, which refuses them
 *   with -32601 — we advertise no fs/terminal capability;
 * - notifications go to the tap only: the SDK would zod-validate `session/update` and drop kinds
 *   it does not know (§1.6), and nothing in this library consumes notifications through the SDK.
 * Every request and notification is observed by the tap first; observing never throws (tap.ts),
 * so no message, however deep or large, ends the stream. A payload that is not JSON-RPC is a typed
 * ACP_MALFORMED_PAYLOAD event on the tap and is skipped: it never reaches the SDK (which would
 * answer it with -32600 to the leader) and never ends the stream.
 *
 * A request the SDK cannot answer is refused the same way. The SDK answers an unhandled request
 * with -32601 and echoes its `id` once and its `method` twice (message and `data.method`,
 * `Connection.processIncomingMessage`); when that answer cannot be written — a method name of
 * tens of MB makes a frame over the leader's 64 MiB cap (frame-codec.ts `MAX_FRAME_BYTES`) — the
 * SDK closes the whole connection (`Connection.sendMessage`). Such a request (an `id` or `method`
 * over `MAX_SDK_ECHO_CHARS`) is a typed, logged ACP_MALFORMED_PAYLOAD on the tap and is never
 * given to the SDK; the connection stays usable. Depth alone is no such case: the SDK routes on
 * `method` and never walks the params of a request it has no handler for.
 */
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { GrokSeatError } from "../errors.js";
import { AcpError } from "./acp-error.js";
import { interactionKindOf } from "./grok-extensions.js";
import { encodeAcpPayload, parseAcpPayload, type RpcMessage, toSdkMessage } from "./json-rpc.js";
import type { AcpTap } from "./tap.js";
import type { AcpPipe } from "./transport.js";

/** Where an incoming message goes. Pure, exported for tests. */
export function routeIncoming(message: RpcMessage): "sdk" | "tap" {
  if (message.kind === "response") return "sdk";
  if (message.kind === "notification") return "tap";
  return interactionKindOf(message.method) === null ? "sdk" : "tap";
}

/**
 * The longest request `id` or `method` handed to the SDK, in UTF-16 units. Real ACP method names
 * and ids are tens of characters; at this bound the SDK's answer stays far below the frame cap
 * even if every character needed a `\u` escape twice (payload JSON, then frame JSON).
 */
export const MAX_SDK_ECHO_CHARS = 64 * 1024;

/** Why the SDK cannot be given `message`, or null when it can. Pure, exported for tests. */
export function sdkRefusal(message: RpcMessage): GrokSeatError | null {
  if (message.kind !== "request") return null;
  const idChars = typeof message.id === "string" ? message.id.length : 0;
  const methodChars = message.method.length;
  if (idChars <= MAX_SDK_ECHO_CHARS && methodChars <= MAX_SDK_ECHO_CHARS) return null;
  return new AcpError(
    "ACP_MALFORMED_PAYLOAD",
    "malformed ACP payload: a request whose id or method is too long to answer",
    {
      details: {
        reason: "request id or method too long",
        idChars,
        methodChars,
        maxChars: MAX_SDK_ECHO_CHARS,
        methodPrefix: message.method.slice(0, 200),
      },
    },
  );
}

export interface AcpStreamOptions {
  /** Called after an outgoing message was written to the leader socket (dispatch evidence). */
  readonly onSent?: (message: AnyMessage, payload: string) => void;
  /** Called when writing an outgoing message failed; the SDK then closes the connection. */
  readonly onSendFailed?: (message: AnyMessage, error: unknown) => void;
}

/** Build the SDK stream over a leader pipe. Incoming requests/notifications are observed by `tap`. */
export function createAcpStream(
  pipe: AcpPipe,
  tap: AcpTap,
  options: AcpStreamOptions = {},
): Stream {
  const iterator = pipe.acpMessages();
  const readable = new ReadableStream<AnyMessage>({
    async pull(controller) {
      for (;;) {
        let next: IteratorResult<string>;
        try {
          next = await iterator.next();
        } catch (cause) {
          controller.error(
            new AcpError("ACP_PIPE_FAILED", "the leader pipe failed while reading", { cause }),
          );
          return;
        }
        if (next.done === true) {
          controller.close();
          return;
        }
        const parsed = parseAcpPayload(next.value);
        if (parsed instanceof GrokSeatError) {
          tap.malformedPayload(parsed);
          continue;
        }
        if (parsed.kind !== "response") tap.observe(parsed);
        if (routeIncoming(parsed) === "sdk") {
          const refusal = sdkRefusal(parsed);
          if (refusal !== null) {
            tap.malformedPayload(refusal);
            continue;
          }
          controller.enqueue(toSdkMessage(parsed));
          return;
        }
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  const writable = new WritableStream<AnyMessage>({
    async write(message) {
      let payload: string;
      try {
        payload = encodeAcpPayload(message);
        await pipe.sendAcp(payload);
      } catch (err) {
        options.onSendFailed?.(message, err);
        throw err;
      }
      options.onSent?.(message, payload);
    },
  });
  return { readable, writable };
}
