// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * Replies and transcripts end to end against the `grok` simulator (issue 15): `delivery.reply`
 * carries what the simulated model answered — a text that depends on our prompt's content, so it
 * came from Grok and not from our own text — and the live `transcript` events, the paged
 * `x.ai/session/updates` and the TUI's own `updates.jsonl` tell the same story.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { AcpSessionEvent } from "../../lib/acp/acp-session.js";
import { readNativeTranscript } from "../../lib/grok/native-transcript.js";
import type { TranscriptEntry } from "../../lib/grok/transcript-entry.js";
import { TranscriptReconciler } from "../../lib/grok/transcript-reconcile.js";
import { ensureGrokSim, waitFor } from "../helpers/grok-sim.js";
import { within } from "./helpers.js";
import { refusal, withAttachedSeat } from "./sim-seat.js";

await ensureGrokSim();

/**
 * The simulated model's answer, computed here from the README's formula (test/sim/grok/README.md
 * "Prompt directives"): it depends on every code point of the prompt.
 */
function expectedReply(prompt: string): string {
  const text = prompt
    .replace(/\[\[sim:[^\]]*\]\]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const points = [...text];
  const shown = points.length > 80 ? `${points.slice(0, 77).join("")}...` : text;
  const words = text === "" ? 0 : text.split(" ").length;
  let h = 0;
  for (const p of points) h = (Math.imul(h, 31) + (p.codePointAt(0) ?? 0)) >>> 0;
  return `Simulated reply to "${shown}" (${words} words, digest ${h.toString(16).padStart(8, "0")}).`;
}

function transcript(events: readonly AcpSessionEvent[]): TranscriptEntry[] {
  return events.flatMap((e) => (e.type === "transcript" ? [e.entry] : []));
}

test("delivery.reply: two of ours and one of the owner's interleaved, each reply the model's answer to its own prompt, byte-exact across split multi-byte characters", async () => {
  await withAttachedSeat(async (sim, a) => {
    const first = "[[sim:chunks=40]] [[sim:thought]] Zähle die Äpfel 🍎🍏 und 👩‍👩‍👧 bitte";
    const d1 = await a.seat.deliver(first);
    // The owner types a prompt of their own between ours.
    await sim.tui.typeIntoTui("what is the owner asking");
    const second = "[[sim:tool=read]] name the three largest files";
    const d2 = await a.seat.deliver(second);
    const [r1, r2] = await within(Promise.all([d1.reply, d2.reply]), "both replies", 30_000);
    assert.ok(r1.text.startsWith(expectedReply(first)), r1.text);
    assert.ok(r2.text.startsWith(expectedReply(second)), r2.text);
    assert.is.not(r1.text, r2.text);
    assert.not.ok(r1.text.includes("owner"), "the owner's turn is not in our reply");
    assert.is(r1.stopReason, "end_turn");
    assert.ok(r1.thoughts.length > 0, "the thought chunks");
    assert.is(r1.truncated, false);
    assert.ok(r1.usage !== null && typeof r1.usage.outputTokens === "number", "usage");
    assert.equal(
      r2.toolCalls.map((t) => t.status),
      ["completed"],
    );
    // Byte-exact: the reply is the concatenation of this prompt's agent_message_chunks.
    const entries = transcript(a.events);
    const chunks = entries.filter(
      (e) => e.promptId === d1.promptId && e.kind === "agent_message_chunk",
    );
    assert.ok(chunks.length >= 20, `split into ${chunks.length} chunks`);
    const joined = chunks
      .map((e) => {
        const p = e.params as { update: { content: { text: string } } };
        return p.update.content.text;
      })
      .join("");
    assert.is(joined, r1.text);
    // The owner's turn is in the transcript (same session), with its own prompt id.
    const owner = entries.filter(
      (e) =>
        e.kind === "agent_message_chunk" &&
        e.promptId !== null &&
        e.promptId !== d1.promptId &&
        e.promptId !== d2.promptId,
    );
    assert.ok(owner.length > 0, "the owner's reply chunks are entries too");
    for (const e of entries) {
      assert.ok(e.receivedAt !== null && e.source === "live");
      const p = e.params as { sessionId: string };
      assert.is(p.sessionId, sim.tui.sessionId);
    }
  });
});

test("delivery.reply rejects PROMPT_CANCELLED with the partial text when the turn is cancelled", async () => {
  await withAttachedSeat(async (_sim, a) => {
    const d = await a.seat.deliver("[[sim:sleep=20000]] a long task");
    await within(d.consumed, "consumed", 10_000);
    await waitFor("the first reply chunk", () =>
      transcript(a.events).some(
        (e) => e.promptId === d.promptId && e.kind === "agent_message_chunk",
      ),
    );
    await a.seat.cancel(d.promptId);
    let partial: unknown = null;
    const code = await refusal(
      d.reply.catch((err: unknown) => {
        partial = (err as { context?: { partial?: unknown } }).context?.partial ?? null;
        throw err;
      }),
    );
    assert.is(code, "PROMPT_CANCELLED");
    const text = (partial as { text?: string } | null)?.text ?? "";
    assert.ok(expectedReply("a long task").startsWith(text) && text.length > 0, text);
  });
});

test("live entries, x.ai/session/updates pages and updates.jsonl agree; a merged stored chunk line stands for the live chunks it covers", async () => {
  await withAttachedSeat(async (sim, a) => {
    const d1 = await a.seat.deliver("[[sim:chunks=7]] first question about 日本語 text");
    await within(d1.reply, "reply 1", 30_000);
    const d2 = await a.seat.deliver("[[sim:chunks=5]] [[sim:todo]] second question");
    await within(d2.reply, "reply 2", 30_000);
    const live = transcript(a.events);
    // The whole stored transcript, page by page (a small limit forces several pages).
    const paged: TranscriptEntry[] = [];
    let since: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const page = await a.seat.transcript(
        since === undefined ? { limit: 4 } : { since, limit: 4 },
      );
      paged.push(...page.entries);
      if (!page.hasMore || page.entries.length === 0) break;
      since = page.entries.at(-1)?.eventId ?? undefined;
    }
    const ids = paged.map((e) => e.eventId).filter((x): x is string => x !== null);
    assert.equal(new Set(ids).size, ids.length, "no entry twice across pages");
    // The disk reader agrees with the paged API on the same session.
    await sim.tui.stop();
    const disk = readNativeTranscript({
      grokHome: sim.home.dir,
      cwd: sim.home.cwd,
      sessionId: sim.tui.sessionId,
      limit: 10_000,
    });
    const shape = (e: TranscriptEntry): unknown => [e.eventId, e.kind, e.method, e.params];
    const pagedOfOurs = paged.filter(
      (e) => e.promptId === d1.promptId || e.promptId === d2.promptId,
    );
    const diskOfOurs = disk.entries.filter(
      (e) => e.promptId === d1.promptId || e.promptId === d2.promptId,
    );
    assert.equal(diskOfOurs.map(shape), pagedOfOurs.map(shape));
    // Stored chunk lines are merged: fewer than live, same text.
    const text = (es: readonly TranscriptEntry[], id: string): string =>
      es
        .filter((e) => e.promptId === id && e.kind === "agent_message_chunk")
        .map((e) => (e.params as { update: { content: { text: string } } }).update.content.text)
        .join("");
    assert.is(text(diskOfOurs, d1.promptId), text(live, d1.promptId));
    const liveChunks = live.filter(
      (e) => e.promptId === d1.promptId && e.kind === "agent_message_chunk",
    );
    const storedChunks = diskOfOurs.filter(
      (e) => e.promptId === d1.promptId && e.kind === "agent_message_chunk",
    );
    assert.ok(storedChunks.length < liveChunks.length, "the store merged the chunks");
    // Reconcile: the live entries of prompt 1, then the stored page from the middle of its reply:
    // every character once.
    const cut = liveChunks[2]?.eventId ?? null;
    const cutAt = live.findIndex((e) => e.eventId === cut);
    const r = new TranscriptReconciler(sim.tui.sessionId);
    const out: TranscriptEntry[] = [];
    for (const e of live.slice(0, cutAt + 1)) {
      const w = r.push(e);
      if (w !== null) out.push(w);
    }
    for (const e of disk.entries) {
      const w = r.push(e);
      if (w !== null) out.push(w);
    }
    assert.is(text(out, d1.promptId), text(live, d1.promptId));
    assert.is(text(out, d2.promptId), text(live, d2.promptId));
  });
});

test.run();
