import { test } from "uvu";
import * as assert from "uvu/assert";
import { fail, pass } from "../../lib/check.js";
import { onlyAgentRetryable } from "../../lib/proof/agent.js";

const agentPending = fail("pane.agent", "accepted", { ok: false, retryable: true }, "agent_absent");
const agentRefused = fail("pane.agent", "accepted", { ok: false, retryable: false }, "agent_null");

test("only a retryable pane.agent failure is worth another look", () => {
  assert.is(onlyAgentRetryable([pass("pane.present", true, true), agentPending]), true);
  assert.is(onlyAgentRetryable([agentPending, agentPending]), true);
});

test("no failure, a final agent refusal, or any other failure is not", () => {
  assert.is(onlyAgentRetryable([pass("pane.agent", "accepted", {})]), false);
  assert.is(onlyAgentRetryable([]), false);
  assert.is(onlyAgentRetryable([agentRefused]), false);
  assert.is(onlyAgentRetryable([agentPending, fail("pane.terminal", "a", "b", "changed")]), false);
  assert.is(onlyAgentRetryable([fail("pane.agent", "accepted", "absent", "not an object")]), false);
});

test.run();
