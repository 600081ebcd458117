import { test } from "uvu";
import * as assert from "uvu/assert";
import type { GrokEvent } from "../../lib/acp/grok-extensions.js";
import { OwnerActions } from "../../lib/acp/owner-actions.js";

const S = "s-1";

test("a request or a pending notice opens an owner action; interaction_resolved closes it", () => {
  const owner = new OwnerActions();
  const steps: GrokEvent[] = [
    { type: "pending_interaction", sessionId: S, toolCallId: "t1", kind: "permission" },
    {
      type: "interaction_request",
      id: 9,
      method: "session/request_permission",
      kind: "permission",
      sessionId: S,
      toolCallId: "t1",
    },
    {
      type: "interaction_request",
      id: 10,
      method: "_x.ai/ask_user_question",
      kind: "question",
      sessionId: S,
      toolCallId: "t2",
    },
    {
      type: "interaction_request",
      id: 11,
      method: "_x.ai/exit_plan_mode",
      kind: "plan_approval",
      sessionId: "other",
      toolCallId: "t3",
    },
    { type: "interaction_resolved", sessionId: S, toolCallId: "t1" },
    { type: "interaction_resolved", sessionId: S, toolCallId: "t-unknown" },
  ];
  const changes: string[] = [];
  for (const e of steps) {
    const change = owner.apply(e, S);
    if (change) changes.push(`${change.type}:${change.action.toolCallId}`);
  }
  assert.equal(changes, ["pending:t1", "pending:t2", "resolved:t1"]);
  assert.equal(
    owner.list().map((a) => a.toolCallId),
    ["t2"],
  );
  assert.equal(owner.list()[0], {
    sessionId: S,
    toolCallId: "t2",
    kind: "question",
    method: "_x.ai/ask_user_question",
  });
  assert.is(owner.dropped, 0);
});

test("at the cap the oldest is dropped and counted; a repeat or a resolve of a dropped one is no change", () => {
  const owner = new OwnerActions(3);
  const req = (i: number): GrokEvent => ({
    type: "interaction_request",
    id: i,
    method: "session/request_permission",
    kind: "permission",
    sessionId: S,
    toolCallId: `t${i}`,
  });
  for (let i = 0; i < 5; i++) assert.is(owner.apply(req(i), S)?.type, "pending");
  assert.equal(
    owner.list().map((a) => a.toolCallId),
    ["t2", "t3", "t4"],
  );
  assert.is(owner.dropped, 2);
  assert.is(owner.apply(req(4), S), null, "an update of a kept action is not a new one");
  assert.is(owner.dropped, 2);
  assert.is(owner.apply({ type: "interaction_resolved", sessionId: S, toolCallId: "t0" }, S), null);
  assert.is(
    owner.apply({ type: "interaction_resolved", sessionId: S, toolCallId: "t3" }, S)?.type,
    "resolved",
  );
  assert.is(owner.size, 2);
});

test.run();
