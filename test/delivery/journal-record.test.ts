import { test } from "uvu";
import * as assert from "uvu/assert";
import { type FenceInput, fenceInputProblem } from "../../lib/delivery/journal-record.js";

const ok: FenceInput = {
  promptId: "5f0c0000-0000-4000-8000-000000000001",
  sessionId: "0198c0de-0000-4000-8000-000000000001",
  leader: "linux-pidfs:boot:1",
  pane: "herdr:p1",
  text: "a brief with emoji 😀 and a newline\n",
};

test("fence inputs are bounded before they reach the journal", () => {
  assert.is(fenceInputProblem(ok), null);
  const bad: [Partial<FenceInput>, string][] = [
    [{ promptId: "" }, "promptId"],
    [{ promptId: "x".repeat(129) }, "promptId"],
    [{ promptId: "a/b" }, "promptId"],
    [{ sessionId: "-leading-dash" }, "sessionId"],
    [{ leader: "" }, "leader"],
    [{ leader: "é" }, "leader"],
    [{ pane: "x".repeat(257) }, "pane"],
    [{ pane: "new\nline" }, "pane"],
    [{ text: "lone \udc00 low surrogate" }, "text"],
    [{ text: "lone \ud83d high surrogate" }, "text"],
  ];
  for (const [patch, field] of bad)
    assert.is(fenceInputProblem({ ...ok, ...patch })?.field, field, JSON.stringify(patch));
  assert.is(
    fenceInputProblem({ ...ok, text: "" }),
    null,
    "an empty prompt is the caller's business",
  );
});

test.run();
