// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * Attaching to a session and leaving it (docs/design/grok-leader-protocol.md §4, §7; fixtures 13 and 18):
 * persistence under $GROK_HOME/sessions, replay unicast to the loader with isReplay and
 * x.ai/leaderClientId, the cursor rule, noReplay/resume, live updates buffered during an
 * in-flight load and flushed after its response, the paused gateway of a replaying load,
 * disconnect mid-prompt and evict_sessions for a session nobody watches.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim, type GrokLeader, waitFor } from "../../../helpers/grok-sim.js";
import { withSimLeader } from "../../../helpers/grok-sim-clients.js";
import { get, promptParams, RawClient } from "./raw.js";

type Msg = Record<string, unknown>;

interface Ctx {
  leader: GrokLeader;
  home: string;
  cwd: string;
  log: string;
}

function withLeader(env: Record<string, string>, fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  return withSimLeader({ env }, ({ leader, home, log }) =>
    fn({ leader, home: home.dir, cwd: home.cwd, log }),
  );
}

async function client(leader: GrokLeader, name: string): Promise<{ c: RawClient; id: number }> {
  const c = await RawClient.open(leader.paths.socketPath);
  const reg = await c.register(name);
  await c.request("initialize", { protocolVersion: 1 });
  return { c, id: Number(reg.client_id) };
}

async function session(c: RawClient, cwd: string): Promise<string> {
  const sid = randomUUID();
  await c.request("session/new", { cwd, mcpServers: [], _meta: { sessionId: sid } });
  return sid;
}

const forSession =
  (sid: string) =>
  (m: Msg): boolean =>
    get(m, "params", "sessionId") === sid &&
    (m.method === "session/update" || m.method === "_x.ai/session/update");

test.before(async () => {
  await ensureGrokSim();
});

test("persistence: summary.json and updates.jsonl under sessions/<encoded cwd>/<id>/", async () => {
  await withLeader({}, async ({ leader, home, cwd }) => {
    const { c } = await client(leader, "a");
    const sid = await session(c, cwd);
    await c.request("session/prompt", promptParams(sid, "persist me", { promptId: "P1" }));
    const dir = join(
      home,
      "sessions",
      encodeURIComponent(cwd)
        .replaceAll("!", "%21")
        .replaceAll("'", "%27")
        .replaceAll("(", "%28")
        .replaceAll(")", "%29")
        .replaceAll("*", "%2A"),
      sid,
    );
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    assert.equal(summary.info, { id: sid, cwd });
    assert.is(summary.current_model_id, "grok-build");
    assert.ok(
      readFileSync(join(dir, "summary.json"), "utf8").includes('\n  "info": {'),
      "pretty-printed",
    );
    const lines = readFileSync(join(dir, "updates.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.ok(lines.every((l) => Object.keys(l).join(",") === "timestamp,method,params"));
    const last = lines[lines.length - 1];
    assert.is(last.method, "_x.ai/session/update");
    assert.equal(last.params.update, {
      sessionUpdate: "turn_completed",
      prompt_id: "P1",
      stop_reason: "end_turn",
      usage: last.params.update.usage,
    });
    assert.is(last.params.update.usage.modelCalls, 1);
    assert.is(lines[0].params.update.sessionUpdate, "user_message_chunk");
    c.destroy();
  });
});

test("load replays to the loader only, marked isReplay and x.ai/leaderClientId; turn_completed as _x.ai/session/update", async () => {
  await withLeader({}, async ({ leader, cwd }) => {
    const a = await client(leader, "a");
    const sid = await session(a.c, cwd);
    await a.c.request("session/prompt", promptParams(sid, "replay me", { promptId: "P1" }));
    const seenByA = a.c.acp().length;
    const b = await client(leader, "b");
    const res = await b.c.request("session/load", { sessionId: sid, cwd, mcpServers: [] });
    assert.is(get(res, "result", "_meta", "sessionId"), sid);
    assert.is(get(res, "result", "_meta", "x.ai/runningPromptId"), undefined);
    const replay = b.c.acp().filter(forSession(sid));
    assert.ok(replay.length >= 3, JSON.stringify(replay));
    for (const m of replay) {
      assert.is(get(m, "params", "_meta", "isReplay"), true);
      assert.is(get(m, "params", "_meta", "x.ai/leaderClientId"), b.id);
    }
    const tc = replay[replay.length - 1];
    assert.is(tc?.method, "_x.ai/session/update");
    assert.is(get(tc, "params", "update", "prompt_id"), "P1");
    const msgs = b.c.acp();
    assert.ok(
      msgs.findIndex((m) => m.id === res.id) > msgs.findIndex(forSession(sid)),
      "replay precedes the response",
    );
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(
      !a.c.acp().slice(seenByA).some(forSession(sid)),
      "the replay was not broadcast to the other subscriber",
    );

    // Cursor: only what follows the named event, not marked as replay.
    const cursor = String(get(replay[0], "params", "_meta", "eventId"));
    const c2 = await client(leader, "c");
    await c2.c.request("session/load", { sessionId: sid, cwd, mcpServers: [], _meta: { cursor } });
    const tail = c2.c.acp().filter(forSession(sid));
    assert.is(tail.length, replay.length - 1);
    assert.ok(tail.every((m) => get(m, "params", "_meta", "isReplay") === undefined));
    assert.ok(tail.every((m) => get(m, "params", "_meta", "x.ai/leaderClientId") === c2.id));

    // noReplay and resume: no replay at all.
    const d = await client(leader, "d");
    await d.c.request("session/load", {
      sessionId: sid,
      cwd,
      mcpServers: [],
      _meta: { noReplay: true },
    });
    await d.c.request("session/resume", { sessionId: sid, cwd, mcpServers: [] });
    assert.is(d.c.acp().filter(forSession(sid)).length, 0);
    for (const x of [a, b, c2, d]) x.c.destroy();
  });
});

test("live buffering: during an in-flight load live updates wait for the load response, then follow it", async () => {
  await withLeader(
    { GROK_SIM_LOAD_DELAY_MS: "700", GROK_SIM_CHUNK_DELAY_MS: "100" },
    async ({ leader, cwd }) => {
      const a = await client(leader, "a");
      const sid = await session(a.c, cwd);
      a.c.sendPrompt(50, sid, "[[sim:chunks=20]] stream a lot", { promptId: "P-live" });
      await a.c.nextAcp(
        (m) =>
          m.method === "session/update" &&
          get(m, "params", "update", "sessionUpdate") === "agent_message_chunk",
      );
      const b = await client(leader, "b");
      const res = await b.c.request("session/load", {
        sessionId: sid,
        cwd,
        mcpServers: [],
        _meta: { noReplay: true },
      });
      assert.is(get(res, "result", "_meta", "x.ai/runningPromptId"), "P-live");
      await a.c.nextAcp((m) => m.id === 50, 20_000);
      await b.c.nextAcp((m) => get(m, "params", "update", "sessionUpdate") === "turn_completed");
      const msgs = b.c.acp();
      const at = msgs.findIndex((m) => m.id === res.id);
      assert.ok(
        !msgs.slice(0, at).some(forSession(sid)),
        "no live update before the load response",
      );
      const after = msgs.slice(at + 1).filter((m) => m.method === "session/update");
      assert.ok(after.length > 3, "buffered live updates are flushed after the response");
      const seqs = after.map((m) =>
        Number(
          String(get(m, "params", "_meta", "eventId"))
            .split("-")
            .pop(),
        ),
      );
      assert.equal(
        [...seqs].sort((x, y) => x - y),
        seqs,
        "in order",
      );
      assert.is(new Set(seqs).size, seqs.length, "no duplicates");
      a.c.destroy();
      b.c.destroy();
    },
  );
});

test("a replaying load of a resident session pauses live broadcasts; the loader gets the gap as unicast", async () => {
  await withLeader(
    { GROK_SIM_LOAD_DELAY_MS: "600", GROK_SIM_CHUNK_DELAY_MS: "80" },
    async ({ leader, cwd }) => {
      const a = await client(leader, "a");
      const sid = await session(a.c, cwd);
      a.c.sendPrompt(60, sid, "[[sim:chunks=25]] long stream", { promptId: "P-gap" });
      await a.c.nextAcp(
        (m) => get(m, "params", "update", "sessionUpdate") === "agent_message_chunk",
      );
      const b = await client(leader, "b");
      await b.c.request("session/load", { sessionId: sid, cwd, mcpServers: [] });
      await a.c.nextAcp((m) => m.id === 60, 20_000);
      const seq = (m: Msg): number =>
        Number(
          String(get(m, "params", "_meta", "eventId"))
            .split("-")
            .pop(),
        );
      const aChunks = a.c
        .acp()
        .filter((m) => m.method === "session/update")
        .map(seq);
      const bChunks = b.c
        .acp()
        .filter((m) => m.method === "session/update")
        .map(seq);
      const missed = bChunks.filter((s) => !aChunks.includes(s));
      assert.ok(
        missed.length > 0,
        "the watching client missed the updates produced during the replay",
      );
      a.c.destroy();
      b.c.destroy();
    },
  );
});

test("disconnect mid-prompt: the turn continues, its response is dropped; the last subscriber leaving evicts", async () => {
  await withLeader({}, async ({ leader, cwd, log }) => {
    const a = await client(leader, "a");
    const sid = await session(a.c, cwd);
    const watcher = await client(leader, "w");
    await watcher.c.request("session/resume", { sessionId: sid, cwd, mcpServers: [] });
    a.c.sendPrompt(70, sid, "[[sim:sleep=500]] keep going", { promptId: "P-orphan" });
    await watcher.c.nextAcp(
      (m) => get(m, "params", "update", "sessionUpdate") === "agent_message_chunk",
    );
    a.c.destroy();
    const tc = await watcher.c.nextAcp(
      (m) => get(m, "params", "update", "sessionUpdate") === "turn_completed",
    );
    assert.is(get(tc, "params", "update", "prompt_id"), "P-orphan");
    assert.is(get(tc, "params", "update", "stop_reason"), "end_turn");
    // The watcher leaves too: nobody watches the idle session, the leader tells the agent.
    watcher.c.destroy();
    const evict = `{"jsonrpc":"2.0","method":"_x.ai/internal/evict_sessions","params":{"sessionIds":["${sid}"]}}`;
    await waitFor("evict_sessions at the agent", () =>
      readFileSync(log, "utf8").includes(JSON.stringify(evict)),
    );
    const again = await client(leader, "again");
    assert.ok(again.id > watcher.id, "a reconnect is a new client id");
    const res = await again.c.request(
      "session/prompt",
      promptParams(sid, "hi", { promptId: "P-after" }),
    );
    assert.equal(res.error, {
      code: -32602,
      message: "Invalid params",
      data: "unknown session id",
    });
    await again.c.request("session/load", {
      sessionId: sid,
      cwd,
      mcpServers: [],
      _meta: { noReplay: true },
    });
    const ok = await again.c.request(
      "session/prompt",
      promptParams(sid, "hi again", { promptId: "P-after2" }),
    );
    assert.is(get(ok, "result", "stopReason"), "end_turn");
    again.c.destroy();
  });
});

test.run();
