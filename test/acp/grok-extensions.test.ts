import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  classifyGrokMessage,
  interactionKindOf,
  normalizeExt,
} from "../../lib/acp/grok-extensions.js";
import type { RpcMessage } from "../../lib/acp/json-rpc.js";

const S = "0198b0c2-1111-7222-8333-444455556666";
const P = "5f0c1e2d-3a4b-4c5d-8e6f-7a8b9c0d1e2f";
const note = (method: string, params: unknown): RpcMessage => ({
  kind: "notification",
  method,
  params,
});
/** Direct `_x.ai/…`, wrapped `_x.ai/…` and (for robustness) un-prefixed forms of one ext notification. */
function forms(method: string, params: unknown): RpcMessage[] {
  return [note(`_${method}`, params), note(`_${method}`, { method, params }), note(method, params)];
}

test("normalizeExt unwraps the gateway form and strips the underscore", () => {
  assert.equal(normalizeExt("_x.ai/foo", { method: "x.ai/foo", params: { a: 1 } }), {
    method: "x.ai/foo",
    params: { a: 1 },
  });
  assert.equal(normalizeExt("_x.ai/foo", { a: 1 }), { method: "x.ai/foo", params: { a: 1 } });
  assert.equal(normalizeExt("x.ai/leader/version_mismatch", 1), {
    method: "x.ai/leader/version_mismatch",
    params: 1,
  });
});

test("queue/changed in every form (QueueChanged golden shape, serde defaults)", () => {
  const params = {
    sessionId: S,
    entries: [
      { id: "p1", version: 2, owner: "grok-seat", kind: "prompt", text: "hi", position: 0 },
      { id: "p2" },
    ],
    runningPromptId: P,
  };
  for (const m of forms("x.ai/queue/changed", params)) {
    const e = classifyGrokMessage(m);
    assert.equal(e, {
      type: "queue_changed",
      sessionId: S,
      runningPromptId: P,
      entries: [
        {
          id: "p1",
          version: 2,
          owner: "grok-seat",
          lastEditor: null,
          kind: "prompt",
          text: "hi",
          position: 0,
        },
        { id: "p2", version: 0, owner: null, lastEditor: null, kind: "", text: "", position: 0 },
      ],
    });
  }
});

test("prompt_complete in every form", () => {
  const params = { sessionId: S, promptId: P, stopReason: "end_turn", agentResult: null };
  for (const m of forms("x.ai/session/prompt_complete", params)) {
    assert.equal(classifyGrokMessage(m), {
      type: "prompt_complete",
      sessionId: S,
      promptId: P,
      stopReason: "end_turn",
      agentResult: null,
    });
  }
});

test("session_notification and replayed session/update carry the snake_case updates", () => {
  const tc = { sessionUpdate: "turn_completed", prompt_id: P, stop_reason: "cancelled" };
  for (const m of forms("x.ai/session_notification", { sessionId: S, update: tc })) {
    assert.equal(classifyGrokMessage(m), {
      type: "turn_completed",
      sessionId: S,
      promptId: P,
      stopReason: "cancelled",
      agentResult: null,
      replay: false,
    });
  }
  const replayed = note("_x.ai/session/update", {
    sessionId: S,
    update: { ...tc, agent_result: "boom", usage: {} },
    _meta: { isReplay: true, eventId: `${S}-9` },
  });
  assert.equal(classifyGrokMessage(replayed), {
    type: "turn_completed",
    sessionId: S,
    promptId: P,
    stopReason: "cancelled",
    agentResult: "boom",
    replay: true,
  });
  const mc = {
    sessionId: S,
    update: { sessionUpdate: "model_changed", model_id: "grok-build", reasoning_effort: "high" },
  };
  for (const m of forms("x.ai/session_notification", mc)) {
    assert.equal(classifyGrokMessage(m), {
      type: "model_changed",
      sessionId: S,
      modelId: "grok-build",
      reasoningEffort: "high",
    });
  }
  const pend = {
    sessionId: S,
    update: { sessionUpdate: "pending_interaction", tool_call_id: "t1", kind: "permission" },
  };
  assert.equal(classifyGrokMessage(note("_x.ai/session_notification", pend)), {
    type: "pending_interaction",
    sessionId: S,
    toolCallId: "t1",
    kind: "permission",
  });
  const res = {
    sessionId: S,
    update: { sessionUpdate: "interaction_resolved", tool_call_id: "t1" },
  };
  assert.equal(
    classifyGrokMessage(
      note("_x.ai/session_notification", { method: "x.ai/session_notification", params: res }),
    ),
    {
      type: "interaction_resolved",
      sessionId: S,
      toolCallId: "t1",
    },
  );
  const other = { sessionId: S, update: { sessionUpdate: "retry_state", attempt: 1 } };
  assert.equal(classifyGrokMessage(note("_x.ai/session_notification", other)), {
    type: "grok_update",
    sessionId: S,
    kind: "retry_state",
    replay: false,
  });
});

test("standard session/update keeps any kind and the notification-level promptId", () => {
  const m = note("session/update", {
    sessionId: S,
    update: { sessionUpdate: "xai_custom_update", anything: 1 },
    _meta: { promptId: P, eventId: `${S}-57`, totalTokens: 3 },
  });
  assert.equal(classifyGrokMessage(m), {
    type: "session_update",
    sessionId: S,
    kind: "xai_custom_update",
    promptId: P,
    replay: false,
  });
});

test("leader notices without underscore", () => {
  const vm = { clientVersion: "1.0.47", leaderVersion: "1.0.48 (abc)", message: "differs" };
  assert.equal(classifyGrokMessage(note("x.ai/leader/version_mismatch", vm)), {
    type: "version_mismatch",
    ...vm,
  });
  assert.equal(classifyGrokMessage(note("x.ai/config_changed", { ui: 1 })), {
    type: "config_changed",
    params: { ui: 1 },
  });
});

test("interaction reverse-requests in direct and wrapped forms", () => {
  assert.is(interactionKindOf("session/request_permission"), "permission");
  assert.is(interactionKindOf("_x.ai/ask_user_question"), "question");
  assert.is(interactionKindOf("_x.ai/exit_plan_mode"), "plan_approval");
  assert.is(interactionKindOf("fs/read_text_file"), null);
  const perm: RpcMessage = {
    kind: "request",
    id: 5,
    method: "session/request_permission",
    params: { sessionId: S, toolCall: { toolCallId: "t9" }, options: [] },
  };
  assert.equal(classifyGrokMessage(perm), {
    type: "interaction_request",
    id: 5,
    method: "session/request_permission",
    kind: "permission",
    sessionId: S,
    toolCallId: "t9",
  });
  const q: RpcMessage = {
    kind: "request",
    id: "a",
    method: "_x.ai/ask_user_question",
    params: {
      method: "x.ai/ask_user_question",
      params: { sessionId: S, toolCallId: "t2", questions: [] },
    },
  };
  assert.equal(classifyGrokMessage(q), {
    type: "interaction_request",
    id: "a",
    method: "_x.ai/ask_user_question",
    kind: "question",
    sessionId: S,
    toolCallId: "t2",
  });
});

test("malformed modelled params are typed events; unknown methods are kept as unknown", () => {
  const bad = classifyGrokMessage(note("_x.ai/queue/changed", { entries: "nope" }));
  assert.is(bad.type, "malformed");
  assert.is(bad.type === "malformed" && bad.error.code, "ACP_EXTENSION_MALFORMED");
  const badTc = classifyGrokMessage(
    note("_x.ai/session_notification", {
      sessionId: S,
      update: { sessionUpdate: "turn_completed" },
    }),
  );
  assert.is(badTc.type, "malformed");
  const unk = classifyGrokMessage(note("_x.ai/brand_new", { a: 1 }));
  assert.is(unk.type, "unknown");
  assert.is(unk.type === "unknown" && unk.key, "notification:x.ai/brand_new");
  const req = classifyGrokMessage({
    kind: "request",
    id: 1,
    method: "fs/read_text_file",
    params: {},
  });
  assert.is(req.type === "unknown" && req.key, "request:fs/read_text_file");
});

test.run();
