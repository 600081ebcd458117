/**
 * An `@agentclientprotocol/sdk` 2.x `Stream` over the leader's `acp` payload strings
 * (docs/design/acp-mcp-toolchain.md §1.3), with the raw-frame tap in front of the SDK: responses
 * and the requests it may answer go to the SDK; the shared interaction reverse-requests,
 * notifications, malformed payloads and requests it could not answer go to the tap only.
 * Why each route: docs/design/decisions.md §2.
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
