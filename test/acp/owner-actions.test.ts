import { test } from "uvu";
import * as assert from "uvu/assert";
import type { GrokEvent } from "../../lib/acp/grok-extensions.js";
import { type OwnerAction, trackOwnerActions } from "../../lib/acp/owner-actions.js";

const S = "s-1";

test("a request or a pending notice opens an owner action; interaction_resolved closes it", () => {
  let pending: ReadonlyMap<string, OwnerAction> = new Map();
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
    const r = trackOwnerActions(pending, e, S);
    pending = r.pending;
    if (r.change) changes.push(`${r.change.type}:${r.change.action.toolCallId}`);
  }
  assert.equal(changes, ["pending:t1", "pending:t2", "resolved:t1"]);
  assert.equal([...pending.keys()], ["t2"]);
  assert.equal(pending.get("t2"), {
    sessionId: S,
    toolCallId: "t2",
    kind: "question",
    method: "_x.ai/ask_user_question",
  });
});

test.run();
