/**
 * How a delivery ends when Grok answers our `session/prompt` with a JSON-RPC error (the tracker
 * in lib/acp/deliveries.ts, fed by connection.ts), against the scripted in-memory agent and a
 * real journal on disk. Before consumption evidence it is a refusal: the receipt is `rejected`
 * (code, message, data), durable across a reopened journal, never resent; `completed` resolves
 * with it and `consumed` rejects with PROMPT_REJECTED. After consumption it is a failed turn:
 * `completed` with stop reason `error` / `rate_limit`. End to end: seat-sim-errors.test.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { AcpSessionEvent } from "../../lib/acp/acp-session.js";
import { admitController } from "../../lib/delivery/index.js";
import type { Receipt } from "../../lib/delivery/receipt.js";
import { GrokSeatError } from "../../lib/errors.js";
import { MemoryPipe, until, within } from "./helpers.js";
import { attach, refusal, removeSeatDirs, S, seatDir, sentTo, world } from "./memory-seat.js";

const UNKNOWN_SESSION = { code: -32602, message: "Invalid params", data: "unknown session id" };

function promptIdOf(params: unknown): string {
  const meta: unknown =
    typeof params === "object" && params !== null ? Reflect.get(params, "_meta") : null;
  const id: unknown =
    typeof meta === "object" && meta !== null ? Reflect.get(meta, "promptId") : null;
  if (typeof id !== "string") throw new Error("session/prompt without _meta.promptId");
  return id;
}

/** The PROMPT_REJECTED error `consumed` rejects with, or a failure naming what happened. */
async function rejection(p: Promise<Receipt>): Promise<GrokSeatError> {
  try {
    const r = await within(p, "consumed");
    throw new Error(`consumed resolved (${r.state})`);
  } catch (err) {
    if (err instanceof GrokSeatError) return err;
    throw err;
  }
}

const ofType = <T extends AcpSessionEvent["type"]>(events: readonly AcpSessionEvent[], type: T) =>
  events.filter((e): e is Extract<AcpSessionEvent, { type: T }> => e.type === type);

test.after(removeSeatDirs);

test("unknown session id: rejected with the wire error, completed resolves, consumed rejects, never resent", async () => {
  const dir = seatDir();
  const w = world(dir, (a) =>
    a.on("session/prompt", () => {
      throw UNKNOWN_SESSION;
    }),
  );
  const seat = await attach(w);
  const d = await seat.deliver("a brief for a session that is gone");
  const done = await within(d.completed, "completed");
  assert.is(done.state, "rejected");
  assert.is(done.promptId, d.promptId);
  assert.equal(done.rejection, {
    code: -32602,
    message: "Invalid params",
    detail: "unknown session id",
    at: done.rejection?.at ?? -1,
  });
  assert.is(done.result, null, "a refusal is not a result");
  assert.is(done.consumption, null);
  const err = await rejection(d.consumed);
  assert.is(err.code, "PROMPT_REJECTED");
  assert.is(err.context.code, -32602);
  assert.is(err.context.detail, "unknown session id");
  assert.equal(err.context.receipt, done);
  // The event keeps its name and now carries the receipt.
  const [ev] = await until(() => {
    const r = ofType(w.events, "rejected");
    return r.length > 0 ? r : undefined;
  }, "rejected event");
  assert.is(ev?.promptId, d.promptId);
  assert.is(ev?.error.code, "-32602");
  assert.is(ev?.receipt.state, "rejected");
  assert.is(ofType(w.events, "completed").length, 0, "no completion was fabricated");
  assert.is(ofType(w.events, "consumed").length, 0);
  assert.is(seat.receipt(d.promptId)?.state, "rejected");
  assert.is(await refusal(seat.cancel(d.promptId)), "NOT_CANCELLABLE");
  assert.is(sentTo(w, "session/prompt").length, 1);
  w.controller.release();

  // A later controller opens the journal: the refusal is durable, terminal, and never resent.
  const again = admitController({ seatDir: dir });
  try {
    const r = again.journal.receipt(d.promptId);
    assert.is(r?.state, "rejected");
    assert.is(r?.rejection?.code, -32602);
    assert.is(r?.rejection?.detail, "unknown session id");
    assert.not.ok(again.journal.recovery.madeUncertain.includes(d.promptId));
    assert.is(again.journal.isKnownPromptId(d.promptId), true);
  } finally {
    again.release();
  }
  const w2 = world(dir, (a) => a.on("session/prompt", () => new Promise(() => {})));
  const seat2 = await attach(w2);
  assert.equal(await seat2.reconcile(), [], "a refused receipt is finished: nothing to reconcile");
  assert.is(await refusal(seat2.deliver("again", { promptId: d.promptId })), "PROMPT_ID_DUPLICATE");
  assert.is(sentTo(w2, "session/prompt").length, 0);
  w2.controller.release();
});

test("the leader's leader_starting (-32002) is a refusal with its data as the detail", async () => {
  const w = world(undefined, (a) =>
    a.on("session/prompt", () => {
      throw {
        code: -32002,
        message: "leader_starting",
        data: "Leader is still initializing (auth in progress). Retry shortly.",
      };
    }),
  );
  const seat = await attach(w);
  const d = await seat.deliver("too early");
  const done = await within(d.completed, "completed");
  assert.is(done.state, "rejected");
  assert.is(done.rejection?.code, -32002);
  assert.is(done.rejection?.message, "leader_starting");
  assert.is(
    done.rejection?.detail,
    "Leader is still initializing (auth in progress). Retry shortly.",
  );
  assert.is((await rejection(d.consumed)).code, "PROMPT_REJECTED");
  w.controller.release();
});

/** A memory pipe that holds the write of `session/prompt` until released (the agent reads it). */
class HeldPipe extends MemoryPipe {
  release: () => void = () => {};
  readonly #gate = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  override async sendAcp(payload: string): Promise<void> {
    await super.sendAcp(payload);
    if (payload.includes('"method":"session/prompt"')) await this.#gate;
  }
}

test("a refusal that arrives before the write signal: rejected, not uncertain (the answer proves the write)", async () => {
  const pipe = new HeldPipe();
  const w = world(
    undefined,
    (a) =>
      a.on("session/prompt", () => {
        throw UNKNOWN_SESSION;
      }),
    pipe,
  );
  const seat = await attach(w);
  try {
    // deliver resolves although our write has not returned yet: the agent's answer did.
    const d = await within(seat.deliver("answered before written"), "deliver");
    assert.is(d.receipt.state, "rejected");
    assert.ok(d.receipt.dispatchedAt !== null);
    assert.is(d.receipt.uncertainty, null);
    assert.is((await within(d.completed, "completed")).state, "rejected");
  } finally {
    pipe.release();
  }
  assert.is(sentTo(w, "session/prompt").length, 1);
  w.controller.release();
});

test("an error after consumption is a failed turn: completed with stop reason error, over the rpc-response", async () => {
  const w = world(undefined, (a) =>
    a.on("session/prompt", (params) => {
      const id = promptIdOf(params);
      a.notify("_x.ai/queue/changed", { sessionId: S, entries: [], runningPromptId: id });
      throw { code: -32603, message: "Internal error", data: { message: "model not found" } };
    }),
  );
  const seat = await attach(w);
  const d = await seat.deliver("a turn that fails");
  assert.ok((await within(d.consumed, "consumed")).consumption !== null);
  const done = await within(d.completed, "completed");
  assert.is(done.state, "completed");
  assert.is(done.rejection, null, "not a refusal: Grok took it");
  assert.is(done.result?.stopReason, "error");
  assert.is(done.result?.channel, "rpc-response");
  assert.is(done.result?.detail, "session/prompt error -32603: Internal error (model not found)");
  await until(() => (ofType(w.events, "rejected").length > 0 ? true : undefined), "rejected event");
  assert.is(ofType(w.events, "rejected")[0]?.receipt.state, "completed");
  assert.equal(
    ofType(w.events, "completed").map((e) => e.receipt.result?.stopReason),
    ["error"],
  );
  w.controller.release();
});

test("a rate limit after consumption is stop reason rate_limit; after prompt_complete it is a duplicate", async () => {
  const w = world(undefined, (a) =>
    a.on("session/prompt", (params) => {
      const id = promptIdOf(params);
      a.notify("_x.ai/queue/changed", { sessionId: S, entries: [], runningPromptId: id });
      if (id.endsWith("1")) throw { code: -32003, message: "Rate limited", data: "slow down" };
      // The real agent's order for a failed turn: prompt_complete(error), then the error.
      a.notify("_x.ai/session/prompt_complete", {
        sessionId: S,
        promptId: id,
        stopReason: "error",
        agentResult: "boom",
      });
      throw { code: -32603, message: "Internal error", data: "boom" };
    }),
  );
  const seat = await attach(w);
  const limited = await seat.deliver("limited", {
    promptId: "0198c0de-0000-4000-8000-000000000001",
  });
  const l = await within(limited.completed, "completed");
  assert.is(l.state, "completed");
  assert.is(l.result?.stopReason, "rate_limit");
  const failed = await seat.deliver("fails", { promptId: "0198c0de-0000-4000-8000-000000000002" });
  const f = await within(failed.completed, "completed");
  assert.is(f.result?.stopReason, "error");
  assert.is(f.result?.channel, "prompt-complete", "the notice came first; the error duplicated it");
  await until(
    () => (ofType(w.events, "rejected").length === 2 ? true : undefined),
    "both rejected events",
  );
  assert.equal(
    ofType(w.events, "completed").map((e) => [e.receipt.promptId, e.receipt.result?.stopReason]),
    [
      [limited.promptId, "rate_limit"],
      [failed.promptId, "error"],
    ],
  );
  w.controller.release();
});

test.run();
