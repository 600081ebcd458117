/**
 * AcpSession against a scripted in-memory agent and a real journal on disk: the request sequence,
 * refusals, receipts and cancellation rules. The same behaviours run end to end against the
 * `grok` simulator in seat-sim.test.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { OWNER_ACTIONS_CAP } from "../../lib/acp/owner-actions.js";
import { GrokSeatError } from "../../lib/errors.js";
import { newPromptId } from "../../lib/grok/prompt-id.js";
import { until, within } from "./helpers.js";
import {
  attach,
  CWD,
  refusal,
  removeSeatDirs,
  requests,
  S,
  seatDir,
  sentTo,
  world,
} from "./memory-seat.js";

test("attach: initialize (grok-pager), residency probe, catalog, then resume with []", async () => {
  const w = world();
  const seat = await attach(w);
  assert.equal(requests(w), [
    "initialize",
    "_x.ai/session/info",
    "_x.ai/mcp/list",
    "session/resume",
  ]);
  const [init] = sentTo(w, "initialize");
  assert.equal(init?.kind === "request" && init.params, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    _meta: { clientType: "grok-pager" },
  });
  const [resume] = sentTo(w, "session/resume");
  assert.equal(resume?.kind === "request" && resume.params, {
    sessionId: S,
    cwd: CWD,
    mcpServers: [],
    _meta: { yoloMode: false, autoMode: false },
  });
  assert.is(seat.agentVersion, "1.0.48");
  assert.is(seat.catalog.ok, true);
  w.controller.release();
});

test("attach refuses an unknown session before any attach (both answer forms)", async () => {
  const empty = world(undefined, (a) => a.on("_x.ai/session/info", () => ({ result: {} })));
  assert.is(await refusal(attach(empty)), "SESSION_UNKNOWN");
  assert.not.ok(requests(empty).includes("session/resume"));
  empty.controller.release();
  const err = world(undefined, (a) =>
    a.on("_x.ai/session/info", () => {
      throw { code: -32602, message: "Invalid params", data: "unknown session id" };
    }),
  );
  assert.is(await refusal(attach(err)), "SESSION_UNKNOWN");
  assert.not.ok(requests(err).includes("session/resume"));
  err.controller.release();
});

test("attach refuses an enabled direct Linear endpoint before attaching", async () => {
  const w = world(undefined, (a) =>
    a.on("_x.ai/mcp/list", () => ({
      result: {
        servers: [
          {
            name: "linear",
            type: "http",
            url: "https://mcp.linear.app/sse",
            session: { enabled: true },
          },
        ],
      },
    })),
  );
  let caught: unknown = null;
  await attach(w).catch((e: unknown) => {
    caught = e;
  });
  assert.ok(caught instanceof GrokSeatError);
  if (caught instanceof GrokSeatError) {
    assert.is(caught.code, "LINEAR_DIRECT_ENABLED");
    assert.equal(caught.context.offending, ["linear"]);
    assert.match(String(caught.context.ownerStep), /start a fresh seat/);
  }
  assert.not.ok(requests(w).includes("session/resume"));
  w.controller.release();
});

test("deliver: fence before the frame, then consumed, then completed by an echoing result", async () => {
  const w = world();
  let fencedWhenSeen: string | undefined;
  w.agent.on("session/prompt", (params) => {
    const p = params as { _meta: { promptId: string } };
    fencedWhenSeen = w.controller.journal.receipt(p._meta.promptId)?.state;
    const id = p._meta.promptId;
    w.agent.notify("_x.ai/queue/changed", {
      sessionId: S,
      entries: [{ id, version: 0, owner: "grok-seat" }],
    });
    w.agent.notify("_x.ai/queue/changed", { sessionId: S, entries: [], runningPromptId: id });
    w.agent.notify("_x.ai/session/prompt_complete", {
      sessionId: S,
      promptId: id,
      stopReason: "end_turn",
      agentResult: null,
    });
    return { stopReason: "end_turn", _meta: { sessionId: S, promptId: id, requestId: id } };
  });
  const seat = await attach(w);
  const promptId = newPromptId();
  const d = await seat.deliver("hello", { promptId });
  assert.is(d.promptId, promptId);
  assert.is(fencedWhenSeen, "fenced");
  const consumed = await within(d.consumed, "consumed");
  assert.ok(consumed.consumption !== null);
  const done = await within(d.completed, "completed");
  assert.is(done.state, "completed");
  assert.is(done.result?.stopReason, "end_turn");
  const [prompt] = sentTo(w, "session/prompt");
  assert.equal(prompt?.kind === "request" && prompt.params, {
    sessionId: S,
    prompt: [{ type: "text", text: "hello" }],
    _meta: { promptId, clientIdentifier: "grok-seat" },
  });
  assert.ok(w.events.some((e) => e.type === "consumed"));
  assert.ok(w.events.some((e) => e.type === "completed"));
  // The same id again is refused, nothing sent.
  assert.is(await refusal(seat.deliver("again", { promptId })), "PROMPT_ID_DUPLICATE");
  assert.is(
    await refusal(seat.deliver("x", { promptId: `task-completed-${promptId}` })),
    "PROMPT_ID_RESERVED",
  );
  assert.is(sentTo(w, "session/prompt").length, 1);
  w.controller.release();
});

test("a result without both echoes is not completion", async () => {
  const w = world();
  w.agent.on("session/prompt", (params) => {
    const id = (params as { _meta: { promptId: string } })._meta.promptId;
    w.agent.notify("_x.ai/queue/changed", { sessionId: S, entries: [], runningPromptId: id });
    w.agent.notify("_x.ai/session/prompt_complete", {
      sessionId: "another",
      promptId: id,
      stopReason: "end_turn",
    });
    return { stopReason: "end_turn", _meta: { promptId: id } };
  });
  const seat = await attach(w);
  const d = await seat.deliver("hello");
  await within(d.consumed, "consumed");
  // A barrier: the response has been processed once another request round-trips.
  w.agent.on("_x.ai/mcp/list", () => ({ result: { servers: [] } }));
  await seat.checkCatalog();
  assert.is(seat.receipt(d.promptId)?.state, "consumed");
  w.controller.release();
});

test("an answer without the echo before consumption (allowed_models excludes every model): the receipt settles uncertain, completed and reply reject PROMPT_NOT_RUN", async () => {
  const w = world();
  // acp_agent.rs `prompt`: model_auto_switched, then a bare end_turn, no turn, no queue entry.
  w.agent.on("session/prompt", () => {
    w.agent.notify("_x.ai/session_notification", {
      sessionId: S,
      update: {
        sessionUpdate: "model_auto_switched",
        reason: "None of your models are allowed by allowed_models.",
      },
    });
    return { stopReason: "end_turn" };
  });
  const seat = await attach(w);
  const d = await seat.deliver("hello");
  assert.is(await refusal(within(d.completed, "completed")), "PROMPT_NOT_RUN");
  assert.is(await refusal(within(d.consumed, "consumed")), "PROMPT_NOT_RUN");
  assert.is(await refusal(within(d.reply, "reply")), "PROMPT_NOT_RUN");
  const r = seat.receipt(d.promptId);
  assert.is(r?.state, "uncertain");
  assert.is(r?.uncertainty?.reason, "answered-without-turn");
  assert.ok(w.events.some((e) => e.type === "uncertain" && e.receipt.promptId === d.promptId));
  w.controller.release();
});

test("cancel: queued by queue/remove with version and owner, running by session/cancel, others NOT_OURS", async () => {
  const w = world();
  w.agent.on("session/prompt", () => new Promise(() => {}));
  const seat = await attach(w);
  const mine = await seat.deliver("queued one");
  const tuiTurn = newPromptId();
  w.agent.notify("_x.ai/queue/changed", {
    sessionId: S,
    runningPromptId: tuiTurn,
    entries: [
      {
        id: mine.promptId,
        version: 3,
        owner: "grok-seat",
        kind: "prompt",
        text: "queued one",
        position: 0,
      },
    ],
  });
  await within(mine.consumed, "consumed");
  assert.is(await refusal(seat.cancel(tuiTurn)), "NOT_OURS");
  assert.is(sentTo(w, "session/cancel").length, 0);
  const r = await seat.cancel(mine.promptId);
  assert.is(r.state, "cancel-submitted");
  const [remove] = sentTo(w, "_x.ai/queue/remove");
  assert.equal(remove?.kind === "notification" && remove.params, {
    sessionId: S,
    id: mine.promptId,
    expectedVersion: 3,
    owner: "grok-seat",
  });
  // A removed prompt resolves cancelled through its own response (RemovedFromQueue).
  w.agent.notify("_x.ai/queue/changed", { sessionId: S, runningPromptId: tuiTurn, entries: [] });

  const running = await seat.deliver("runs next");
  w.agent.notify("_x.ai/queue/changed", {
    sessionId: S,
    runningPromptId: running.promptId,
    entries: [],
  });
  await within(running.consumed, "consumed");
  await seat.cancel(running.promptId);
  assert.equal(
    sentTo(w, "session/cancel").map((m) => m.kind === "notification" && m.params),
    [{ sessionId: S }],
  );
  // Never fabricated: still cancel-submitted until a result arrives.
  assert.is(seat.receipt(running.promptId)?.state, "cancel-submitted");
  w.agent.notify("_x.ai/session_notification", {
    sessionId: S,
    update: {
      sessionUpdate: "turn_completed",
      prompt_id: running.promptId,
      stop_reason: "cancelled",
    },
  });
  assert.is((await within(running.completed, "completed")).state, "cancelled");
  w.controller.release();
});

test("interaction requests are surfaced as owner actions and never answered", async () => {
  const w = world();
  const seat = await attach(w);
  const reqId = w.agent.request("session/request_permission", {
    sessionId: S,
    toolCall: { toolCallId: "tc-1" },
    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
  });
  await until(() => w.events.find((e) => e.type === "owner-action-pending"), "owner action");
  assert.equal(
    seat.pendingOwnerActions().map((a) => a.toolCallId),
    ["tc-1"],
  );
  w.agent.notify("_x.ai/session_notification", {
    sessionId: S,
    update: { sessionUpdate: "interaction_resolved", tool_call_id: "tc-1" },
  });
  await until(() => w.events.find((e) => e.type === "owner-action-resolved"), "resolved");
  assert.equal(seat.pendingOwnerActions(), []);
  assert.not.ok(w.agent.responses().some((m) => m.kind === "response" && m.id === reqId));
  w.controller.release();
});

test("a leader that never resolves: pending owner actions stay capped, the overflow is counted", async () => {
  const w = world();
  const seat = await attach(w);
  const n = OWNER_ACTIONS_CAP + 500;
  for (let i = 0; i < n; i++) {
    w.agent.request("session/request_permission", {
      sessionId: S,
      toolCall: { toolCallId: `flood-${i}` },
      options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
    });
  }
  await until(
    () => w.events.filter((e) => e.type === "owner-action-pending").length === n || undefined,
    "every request seen",
  );
  const pending = seat.pendingOwnerActions();
  assert.is(pending.length, OWNER_ACTIONS_CAP, "kept no more than the cap");
  assert.is(seat.ownerActionsDropped(), n - OWNER_ACTIONS_CAP, "what was dropped is counted");
  assert.is(pending[0]?.toolCallId, "flood-500", "the oldest were dropped, the newest kept");
  assert.is(pending.at(-1)?.toolCallId, `flood-${n - 1}`);
  w.controller.release();
});

test("model selection requires the echo of model and effort; unknown options refuse", async () => {
  const w = world();
  let echoEffort: string | null = "high";
  w.agent.on("session/set_model", (params) => {
    const p = params as { modelId: string };
    const update: Record<string, unknown> = { sessionUpdate: "model_changed", model_id: p.modelId };
    if (echoEffort !== null) update.reasoning_effort = echoEffort;
    w.agent.notify("_x.ai/session_notification", { sessionId: S, update });
    return { _meta: { model: { Ok: p.modelId } } };
  });
  const seat = await attach(w);
  assert.equal(await seat.selectModel({ modelId: "grok-build", effort: "high" }), {
    modelId: "grok-build",
    reasoningEffort: "high",
  });
  assert.equal(
    sentTo(w, "session/set_model").map((m) => m.kind === "request" && m.params),
    [{ sessionId: S, modelId: "grok-build", _meta: { reasoningEffort: "high" } }],
  );
  assert.is(await refusal(seat.selectModel({ modelId: "grok-9" })), "MODEL_UNKNOWN");
  assert.is(
    await refusal(seat.selectModel({ modelId: "grok-build", effort: "max" })),
    "EFFORT_UNKNOWN",
  );
  assert.is(
    await refusal(seat.selectModel({ modelId: "grok-fast", effort: "low" })),
    "EFFORT_UNKNOWN",
  );
  assert.is(sentTo(w, "session/set_model").length, 1);
  echoEffort = null; // the agent silently dropped the effort
  assert.is(
    await refusal(seat.selectModel({ modelId: "grok-build", effort: "low" })),
    "MODEL_NOT_ECHOED",
  );
  w.controller.release();
});

test("the attach's own model_changed (the old model) is drained, never taken as a selection's echo", async () => {
  // Every attach re-applies the session's model and echoes it; here the echo comes a little after
  // the resume answer, and the selection's own echo never comes.
  const w = world(undefined, (a) =>
    a.on("session/set_model", () => ({ _meta: { model: { Ok: "grok-build" } } })),
  );
  const resume = w.agent;
  const seat = await attach(w);
  setTimeout(
    () =>
      resume.notify("_x.ai/session_notification", {
        sessionId: S,
        update: {
          sessionUpdate: "model_changed",
          model_id: "grok-build",
          reasoning_effort: "high",
        },
      }),
    50,
  );
  // Selecting the model the session already has: only the attach's echo names it.
  assert.is(
    await refusal(seat.selectModel({ modelId: "grok-build", effort: "high" })),
    "MODEL_NOT_ECHOED",
  );
  assert.is(sentTo(w, "session/set_model").length, 1);
  assert.ok(
    w.events.some((e) => e.type === "model-changed" && e.echo.modelId === "grok-build"),
    "the attach's echo is still reported",
  );
  w.controller.release();
});

test("connection lost before consumption: uncertain, never resent; a later seat reconciles it", async () => {
  const dir = seatDir();
  const w = world(dir);
  w.agent.on("session/prompt", () => new Promise(() => {}));
  const seat = await attach(w);
  const d = await seat.deliver("lost in transit");
  w.pipe.end();
  assert.is(await refusal(within(d.consumed, "consumed")), "DELIVERY_UNCERTAIN");
  assert.is(seat.receipt(d.promptId)?.state, "uncertain");
  assert.is(await refusal(seat.deliver("after close")), "CONNECTION_CLOSED");
  assert.is(sentTo(w, "session/prompt").length, 1);
  w.controller.release();

  // A later controller reads the durable journal: the receipt is still uncertain.
  const w2 = world(dir);
  assert.is(w2.controller.journal.receipt(d.promptId)?.state, "uncertain");
  w2.agent.on("_x.ai/session/updates", () => ({
    updates: [
      {
        timestamp: 1,
        method: "session/update",
        params: {
          sessionId: S,
          update: { sessionUpdate: "agent_message_chunk" },
          _meta: { promptId: d.promptId },
        },
      },
      {
        timestamp: 2,
        method: "_x.ai/session/update",
        params: {
          sessionId: S,
          update: {
            sessionUpdate: "turn_completed",
            prompt_id: d.promptId,
            stop_reason: "end_turn",
          },
        },
      },
    ],
    totalCount: 2,
    hasMore: false,
  }));
  const seat2 = await attach(w2);
  const changed = await seat2.reconcile();
  assert.equal(
    changed.map((r) => [r.promptId, r.state]),
    [[d.promptId, "completed"]],
  );
  assert.is(changed[0]?.consumption?.reconciled, true);
  assert.is(sentTo(w2, "session/prompt").length, 0);
  w2.controller.release();
});

test("session/new is never sent", async () => {
  const w = world();
  await attach(w);
  assert.is(sentTo(w, "session/new").length, 0);
  w.controller.release();
});

test.after(removeSeatDirs);

test.run();
