/**
 * ACP payload strings <-> JSON-RPC messages.
 *
 * The leader carries each ACP message as a string inside `{"type":"acp","payload":…}`
 * (docs/design/grok-leader-protocol.md §4 "Envelope"). Incoming payloads enter as `unknown` and are
 * classified here into request / notification / response with valibot; anything else is a typed
 * ACP_MALFORMED_PAYLOAD error for the caller to record — it never reaches the SDK and never
 * tears the connection down. Outgoing messages must be **single-line** JSON: the leader feeds each
 * payload to the agent's line reader and appends the newline itself (`agent/app.rs`).
 */
import type { AnyMessage } from "@agentclientprotocol/sdk";
import * as v from "valibot";
import type { GrokSeatError } from "../errors.js";
import { AcpError } from "./acp-error.js";

export type RpcId = string | number | null;

const IdSchema = v.union([v.string(), v.pipe(v.number(), v.finite()), v.null()]);

const ErrorObjectSchema = v.looseObject({
  code: v.pipe(v.number(), v.integer()),
  message: v.string(),
  data: v.optional(v.unknown()),
});
export type RpcErrorObject = v.InferOutput<typeof ErrorObjectSchema>;

const RequestSchema = v.looseObject({
  jsonrpc: v.literal("2.0"),
  id: IdSchema,
  method: v.string(),
  params: v.optional(v.unknown()),
});
const NotificationSchema = v.looseObject({
  jsonrpc: v.literal("2.0"),
  method: v.string(),
  params: v.optional(v.unknown()),
});
const ResultResponseSchema = v.looseObject({
  jsonrpc: v.literal("2.0"),
  id: IdSchema,
  result: v.unknown(),
});
const ErrorResponseSchema = v.looseObject({
  jsonrpc: v.literal("2.0"),
  id: IdSchema,
  error: ErrorObjectSchema,
});

export type RpcRequest = {
  readonly kind: "request";
  readonly id: RpcId;
  readonly method: string;
  readonly params: unknown;
};
export type RpcNotification = {
  readonly kind: "notification";
  readonly method: string;
  readonly params: unknown;
};
export type RpcResponse =
  | { readonly kind: "response"; readonly id: RpcId; readonly ok: true; readonly result: unknown }
  | {
      readonly kind: "response";
      readonly id: RpcId;
      readonly ok: false;
      readonly error: RpcErrorObject;
    };
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

function malformed(reason: string, payload: string, cause?: unknown): GrokSeatError {
  return new AcpError("ACP_MALFORMED_PAYLOAD", `malformed ACP payload: ${reason}`, {
    details: { reason, payloadPrefix: payload.slice(0, 200), payloadBytes: payload.length },
    cause,
  });
}

/** Classify one parsed JSON value as a JSON-RPC message, or explain why it is not one. */
export function classifyJson(value: unknown, payload = ""): RpcMessage | GrokSeatError {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return malformed(Array.isArray(value) ? "a JSON-RPC batch" : "not a JSON object", payload);
  }
  const hasMethod = "method" in value;
  const hasId = "id" in value;
  if (hasMethod && hasId) {
    const r = v.safeParse(RequestSchema, value);
    if (r.success)
      return { kind: "request", id: r.output.id, method: r.output.method, params: r.output.params };
    return malformed("invalid request", payload);
  }
  if (hasMethod) {
    const n = v.safeParse(NotificationSchema, value);
    if (n.success)
      return { kind: "notification", method: n.output.method, params: n.output.params };
    return malformed("invalid notification", payload);
  }
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (hasId && hasResult !== hasError) {
    if (hasResult) {
      const ok = v.safeParse(ResultResponseSchema, value);
      if (ok.success)
        return { kind: "response", id: ok.output.id, ok: true, result: ok.output.result };
    } else {
      const err = v.safeParse(ErrorResponseSchema, value);
      if (err.success)
        return { kind: "response", id: err.output.id, ok: false, error: err.output.error };
    }
  }
  return malformed("neither request, notification nor response", payload);
}

/** Parse one leader `acp` payload string. Returns the message or a typed error, never throws. */
export function parseAcpPayload(payload: string): RpcMessage | GrokSeatError {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch (cause) {
    return malformed("invalid JSON", payload, cause);
  }
  return classifyJson(value, payload);
}

/** Serialise a JSON-RPC message as the single-line payload string the leader requires. */
export function encodeAcpPayload(message: unknown): string {
  const text = JSON.stringify(message);
  if (typeof text !== "string") {
    throw new AcpError("ACP_UNENCODABLE", "message has no JSON form");
  }
  // JSON.stringify never emits a raw newline (it escapes \n inside strings), so one line holds.
  return text;
}

/** The JSON-RPC message object for the SDK (the same shape the SDK's own ndJsonStream yields). */
export function toSdkMessage(message: RpcMessage): AnyMessage {
  switch (message.kind) {
    case "request":
      return { jsonrpc: "2.0", id: message.id, method: message.method, params: message.params };
    case "notification":
      return { jsonrpc: "2.0", method: message.method, params: message.params };
    case "response":
      return message.ok
        ? { jsonrpc: "2.0", id: message.id, result: message.result }
        : { jsonrpc: "2.0", id: message.id, error: message.error };
  }
}
