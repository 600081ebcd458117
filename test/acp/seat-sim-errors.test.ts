// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * Grok's JSON-RPC errors to our `session/prompt`, end to end against the `grok` simulator (a real
 * TUI in a tmux pane, its leader, our one leader connection, a real journal):
 * - a refusal: the session is no longer resident in the agent (another client closed it), so the
 *   agent answers -32602 `unknown session id` (`acp_agent.rs`, `prompt`). The receipt is
 *   `rejected` with that code, `completed` resolves with it, the frame log shows one prompt frame
 *   and the agent never accepted it, and a reopened journal still says `rejected`;
 * - a failed turn: `[[sim:error=...]]` runs and fails after the leader took the prompt
 *   (`prompt_complete{stopReason:"error"}`, then -32603): `completed`, stop reason `error`,
 *   never `rejected`.
 * The simulator's GROK_SIM_LOG frame log is the independent oracle for what left our client.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseAcpPayload } from "../../lib/acp/json-rpc.js";
import { admitController } from "../../lib/delivery/index.js";
import { GrokSeatError } from "../../lib/errors.js";
import { connectLeader } from "../../lib/leader/leader-connection.js";
import { ensureGrokSim } from "../helpers/grok-sim.js";
import { until, within } from "./helpers.js";
import { attachSeat, refusal, type Sim, withAttachedSeat, withSim } from "./sim-seat.js";

await ensureGrokSim();

/**
 * Another ACP client of the same leader closes the session in the agent (`session/close`,
 * `session_setup.rs` `close_session_inner`): the TUI's session is then not resident any more.
 */
async function closeSessionFromAnotherClient(sim: Sim): Promise<unknown> {
  const other = await connectLeader(sim.tui.paths.socketPath, { clientType: "another-client" });
  try {
    const messages = other.acpMessages();
    const call = async (id: number, method: string, params: unknown): Promise<unknown> => {
      await other.sendAcp(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      for (;;) {
        const next = await within(messages.next(), `${method} answer`, 10_000);
        if (next.done === true) throw new Error(`connection ended before the ${method} answer`);
        const m = parseAcpPayload(next.value);
        if (m instanceof GrokSeatError || m.kind !== "response" || m.id !== id) continue;
        if (!m.ok) throw new Error(`${method} failed: ${JSON.stringify(m.error)}`);
        return m.result;
      }
    };
    await call(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    return await call(2, "session/close", { sessionId: sim.tui.sessionId });
  } finally {
    await other.close();
  }
}

test("a prompt to a session the agent no longer has is rejected (-32602), sent once, durable", async () => {
  await withSim(async (sim, seatDir) => {
    const a = await attachSeat(sim, seatDir);
    let promptId = "";
    try {
      const closed = await closeSessionFromAnotherClient(sim);
      assert.equal(closed, { _meta: { "x.ai/closeOutcome": "closed" } });
      const d = await a.seat.deliver("a brief for a session that is gone");
      promptId = d.promptId;
      const done = await within(d.completed, "completed", 30_000);
      assert.is(done.state, "rejected");
      assert.is(done.rejection?.code, -32602);
      assert.is(done.rejection?.message, "Invalid params");
      assert.is(done.rejection?.detail, "unknown session id");
      assert.is(done.result, null);
      assert.is(await refusal(within(d.consumed, "consumed", 30_000)), "PROMPT_REJECTED");
      const ev = a.events.find((e) => e.type === "rejected");
      assert.is(ev?.type === "rejected" && ev.receipt.state, "rejected");
      assert.is(ev?.type === "rejected" && ev.error.code, "-32602");
      // Exactly one prompt frame left us, and the agent never accepted it.
      const prompts = sim
        .acpFrom()
        .filter((m) => m.kind === "request" && m.method === "session/prompt");
      assert.is(prompts.length, 1);
      const p0 = prompts[0];
      assert.is(p0?.kind === "request" && JSON.stringify(p0.params).includes(promptId), true);
      assert.is(sim.traced("prompt").filter((p) => p.promptId === promptId).length, 0);
    } finally {
      await a.close();
    }
    // A later controller reopens the journal: still rejected with the wire code, not uncertain.
    const again = admitController({ seatDir });
    try {
      const r = again.journal.receipt(promptId);
      assert.is(r?.state, "rejected");
      assert.is(r?.rejection?.code, -32602);
      assert.is(r?.rejection?.detail, "unknown session id");
      assert.not.ok(again.journal.recovery.madeUncertain.includes(promptId));
    } finally {
      again.release();
    }
    assert.is(
      sim.acpFrom().filter((m) => m.kind === "request" && m.method === "session/prompt").length,
      1,
      "nothing was resent",
    );
  });
});

test("a turn that fails after the leader took it is completed with stop reason error, not rejected", async () => {
  await withAttachedSeat(async (sim, a) => {
    const d = await a.seat.deliver("[[sim:error=model exploded]] a brief that fails");
    const consumed = await within(d.consumed, "consumed", 30_000);
    assert.ok(consumed.consumption !== null);
    const done = await within(d.completed, "completed", 30_000);
    assert.is(done.state, "completed");
    assert.is(done.result?.stopReason, "error");
    assert.is(done.rejection, null);
    // The JSON-RPC error (-32603) still arrives, as the `rejected` wire event, on the completed
    // receipt: Grok took the prompt, so it is a failed turn, not a refusal.
    const ev = await until(
      () => a.events.find((e) => e.type === "rejected"),
      "the rejected event",
      30_000,
    );
    assert.is(ev.type === "rejected" && ev.error.code, "-32603");
    assert.is(ev.type === "rejected" && ev.receipt.state, "completed");
    assert.is(a.seat.receipt(d.promptId)?.state, "completed");
    assert.is(sim.traced("prompt").filter((p) => p.promptId === d.promptId).length, 1);
    assert.is(
      sim.acpFrom().filter((m) => m.kind === "request" && m.method === "session/prompt").length,
      1,
    );
  });
});

test.run();
