/**
 * Valid ACP JSON-RPC messages as the leader carries them in `acp` payloads (docs/design/grok-leader-protocol.md
 * §4; `lib/acp/json-rpc.ts`, `lib/acp/grok-extensions.ts`): responses, reverse-requests (the shared
 * interactions among them) and notifications, Grok's `_x.ai/…` extensions in plain and wrapped
 * form included. `expectSdk` says whether `createAcpStream` must hand the message to the SDK.
 */
import fc from "fast-check";
import { textArb } from "./text.js";

export interface AcpCase {
  readonly message: Record<string, unknown>;
  /** Responses and non-interaction requests go to the SDK (stream.ts `routeIncoming`). */
  readonly expectSdk: boolean;
}

const text = textArb(16);
const id = fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), fc.string({ maxLength: 8 }));
const sessionId = fc.uuid();
const stopReason = fc.constantFrom("end_turn", "cancelled", "max_tokens", "refusal");

const queueChanged = fc.record(
  {
    sessionId,
    entries: fc.array(
      fc.record(
        {
          id: text,
          version: fc.nat(),
          owner: fc.option(text),
          kind: text,
          text,
          position: fc.nat(),
        },
        { requiredKeys: ["id"] },
      ),
      { maxLength: 3 },
    ),
    runningPromptId: fc.option(text),
  },
  { requiredKeys: ["sessionId"] },
);

const update = fc.oneof(
  fc.record({
    sessionUpdate: fc.constant("turn_completed"),
    prompt_id: text,
    stop_reason: stopReason,
  }),
  fc.record({
    sessionUpdate: fc.constant("model_changed"),
    model_id: text,
    reasoning_effort: fc.option(text),
  }),
  fc.record({
    sessionUpdate: fc.constant("pending_interaction"),
    tool_call_id: text,
    kind: fc.constantFrom("permission", "question"),
  }),
  fc.record({ sessionUpdate: fc.constant("interaction_resolved"), tool_call_id: text }),
  fc.record({
    sessionUpdate: fc.constant("agent_message_chunk"),
    content: fc.record({ type: fc.constant("text"), text }),
  }),
);

const envelope = fc.record(
  {
    sessionId,
    update,
    _meta: fc.record(
      { promptId: fc.option(text), isReplay: fc.option(fc.boolean()) },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ["sessionId", "update"] },
);

/** `_x.ai/<name>` plain, or wrapped `{method:"x.ai/<name>", params}` as the gateway forwards it. */
function ext(name: string, params: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(params, fc.boolean()).map(([p, wrapped]) => ({
    jsonrpc: "2.0",
    method: `_x.ai/${name}`,
    params: wrapped ? { method: `x.ai/${name}`, params: p } : p,
  }));
}

const notification: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  ext("queue/changed", queueChanged),
  ext(
    "session/prompt_complete",
    fc.record({ sessionId, promptId: text, stopReason, agentResult: fc.option(text) }),
  ),
  ext("session_notification", envelope),
  ext("session/update", envelope),
  envelope.map((params) => ({ jsonrpc: "2.0", method: "session/update", params })),
  fc
    .record({ clientVersion: text, leaderVersion: text, message: text })
    .map((params) => ({ jsonrpc: "2.0", method: "x.ai/leader/version_mismatch", params })),
  fc
    .jsonValue({ maxDepth: 2 })
    .map((params) => ({ jsonrpc: "2.0", method: "x.ai/config_changed", params })),
  fc
    .tuple(text, fc.jsonValue({ maxDepth: 2 }))
    .map(([m, params]) => ({ jsonrpc: "2.0", method: `other/${m}`, params })),
);

const interaction: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ id, sessionId, toolCallId: text }).map(({ id: i, sessionId: s, toolCallId }) => ({
    jsonrpc: "2.0",
    id: i,
    method: "session/request_permission",
    params: { sessionId: s, toolCall: { toolCallId }, options: [] },
  })),
  fc
    .record({
      id,
      sessionId,
      toolCallId: text,
      name: fc.constantFrom("ask_user_question", "exit_plan_mode"),
    })
    .map(({ id: i, sessionId: s, toolCallId, name }) => ({
      jsonrpc: "2.0",
      id: i,
      method: `_x.ai/${name}`,
      params: { sessionId: s, toolCallId },
    })),
);

const otherRequest = fc
  .record({
    id,
    method: fc.constantFrom("fs/read_text_file", "terminal/create", "x.ai/other"),
    params: fc.jsonValue({ maxDepth: 2 }),
  })
  .map((r) => ({ jsonrpc: "2.0", ...r }));

const response = fc.oneof(
  fc.record({ id, result: fc.jsonValue({ maxDepth: 3 }) }).map((r) => ({ jsonrpc: "2.0", ...r })),
  fc
    .record({
      id,
      error: fc.record({ code: fc.integer({ min: -32768, max: 32767 }), message: text }),
    })
    .map((r) => ({ jsonrpc: "2.0", ...r })),
);

export const acpCaseArb: fc.Arbitrary<AcpCase> = fc.oneof(
  notification.map((message) => ({ message, expectSdk: false })),
  interaction.map((message) => ({ message, expectSdk: false })),
  otherRequest.map((message) => ({ message, expectSdk: true })),
  response.map((message) => ({ message, expectSdk: true })),
);
