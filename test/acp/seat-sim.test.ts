// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * AcpSession end to end against the `grok` simulator: a real TUI in a tmux pane, its detached
 * leader, our one leader connection, a real journal. The simulator's frame log is the oracle for
 * what we sent; the TUI's own frames are told apart by `client_type` ("grok-shell" vs ours).
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { AcpSessionEvent } from "../../lib/acp/acp-session.js";
import type { GrokEvent } from "../../lib/acp/grok-extensions.js";
import { ensureGrokSim, waitFor } from "../helpers/grok-sim.js";
import { within } from "./helpers.js";
import {
  type Attached,
  attachSeat,
  methods,
  refusal,
  type Sim,
  withAttachedSeat,
  withSim,
} from "./sim-seat.js";

await ensureGrokSim();

function grokEvents(events: readonly AcpSessionEvent[]): GrokEvent[] {
  return events.flatMap((e) => (e.type === "grok" ? [e.event] : []));
}

/** The owner types `text` into the TUI; resolves with the prompt id of the turn it starts. */
async function ownerTurn(sim: Sim, a: Attached, text: string): Promise<string> {
  await sim.tui.typeIntoTui(text);
  return waitFor("the TUI's running turn", () => a.seat.runningPromptId ?? undefined);
}
test("exact attach to the TUI's session; an unknown id refuses; never session/new", async () => {
  await withSim(async (sim, seatDir) => {
    const unknown = randomUUID();
    assert.is(await refusal(attachSeat(sim, seatDir, { sessionId: unknown })), "SESSION_UNKNOWN");
    const a = await attachSeat(sim, seatDir);
    try {
      assert.is(a.seat.sessionId, sim.tui.sessionId);
      assert.is(a.seat.agentVersion, "1.0.48");
      const ours = sim.acpFrom();
      assert.equal(methods(ours), [
        "initialize",
        "_x.ai/session/info",
        "initialize",
        "_x.ai/session/info",
        "_x.ai/mcp/list",
        "session/resume",
      ]);
      const resume = ours.find((m) => m.kind === "request" && m.method === "session/resume");
      assert.equal(resume?.kind === "request" && resume.params, {
        sessionId: sim.tui.sessionId,
        cwd: sim.home.cwd,
        mcpServers: [],
        _meta: { yoloMode: false, autoMode: false },
      });
      // Nothing of ours ever named the unknown id beyond the residency probe, or created a session.
      assert.not.ok(methods(ours).includes("session/new"));
      assert.not.ok(methods(ours).includes("session/load"));
      // No process of the simulator runs `agent stdio` (the library never spawns one).
      for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
        let cmd = "";
        try {
          cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        } catch {
          continue;
        }
        assert.not.ok(/\0agent\0(stdio|headless)/.test(cmd), `pid ${pid} runs ${cmd}`);
      }
    } finally {
      await a.close();
    }
  });
});

test("a prompt's id appears in the queue, in updates and in all three result channels", async () => {
  await withAttachedSeat(async (sim, a) => {
    const d = await a.seat.deliver("[[sim:chunks=4]] summarise the repository");
    assert.is(d.receipt.state, "dispatched");
    const consumed = await within(d.consumed, "consumed", 30_000);
    assert.ok(consumed.consumption !== null);
    const done = await within(d.completed, "completed", 30_000);
    assert.is(done.state, "completed");
    assert.is(done.result?.stopReason, "end_turn");
    const g = grokEvents(a.events);
    assert.ok(
      g.some(
        (e) =>
          e.type === "queue_changed" &&
          (e.runningPromptId === d.promptId || e.entries.some((x) => x.id === d.promptId)),
      ),
      "queue",
    );
    assert.ok(
      g.some((e) => e.type === "session_update" && e.promptId === d.promptId),
      "session/update _meta.promptId",
    );
    await waitFor("all three result channels", () => {
      const channels = new Set(
        a.events.flatMap((e) =>
          e.type === "result-echo" && e.evidence.promptId === d.promptId
            ? [e.evidence.channel]
            : [],
        ),
      );
      return channels.size === 3 ? channels : undefined;
    });
    // Exactly one prompt frame, carrying our caller id and owner label.
    const prompts = sim
      .acpFrom()
      .filter((m) => m.kind === "request" && m.method === "session/prompt");
    assert.is(prompts.length, 1);
    const p0 = prompts[0];
    assert.equal(p0?.kind === "request" && p0.params, {
      sessionId: sim.tui.sessionId,
      prompt: [{ type: "text", text: "[[sim:chunks=4]] summarise the repository" }],
      _meta: { promptId: d.promptId, clientIdentifier: "grok-seat" },
    });
  });
});

test("queueing behind a turn the TUI started: consumed as a queue entry, then runs", async () => {
  await withAttachedSeat(async (sim, a) => {
    const tuiTurn = await ownerTurn(sim, a, "[[sim:sleep=1500]] owner's own task");
    const d = await a.seat.deliver("after the owner's task");
    const consumed = await within(d.consumed, "consumed", 30_000);
    assert.is(consumed.consumption?.kind, "queue-entry");
    const row = grokEvents(a.events).find(
      (e) => e.type === "queue_changed" && e.entries.some((x) => x.id === d.promptId),
    );
    assert.ok(row?.type === "queue_changed" && row.runningPromptId === tuiTurn);
    const entry =
      row?.type === "queue_changed" ? row.entries.find((x) => x.id === d.promptId) : undefined;
    assert.is(entry?.owner, "grok-seat");
    const done = await within(d.completed, "completed", 30_000);
    assert.is(done.state, "completed");
    // The owner's turn finished on its own (we never touched it).
    assert.ok(
      grokEvents(a.events).some(
        (e) => e.type === "turn_completed" && e.promptId === tuiTurn && e.stopReason === "end_turn",
      ),
    );
    assert.not.ok(methods(sim.acpFrom()).includes("session/cancel"));
  });
});

test("cancellation: a queued prompt by queue/remove, a running one by session/cancel; never the TUI's turn", async () => {
  await withAttachedSeat(async (sim, a) => {
    const tuiTurn = await ownerTurn(sim, a, "[[sim:sleep=2000]] owner's long task");
    const first = await a.seat.deliver("[[sim:sleep=30000]] a long brief");
    const second = await a.seat.deliver("a brief to withdraw");
    await within(first.consumed, "consumed", 30_000);
    await within(second.consumed, "consumed", 30_000);
    assert.is(await refusal(a.seat.cancel(tuiTurn)), "NOT_OURS");
    assert.is(await refusal(a.seat.cancel(randomUUID())), "NOT_OURS");
    const queued = await a.seat.cancel(second.promptId);
    assert.is(queued.state, "cancel-submitted");
    const removed = await within(second.completed, "completed", 30_000);
    assert.is(removed.state, "cancelled");
    const remove = sim
      .acpFrom()
      .find((m) => m.kind === "notification" && m.method === "_x.ai/queue/remove");
    assert.equal(remove?.kind === "notification" && remove.params, {
      sessionId: sim.tui.sessionId,
      id: second.promptId,
      expectedVersion: 0,
      owner: "grok-seat",
    });
    // The running turn is the owner's: our long brief is still queued, cancel goes by remove
    // only once it runs; wait until it is ours, then cancel the running turn.
    await waitFor("our brief running", () => a.seat.runningPromptId === first.promptId);
    assert.is(methods(sim.acpFrom()).filter((m) => m === "session/cancel").length, 0);
    const running = await a.seat.cancel(first.promptId);
    assert.is(running.state, "cancel-submitted");
    assert.is(a.seat.receipt(first.promptId)?.state, "cancel-submitted");
    const cancelled = await within(first.completed, "completed", 30_000);
    assert.is(cancelled.state, "cancelled");
    assert.is(methods(sim.acpFrom()).filter((m) => m === "session/cancel").length, 1);
    // The owner's turn ended normally.
    assert.ok(
      grokEvents(a.events).some(
        (e) => e.type === "turn_completed" && e.promptId === tuiTurn && e.stopReason === "end_turn",
      ),
    );
    assert.is(await refusal(a.seat.cancel(first.promptId)), "NOT_CANCELLABLE");
    const cancelledEvents = a.events.flatMap((e) =>
      e.type === "cancelled" ? [[e.receipt.promptId, e.requested]] : [],
    );
    assert.equal(cancelledEvents, [
      [second.promptId, true],
      [first.promptId, true],
    ]);
  });
});

test("combine_queued_prompts: a prompt merged into the queue front is cancelled without our asking", async () => {
  await withSim(async (sim, seatDir) => {
    // The session keeps the servers it was created with: `files` stays configured, or the list
    // would show it as a placeholder the catalog rule cannot trace (CATALOG_UNVERIFIABLE).
    sim.home.writeConfig(
      '[ui]\ncombine_queued_prompts = true\n\n[mcp_servers.docs]\nurl = "https://docs.example/mcp"\n\n[mcp_servers.files]\ncommand = "npx"\n',
    );
    const a = await attachSeat(sim, seatDir);
    try {
      await ownerTurn(sim, a, "[[sim:sleep=1500]] owner's task");
      const front = await a.seat.deliver("first brief");
      const merged = await a.seat.deliver("second brief");
      await within(front.consumed, "consumed", 30_000);
      await within(merged.consumed, "consumed", 30_000);
      const m = await within(merged.completed, "completed", 30_000);
      assert.is(m.state, "cancelled");
      const ev = a.events.find(
        (e) => e.type === "cancelled" && e.receipt.promptId === merged.promptId,
      );
      assert.is(ev?.type === "cancelled" && ev.requested, false);
      assert.is((await within(front.completed, "completed", 30_000)).state, "completed");
      assert.not.ok(methods(sim.acpFrom()).includes("_x.ai/queue/remove"));
    } finally {
      await a.close();
    }
  });
});

test("permission prompts and questions are answered by the owner in the TUI, never by us", async () => {
  await withSim(
    { env: { GROK_SIM_OWNER: "allow", GROK_SIM_OWNER_DELAY_MS: "400" } },
    async (sim, seatDir) => {
      const a = await attachSeat(sim, seatDir);
      try {
        const d = await a.seat.deliver("[[sim:permission]] [[sim:ask]] edit the config");
        const pending = await waitFor("owner action pending", () =>
          a.events.find((e) => e.type === "owner-action-pending"),
        );
        assert.is(pending.type === "owner-action-pending" && pending.action.kind, "permission");
        const done = await within(d.completed, "completed", 30_000);
        assert.is(done.state, "completed");
        const kinds = a.events.flatMap((e) =>
          e.type === "owner-action-pending" ? [e.action.kind] : [],
        );
        assert.ok(kinds.includes("permission") && kinds.includes("question"), kinds.join(","));
        assert.equal(a.seat.pendingOwnerActions(), []);
        assert.ok(a.events.some((e) => e.type === "owner-action-resolved"));
        // The owner answered in the TUI ...
        assert.ok(sim.traced("tui_answer").length >= 2);
        // ... and our client never sent a single response frame.
        assert.equal(
          sim.acpFrom().filter((m) => m.kind === "response"),
          [],
        );
      } finally {
        await a.close();
      }
    },
  );
});

test("model and effort: the echo confirms both; unknown options refuse before anything is sent", async () => {
  await withAttachedSeat(async (sim, a) => {
    assert.equal(await a.seat.selectModel({ modelId: "grok-4.5", effort: "xhigh" }), {
      modelId: "grok-4.5",
      reasoningEffort: "xhigh",
    });
    assert.is(await refusal(a.seat.selectModel({ modelId: "grok-9000" })), "MODEL_UNKNOWN");
    assert.is(
      await refusal(a.seat.selectModel({ modelId: "grok-build", effort: "xhigh" })),
      "EFFORT_UNKNOWN",
    );
    assert.is(
      await refusal(a.seat.selectModel({ modelId: "grok-code-fast-1", effort: "low" })),
      "EFFORT_UNKNOWN",
    );
    const sent = sim
      .acpFrom()
      .filter((m) => m.kind === "request" && m.method === "session/set_model");
    assert.equal(
      sent.map((m) => m.kind === "request" && m.params),
      [
        {
          sessionId: sim.tui.sessionId,
          modelId: "grok-4.5",
          _meta: { reasoningEffort: "xhigh" },
        },
      ],
    );
    assert.ok(a.events.some((e) => e.type === "model-changed" && e.echo.modelId === "grok-4.5"));
  });
});

test("an enabled direct mcp.linear.app endpoint refuses readiness before attaching", async () => {
  const linear = [
    { name: "linear", url: "https://mcp.linear.app/mcp", tools: ["list_issues"] },
    { name: "docs", url: "https://docs.example/mcp" },
  ];
  await withSim({ mcpServers: linear }, async (sim, seatDir) => {
    let caught: unknown = null;
    await attachSeat(sim, seatDir).catch((e: unknown) => {
      caught = e;
    });
    assert.is(caught instanceof Error && "code" in caught && caught.code, "LINEAR_DIRECT_ENABLED");
    const details = caught instanceof Error && "context" in caught ? caught.context : null;
    assert.equal(
      details !== null &&
        typeof details === "object" &&
        "offending" in details &&
        details.offending,
      ["linear"],
    );
    assert.not.ok(methods(sim.acpFrom()).includes("session/resume"));
  });
  const lookalike = [
    { name: "linear-off", url: "https://mcp.linear.app/mcp", enabled: false },
    { name: "lookalike", url: "https://evil-mcp.linear.app.example/mcp" },
  ];
  await withAttachedSeat({ mcpServers: lookalike }, async (_sim, a) => {
    assert.is(a.seat.catalog.ok, true);
  });
});

test("connection dropped after the prompt was read: uncertain, never resent, reconciled later", async () => {
  await withSim({ env: { GROK_SIM_DROP_AFTER_PROMPT: "1" } }, async (sim, seatDir) => {
    const a = await attachSeat(sim, seatDir);
    const d = await a.seat.deliver("a brief across the gap");
    assert.is(await refusal(within(d.consumed, "consumed", 30_000)), "DELIVERY_UNCERTAIN");
    assert.is(a.seat.receipt(d.promptId)?.state, "uncertain");
    assert.is(await refusal(a.seat.deliver("not after the drop")), "CONNECTION_CLOSED");
    await a.close();
    // The turn still ran: the agent's durable record gets its turn_completed.
    await waitFor("turn_completed in updates.jsonl", () =>
      sim.updatesJsonl().includes(`"prompt_id":"${d.promptId}"`),
    );
    // A later controller reads our durable journal: still uncertain, never resent.
    const b = await attachSeat(sim, seatDir);
    try {
      assert.is(b.seat.receipt(d.promptId)?.state, "uncertain");
      const changed = await b.seat.reconcile({ via: "replay" });
      const r = changed.find((x) => x.promptId === d.promptId);
      assert.is(r?.state, "completed");
      assert.ok(r?.consumption?.reconciled === true || r?.result?.reconciled === true);
      assert.is(b.controller.journal.receipt(d.promptId)?.state, "completed");
      const prompts = [...sim.acpFrom()].filter(
        (m) => m.kind === "request" && m.method === "session/prompt",
      );
      assert.is(prompts.length, 1);
      assert.is(sim.traced("prompt").filter((p) => p.promptId === d.promptId).length, 1);
    } finally {
      await b.close();
    }
  });
});

test.run();
