import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  assertPromptId,
  newPromptId,
  promptIdProblem,
  RESERVED_PROMPT_ID_PREFIXES,
} from "../../lib/grok/prompt-id.js";
import { codeOf } from "../helpers/error-code.js";

/** The call's error code; null when it returns (any other throw fails the test). */
const code = (fn: () => unknown): string | null => codeOf(fn, null);

test("a fresh id is a lowercase UUIDv4 and passes", () => {
  const id = newPromptId();
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(promptIdProblem(id), null);
  assert.is(assertPromptId(id), id);
});

test("the reserved prefixes are exactly PromptOrigin::from_prompt_id's, and each is refused", () => {
  assert.equal(
    [...RESERVED_PROMPT_ID_PREFIXES],
    [
      "task-completed-",
      "subagent-completed-",
      "workflow-completed-",
      "notifications-",
      "goal-summary-",
      "goal-classifier-nudge-",
      "scheduler-fired-",
      "plan-resume-",
    ],
  );
  for (const prefix of RESERVED_PROMPT_ID_PREFIXES) {
    const id = `${prefix}${newPromptId()}`;
    assert.is(promptIdProblem(id)?.code, "PROMPT_ID_RESERVED", prefix);
    assert.is(
      code(() => assertPromptId(id)),
      "PROMPT_ID_RESERVED",
    );
  }
});

test("non-UUIDs are refused", () => {
  for (const bad of [
    "",
    "abc",
    "5f0c",
    "not-a-uuid-at-all-really-no",
    `${newPromptId()}x`,
    42,
    null,
  ]) {
    assert.is(promptIdProblem(bad)?.code, "PROMPT_ID_INVALID", String(bad));
  }
  assert.is(
    code(() => assertPromptId(7)),
    "PROMPT_ID_INVALID",
  );
});

test("a UUID is kept verbatim (no case folding): it is echoed byte for byte", () => {
  const upper = "5F0C1E2D-3A4B-4C5D-8E6F-7A8B9C0D1E2F";
  assert.is(assertPromptId(upper), upper);
});

test.run();
