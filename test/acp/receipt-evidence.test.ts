import { test } from "uvu";
import * as assert from "uvu/assert";
import type { GrokEvent, QueueEntry } from "../../lib/acp/grok-extensions.js";
import {
  evidenceFromEvent,
  evidenceFromPromptError,
  evidenceFromPromptResponse,
  evidenceFromRecord,
} from "../../lib/acp/receipt-evidence.js";

const S = "0198b0c2-1111-7222-8333-444455556666";
const P = "5f0c1e2d-3a4b-4c5d-8e6f-7a8b9c0d1e2f";
const row = (id: string, version: number, position: number): QueueEntry => ({
  id,
  version,
  owner: "grok-seat",
  lastEditor: null,
  kind: "prompt",
  text: "t",
  position,
});

test("queue entries and runningPromptId are consumption, with the row for queue/remove", () => {
  const e: GrokEvent = {
    type: "queue_changed",
    sessionId: S,
    entries: [row(P, 2, 0), row("other", 0, 1)],
    runningPromptId: "tui-turn",
  };
  const out = evidenceFromEvent(e, S);
  assert.equal(out[0], {
    kind: "consumed",
    evidence: { sessionId: S, promptId: P, kind: "queue-entry", detail: "position 0, version 2" },
    row: { promptId: P, version: 2, owner: "grok-seat", position: 0 },
  });
  assert.equal(out[2], {
    kind: "consumed",
    evidence: {
      sessionId: S,
      promptId: "tui-turn",
      kind: "running-prompt",
      detail: "x.ai/queue/changed runningPromptId",
    },
    row: null,
  });
  assert.equal(evidenceFromEvent({ ...e, sessionId: "other-session" }, S), []);
});

test("a streamed update with our promptId is consumption (running)", () => {
  const out = evidenceFromEvent(
    {
      type: "session_update",
      sessionId: S,
      kind: "agent_message_chunk",
      promptId: P,
      replay: false,
    },
    S,
  );
  assert.is(out[0]?.kind === "consumed" && out[0].evidence.kind, "running-prompt");
  assert.equal(
    evidenceFromEvent(
      { type: "session_update", sessionId: S, kind: "x", promptId: null, replay: false },
      S,
    ),
    [],
  );
});

test("results: prompt_complete and turn_completed for our session; odd stop reasons are not evidence", () => {
  const pc = evidenceFromEvent(
    {
      type: "prompt_complete",
      sessionId: S,
      promptId: P,
      stopReason: "end_turn",
      agentResult: null,
    },
    S,
  );
  assert.equal(pc, [
    {
      kind: "result",
      evidence: {
        sessionId: S,
        promptId: P,
        channel: "prompt-complete",
        stopReason: "end_turn",
        detail: "x.ai/session/prompt_complete",
      },
    },
  ]);
  const tc = evidenceFromEvent(
    {
      type: "turn_completed",
      sessionId: S,
      promptId: P,
      stopReason: "cancelled",
      agentResult: null,
      replay: true,
    },
    S,
  );
  assert.is(tc[0]?.kind === "result" && tc[0].evidence.channel, "turn-completed");
  assert.is(tc[0]?.kind === "result" && tc[0].evidence.detail, "turn_completed (replayed)");
  assert.equal(
    evidenceFromEvent(
      {
        type: "prompt_complete",
        sessionId: S,
        promptId: P,
        stopReason: "End Turn!",
        agentResult: null,
      },
      S,
    ),
    [],
  );
  assert.equal(
    evidenceFromEvent(
      {
        type: "prompt_complete",
        sessionId: "x",
        promptId: P,
        stopReason: "end_turn",
        agentResult: null,
      },
      S,
    ),
    [],
  );
});

test("the prompt response counts only when it echoes both ids", () => {
  const ok = { stopReason: "end_turn", _meta: { sessionId: S, promptId: P, requestId: P } };
  assert.is(evidenceFromPromptResponse(ok, S, P)?.kind, "result");
  assert.is(
    evidenceFromPromptResponse({ stopReason: "end_turn", _meta: { promptId: P } }, S, P),
    null,
  );
  assert.is(
    evidenceFromPromptResponse({ stopReason: "end_turn", _meta: { sessionId: S } }, S, P),
    null,
  );
  assert.is(evidenceFromPromptResponse({ stopReason: "end_turn" }, S, P), null);
  assert.is(
    evidenceFromPromptResponse({ ...ok, _meta: { ...ok._meta, promptId: "other" } }, S, P),
    null,
  );
});

test("durable record lines: turn_completed is a result, a persisted update with our id is consumption", () => {
  const tc = evidenceFromRecord(
    {
      timestamp: 1,
      method: "_x.ai/session/update",
      params: {
        sessionId: S,
        update: { sessionUpdate: "turn_completed", prompt_id: P, stop_reason: "end_turn" },
      },
    },
    S,
  );
  assert.is(tc?.kind === "result" && tc.evidence.detail, "turn_completed (durable record)");
  const up = evidenceFromRecord(
    {
      timestamp: 1,
      method: "session/update",
      params: {
        sessionId: S,
        update: { sessionUpdate: "agent_message_chunk" },
        _meta: { promptId: P },
      },
    },
    S,
  );
  assert.is(up?.kind, "consumed");
  assert.is(
    evidenceFromRecord(
      { method: "session/update", params: { sessionId: "x", update: { sessionUpdate: "a" } } },
      S,
    ),
    null,
  );
  assert.is(evidenceFromRecord("garbage", S), null);
});

test("a JSON-RPC error to our session/prompt: code, message, data as text, Grok's stop reason", () => {
  assert.equal(
    evidenceFromPromptError(
      { code: -32602, message: "Invalid params", data: "unknown session id" },
      S,
      P,
    ),
    {
      promptId: P,
      sessionId: S,
      code: -32602,
      message: "Invalid params",
      detail: "unknown session id",
      stopReason: "error",
    },
  );
  // -32003 is Grok's rate limit (sampling/error.rs): prompt_complete says rate_limit for it.
  assert.is(
    evidenceFromPromptError({ code: -32003, message: "Rate limited" }, S, P).stopReason,
    "rate_limit",
  );
  assert.is(evidenceFromPromptError({ code: -32003, message: "x" }, S, P).detail, undefined);
  // An object's `message` is what error_message_from_data shows; other data as bounded JSON.
  const usage = { message: "model not found", "x.ai/promptUsage": { tokens: 3 } };
  assert.is(
    evidenceFromPromptError({ code: -32603, message: "m", data: usage }, S, P).detail,
    "model not found",
  );
  assert.is(evidenceFromPromptError({ code: 1, message: "m", data: [1, 2] }, S, P).detail, "[1,2]");
  const big = evidenceFromPromptError(
    { code: 1, message: "m", data: { x: "y".repeat(5000) } },
    S,
    P,
  );
  assert.ok((big.detail?.length ?? 0) <= 1024);
  let deep: unknown = 0;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.is(evidenceFromPromptError({ code: 1, message: "m", data: deep }, S, P).detail, undefined);
});

test.run();
