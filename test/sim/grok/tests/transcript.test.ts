// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * What a session says, live and on disk (issue 15's simulator side): send_update `_meta`
 * (promptId, eventId `{sessionId}-{n}`) and the user echo's build_notification_meta without a
 * promptId (session/acp_session_impl/updates.rs, turn.rs); the update kinds a turn can carry;
 * message text split between code points only, multi-byte characters intact in the JSON bytes,
 * a reply that depends on the prompt; `_x.ai/session/updates` paging with no side effect; and
 * updates.jsonl with consecutive chunks merged into the last chunk's eventId and a tail that lags
 * by one ACP update until the turn-end flush (session/persistence.rs maybe_merge_notification,
 * turn.rs flush_to_disk), plus the legacy envelope-less line shape (session/storage/mod.rs).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim, type GrokLeader, waitFor } from "../../../helpers/grok-sim.js";
import { acpClient, encodeCwd, withSimLeader } from "../../../helpers/grok-sim-clients.js";
import { get, promptParams, type RawClient, record } from "./raw.js";

type Msg = Record<string, unknown>;

interface Ctx {
  leader: GrokLeader;
  home: string;
  cwd: string;
  c: RawClient;
  sid: string;
}

async function withSession(env: Record<string, string>, fn: (ctx: Ctx) => Promise<void>) {
  await withSimLeader({ env, home: { mcpServers: [] } }, async ({ leader, home }) => {
    const c = await acpClient(leader.paths.socketPath, "transcript-test");
    try {
      const sid = randomUUID();
      await c.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: sid } });
      await fn({ leader, home: home.dir, cwd: home.cwd, c, sid });
    } finally {
      c.destroy();
    }
  });
}

function updatesFile(ctx: Ctx): string {
  return join(ctx.home, "sessions", encodeCwd(ctx.cwd), ctx.sid, "updates.jsonl");
}

function diskLines(ctx: Ctx): Msg[] {
  let text = "";
  try {
    text = readFileSync(updatesFile(ctx), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => record(JSON.parse(l)));
}

async function prompt(ctx: Ctx, id: number, promptId: string, text: string): Promise<Msg> {
  return ctx.c.request("session/prompt", promptParams(ctx.sid, text, { promptId }), 30_000, id);
}

const kind = (m: unknown): unknown => get(m, "params", "update", "sessionUpdate");
const seq = (eventId: unknown): number => Number(String(eventId).split("-").pop());

/** The simulated model's reply formula (test/sim/grok/README.md "Prompt directives"). */
function expectedReply(text: string): string {
  const chars = [...text];
  const words = text === "" ? 0 : text.split(" ").length;
  let h = 0;
  for (const ch of chars) h = (h * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  const quoted = chars.length > 80 ? `${chars.slice(0, 77).join("")}...` : text;
  return `Simulated reply to "${quoted}" (${words} words, digest ${h.toString(16).padStart(8, "0")}).`;
}

test.before(async () => {
  await ensureGrokSim();
});

test("send_update carries promptId and {sessionId}-{n} eventIds; the user echo has eventId only; every kind a turn can carry", async () => {
  await withSession({}, async (ctx) => {
    const { c, sid } = ctx;
    await c.request("session/set_mode", { sessionId: sid, modeId: "plan" });
    const res = await prompt(
      ctx,
      1,
      "P-kinds",
      "[[sim:thought]] [[sim:todo]] [[sim:tool=read]] [[sim:title=Kinds tour]] show kinds",
    );
    assert.is(get(res, "result", "stopReason"), "end_turn");
    const msgs = c.acp().filter((m) => get(m, "params", "sessionId") === sid);
    const updates = msgs.filter((m) => m.method === "session/update");
    const kinds = updates.map(kind);
    for (const k of [
      "current_mode_update",
      "user_message_chunk",
      "agent_thought_chunk",
      "plan",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
      "session_info_update",
    ])
      assert.ok(kinds.includes(k), `${k} in ${JSON.stringify(kinds)}`);
    const mode = updates.find((m) => kind(m) === "current_mode_update");
    assert.equal(Object.keys(record(get(mode, "params", "_meta"))), [
      "eventId",
      "agentTimestampMs",
    ]);
    const echo = updates.find((m) => kind(m) === "user_message_chunk");
    assert.equal(Object.keys(record(get(echo, "params", "_meta"))), [
      "eventId",
      "agentTimestampMs",
    ]);
    assert.equal(get(echo, "params", "update", "_meta"), { modelId: "grok-build", promptIndex: 0 });
    let last = -1;
    for (const u of updates) {
      const k = kind(u);
      if (k === "session_info_update") {
        // summary.rs session_info_update: broadcast only, no `_meta`.
        assert.is(get(u, "params", "_meta"), undefined);
        assert.is(get(u, "params", "update", "title"), "Kinds tour");
        continue;
      }
      const eventId = String(get(u, "params", "_meta", "eventId"));
      assert.ok(eventId.startsWith(`${sid}-`), eventId);
      assert.ok(seq(eventId) > last, "eventIds increase");
      last = seq(eventId);
      const promptId = get(u, "params", "_meta", "promptId");
      if (k === "current_mode_update" || k === "user_message_chunk")
        assert.is(promptId, undefined, `${String(k)} outside send_update's prompt scope`);
      else assert.is(promptId, "P-kinds", String(k));
    }
    assert.equal(
      get(
        updates.find((m) => kind(m) === "plan"),
        "params",
        "_meta",
        "updateParams",
      ),
      {
        planSteps: 2,
      },
    );
    const title = msgs.find(
      (m) => get(m, "params", "update", "sessionUpdate") === "session_summary_generated",
    );
    assert.equal(title?.params, {
      sessionId: sid,
      update: { sessionUpdate: "session_summary_generated", session_summary: "Kinds tour" },
    });
    const tc = msgs.find((m) => kind(m) === "turn_completed");
    assert.is(tc?.method, "_x.ai/session_notification");
    const usage = get(tc, "params", "update", "usage");
    assert.equal(Object.keys(record(usage)), [
      "inputTokens",
      "outputTokens",
      "totalTokens",
      "cachedReadTokens",
      "cacheCreationTokens",
      "reasoningTokens",
      "modelCalls",
      "apiDurationMs",
      "modelUsage",
      "numTurns",
    ]);
    assert.ok(Number(get(usage, "reasoningTokens")) > 0, "the thought counts as reasoning");
    assert.ok(seq(get(tc, "params", "_meta", "eventId")) > last, "turn_completed comes last");
  });
});

test("chunks split between code points only: emoji, ZWJ sequences and CJK arrive as valid UTF-8, and the reply depends on the prompt", async () => {
  await withSession({}, async (ctx) => {
    const text = "héllo 👍🏽 👨‍👩‍👧 漢字 🇫🇷 ok";
    const from = ctx.c.frames.length;
    await prompt(ctx, 2, "P-utf8", `[[sim:chunks=2000]] ${text}`);
    const frames = ctx.c.frames.slice(from);
    for (const f of frames) {
      assert.ok(!/\\ud[89a-f]/i.test(f.text), `no surrogate escape in ${f.text.slice(0, 120)}`);
      assert.is(Buffer.from(f.text, "utf8").compare(f.raw), 0, "the frame is valid UTF-8");
    }
    const chunks = ctx.c
      .acp()
      .filter(
        (m) =>
          kind(m) === "agent_message_chunk" && get(m, "params", "_meta", "promptId") === "P-utf8",
      )
      .map((m) => String(get(m, "params", "update", "content", "text")));
    const reply = chunks.join("");
    assert.is(reply, expectedReply(text));
    assert.ok(
      chunks.every((c) => [...c].length === 1),
      "one code point per chunk here",
    );
    // Splits inside grapheme clusters are what the real agent can produce: a skin tone and a ZWJ
    // arrive as chunks of their own, yet no character is ever cut.
    assert.ok(chunks.includes("🏽"));
    assert.ok(chunks.includes("\u200d"));
    assert.ok(chunks.includes("漢"));
    // Another prompt, another answer: the reply is derived from what was asked.
    await prompt(ctx, 3, "P-other", "something else entirely");
    const other = ctx.c
      .acp()
      .filter(
        (m) =>
          kind(m) === "agent_message_chunk" && get(m, "params", "_meta", "promptId") === "P-other",
      )
      .map((m) => String(get(m, "params", "update", "content", "text")))
      .join("");
    assert.is(other, expectedReply("something else entirely"));
    assert.is.not(other, reply);
  });
});

test("updates.jsonl: consecutive chunks merge into the last chunk's eventId; the tail lags until the turn-end flush", async () => {
  await withSession({ GROK_SIM_CHUNK_DELAY_MS: "5" }, async (ctx) => {
    const { c } = ctx;
    c.sendPrompt(4, ctx.sid, "[[sim:chunks=4]] [[sim:sleep=1500]] lagging tail", {
      promptId: "P-lag",
    });
    await c.nextAcp((m) => kind(m) === "agent_message_chunk");
    // The first chunk is live; on disk it is still the merge buffer's pending line, and the user
    // echo was written when that chunk displaced it.
    const during = diskLines(ctx);
    assert.equal(
      during.map((l) => get(l, "params", "update", "sessionUpdate")),
      ["user_message_chunk"],
    );
    await c.nextAcp((m) => m.id === 4, 20_000);
    const live = c
      .acp()
      .filter(
        (m) =>
          kind(m) === "agent_message_chunk" && get(m, "params", "_meta", "promptId") === "P-lag",
      );
    assert.is(live.length, 4);
    const lines = diskLines(ctx);
    const kinds = lines.map((l) => get(l, "params", "update", "sessionUpdate"));
    assert.equal(kinds, ["user_message_chunk", "agent_message_chunk", "turn_completed"]);
    const merged = lines[1];
    assert.is(
      get(merged, "params", "update", "content", "text"),
      live.map((m) => get(m, "params", "update", "content", "text")).join(""),
    );
    const lastLive = live[live.length - 1];
    assert.equal(get(merged, "params", "_meta"), get(lastLive, "params", "_meta"));
    assert.is(get(merged, "params", "_meta", "chunkId"), 3);
  });
});

test("_x.ai/session/updates pages the stored lines (offset, limit, hasMore) without touching the session", async () => {
  await withSession({}, async (ctx) => {
    const { c, sid, cwd } = ctx;
    await prompt(ctx, 5, "P-a", "first question");
    await prompt(ctx, 6, "P-b", "second question");
    const before = readFileSync(updatesFile(ctx), "utf8");
    const stored = diskLines(ctx);
    assert.is(stored.length, 6, "echo, merged reply, turn_completed per prompt");
    const from = c.acp().length;
    const page = await c.request("_x.ai/session/updates", {
      sessionId: sid,
      cwd,
      offset: 1,
      limit: 2,
    });
    assert.equal(get(page, "result", "updates"), stored.slice(1, 3));
    assert.is(get(page, "result", "totalCount"), 6);
    assert.is(get(page, "result", "hasMore"), true);
    assert.is(get(page, "result", "lastEventId"), get(stored[2], "params", "_meta", "eventId"));
    const rest = await c.request("_x.ai/session/updates", { sessionId: sid, cwd, offset: 3 });
    assert.equal(get(rest, "result", "updates"), stored.slice(3));
    assert.is(get(rest, "result", "hasMore"), false);
    assert.is(readFileSync(updatesFile(ctx), "utf8"), before, "reading wrote nothing");
    const pushed = c
      .acp()
      .slice(from)
      .filter((m) => m.method !== undefined);
    assert.equal(pushed, [], "no replay, no notification");
  });
});

test("the legacy line shape (no envelope) is written by GROK_SIM_LEGACY_UPDATES=1, paged verbatim and replayed", async () => {
  await withSession({ GROK_SIM_LEGACY_UPDATES: "1" }, async (ctx) => {
    const { c, sid, cwd } = ctx;
    await prompt(ctx, 7, "P-old", "old format");
    const lines = diskLines(ctx);
    assert.is(lines.length, 3);
    for (const l of lines.slice(0, 2))
      assert.equal(Object.keys(l).slice(0, 2), ["sessionId", "update"]);
    assert.is(lines[2]?.method, "_x.ai/session/update", "xAI lines keep the envelope");
    const page = await c.request("_x.ai/session/updates", { sessionId: sid, cwd });
    assert.equal(get(page, "result", "updates"), lines);
    const b = await acpClient(ctx.leader.paths.socketPath, "reloader");
    try {
      await b.request("session/load", { sessionId: sid, cwd, mcpServers: [] });
      const replayed = await waitFor("the replay", () => {
        const got = b.acp().filter((m) => get(m, "params", "_meta", "isReplay") === true);
        return got.length >= 3 ? got : undefined;
      });
      assert.equal(replayed.map(kind), [
        "user_message_chunk",
        "agent_message_chunk",
        "turn_completed",
      ]);
      assert.equal(
        replayed.map((m) => m.method),
        ["session/update", "session/update", "_x.ai/session/update"],
      );
    } finally {
      b.destroy();
    }
  });
});

test.run();
