// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The read-only session extensions over a raw socket: `x.ai/session/updates`
 * (extensions/session_updates.rs: stored envelopes verbatim, paging, tail, turnIndex, stream
 * chunks, rewinds, the empty answer, serde errors) and `x.ai/session/info`
 * (agent/handlers/session.rs handle_session_info: `{"result":{}}` for anything not resident, the
 * full SessionInfoResponse for a resident session). The oracle for the records is the
 * session's own updates.jsonl, read from disk.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim, type GrokLeader, waitFor } from "../../../helpers/grok-sim.js";
import { acpClient, withSimLeader } from "../../../helpers/grok-sim-clients.js";
import { get, promptParams, type RawClient, record } from "./raw.js";

type Msg = Record<string, unknown>;

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

interface Ctx {
  leader: GrokLeader;
  home: string;
  cwd: string;
  log: string;
}

function withLeader(fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  return withSimLeader({ env: { GROK_SIM_CHUNK_DELAY_MS: "1" } }, ({ leader, home, log }) =>
    fn({ leader, home: home.dir, cwd: home.cwd, log }),
  );
}

const client = (leader: GrokLeader, name: string): Promise<RawClient> =>
  acpClient(leader.paths.socketPath, name);

async function newSession(c: RawClient, cwd: string): Promise<string> {
  const sid = randomUUID();
  await c.request("session/new", { cwd, mcpServers: [], _meta: { sessionId: sid } });
  return sid;
}

async function prompt(c: RawClient, sid: string, promptId: string, text: string): Promise<void> {
  await c.request("session/prompt", promptParams(sid, text, { promptId }), 20_000);
}

/** The one directory under sessions/ (the encoded cwd), found on disk rather than computed. */
function cwdDir(home: string): string {
  const dirs = readdirSync(join(home, "sessions"));
  assert.is(dirs.length, 1, `one cwd directory: ${dirs.join(", ")}`);
  return join(home, "sessions", dirs[0] ?? "");
}

function storedLines(home: string, sid: string): string[] {
  return readFileSync(join(cwdDir(home), sid, "updates.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
}

/** The raw payload text of the response with this id (what the leader put on the wire). */
function rawResponse(c: RawClient, id: number): string {
  for (const f of c.frames) {
    if (f.json.type !== "acp" || typeof f.json.payload !== "string") continue;
    const m: unknown = JSON.parse(f.json.payload);
    if (typeof m === "object" && m !== null && Reflect.get(m, "id") === id) return f.json.payload;
  }
  throw new Error(`no response ${id}`);
}

function eventIdOf(line: string): string {
  return String(get(JSON.parse(line), "params", "_meta", "eventId"));
}

function userStarts(lines: readonly string[]): number[] {
  const starts: number[] = [];
  let inUser = false;
  for (const [i, l] of lines.entries()) {
    const u = get(JSON.parse(l), "params", "update", "sessionUpdate") === "user_message_chunk";
    if (u && !inUser) starts.push(i);
    inUser = u;
  }
  return starts;
}

test.before(async () => {
  await ensureGrokSim();
});

test("x.ai/session/updates: stored envelopes verbatim in a raw answer, lastEventId and promptStarts", async () => {
  await withLeader(async ({ leader, home, cwd }) => {
    const c = await client(leader, "reader");
    const sid = await newSession(c, cwd);
    await prompt(c, sid, "P1", "first [[sim:tool=read]]");
    await prompt(c, sid, "P2", "second");
    const lines = storedLines(home, sid);
    const starts = userStarts(lines);
    assert.is(starts.length, 2);
    c.sendAcp({
      jsonrpc: "2.0",
      id: 501,
      method: "_x.ai/session/updates",
      params: { sessionId: sid, cwd },
    });
    await c.nextAcp((m) => m.id === 501);
    const last = lines[lines.length - 1] ?? "";
    // No ExtMethodResult envelope; every element is the stored line byte for byte.
    assert.is(
      rawResponse(c, 501),
      `{"jsonrpc":"2.0","id":501,"result":{"updates":[${lines.join(",")}],"totalCount":${lines.length},"hasMore":false,"lastEventId":${JSON.stringify(eventIdOf(last))},"promptStarts":[${starts.join(",")}]}}`,
    );
    // The turn_completed record is the last line: an xAI envelope.
    assert.is(get(JSON.parse(last), "method"), "_x.ai/session/update");
    assert.is(get(JSON.parse(last), "params", "update", "sessionUpdate"), "turn_completed");
    // The user echo carries ContentChunk _meta {modelId, promptIndex} (turn.rs).
    const second = JSON.parse(lines[starts[1] ?? 0] ?? "{}");
    assert.equal(get(second, "params", "update", "_meta"), {
      modelId: "grok-build",
      promptIndex: 1,
    });
    c.destroy();
  });
});

test("x.ai/session/updates: offset/limit, negative-offset tail, turnIndex, id fallback, empty answer", async () => {
  await withLeader(async ({ leader, home, cwd }) => {
    const c = await client(leader, "pager");
    const sid = await newSession(c, cwd);
    await prompt(c, sid, "P1", "one");
    await prompt(c, sid, "P2", "two");
    await prompt(c, sid, "P3", "three");
    const lines = storedLines(home, sid);
    const n = lines.length;
    const starts = userStarts(lines);
    const ask = async (params: Msg): Promise<Msg> => {
      const res = await c.request("_x.ai/session/updates", { sessionId: sid, cwd, ...params });
      assert.is(res.error, undefined, JSON.stringify(res.error));
      return record(res.result);
    };
    const parsed = lines.map((l) => JSON.parse(l));

    const page = await ask({ offset: 1, limit: 2 });
    assert.equal(page.updates, parsed.slice(1, 3));
    assert.equal([page.totalCount, page.hasMore, page.promptStarts], [n, true, starts]);
    assert.is(page.lastEventId, eventIdOf(lines[2] ?? ""));

    // Negative offset: the ring-buffer tail, which reports no prompt starts.
    const tail = await ask({ offset: -3 });
    assert.equal(tail.updates, parsed.slice(n - 3));
    assert.equal([tail.totalCount, tail.hasMore, tail.promptStarts], [n, false, []]);
    const tailPage = await ask({ offset: -3, limit: 1 });
    assert.equal(tailPage.updates, parsed.slice(n - 3, n - 2));
    assert.is(tailPage.hasMore, true);
    const beyond = await ask({ offset: -(n + 10) });
    assert.is(list(beyond.updates).length, n);

    // turnIndex: the last N user turns; hasMore says something lies before them.
    const lastTwo = await ask({ turnIndex: 2 });
    assert.equal(lastTwo.updates, parsed.slice(starts[1]));
    assert.equal([lastTwo.hasMore, lastTwo.promptStarts], [true, starts]);
    const all = await ask({ turnIndex: 10 });
    assert.equal([list(all.updates).length, all.hasMore], [n, false]);
    // An offset wins over turnIndex.
    const offsetWins = await ask({ turnIndex: 1, offset: 0 });
    assert.is(list(offsetWins.updates).length, n);
    // offset past the end: an empty page, nothing more.
    const past = await ask({ offset: n + 5 });
    assert.equal([past.updates, past.hasMore, past.lastEventId], [[], false, undefined]);

    // A cwd that does not hold the session: found by id under another cwd (subagents).
    const elsewhere = await ask({ cwd: "/no/such/dir" });
    assert.is(elsewhere.totalCount, n);

    // An unknown session: the fixed empty shape, raw.
    c.sendAcp({
      jsonrpc: "2.0",
      id: 601,
      method: "_x.ai/session/updates",
      params: { sessionId: randomUUID(), cwd },
    });
    c.sendAcp({
      jsonrpc: "2.0",
      id: 602,
      method: "_x.ai/session/updates",
      params: { sessionId: randomUUID(), cwd, stream: true },
    });
    await c.nextAcp((m) => m.id === 602);
    assert.is(
      rawResponse(c, 601),
      '{"jsonrpc":"2.0","id":601,"result":{"updates":[],"totalCount":0,"hasMore":false,"promptStarts":[]}}',
    );
    assert.is(
      rawResponse(c, 602),
      '{"jsonrpc":"2.0","id":602,"result":{"totalCount":0,"chunkCount":0,"promptStarts":[]}}',
    );
    c.destroy();
  });
});

test("x.ai/session/updates stream: chunk notifications before the answer, to the session's subscribers", async () => {
  await withLeader(async ({ leader, home, cwd }) => {
    const a = await client(leader, "streamer");
    const sid = await newSession(a, cwd);
    await prompt(a, sid, "P1", "stream me [[sim:chunks=4]]");
    const b = await client(leader, "watcher");
    await b.request("session/resume", { sessionId: sid, cwd, mcpServers: [] });
    const lines = storedLines(home, sid);
    const clientId = { instanceId: "inst-1", connId: "conn-2" };
    const res = await a.request("_x.ai/session/updates", {
      sessionId: sid,
      cwd,
      stream: true,
      chunkSize: 2,
      _meta: { clientId },
    });
    const chunkCount = Math.ceil(lines.length / 2);
    assert.equal(res.result, {
      totalCount: lines.length,
      chunkCount,
      lastEventId: eventIdOf(lines[lines.length - 1] ?? ""),
      promptStarts: userStarts(lines),
    });
    const isChunk = (m: Msg): boolean => m.method === "_x.ai/session/updates/chunk";
    const chunks = a.acp().filter(isChunk);
    assert.is(chunks.length, chunkCount);
    assert.equal(
      chunks.map((m) => [get(m, "params", "index"), get(m, "params", "done")]),
      Array.from({ length: chunkCount }, (_, i) => [i, i === chunkCount - 1]),
    );
    assert.equal(
      chunks.flatMap((m) => list(get(m, "params", "updates"))),
      lines.map((l) => JSON.parse(l)),
    );
    assert.ok(chunks.every((m) => get(m, "params", "sessionId") === sid));
    assert.ok(
      chunks.every(
        (m) =>
          JSON.stringify(get(m, "params", "_meta")) ===
          JSON.stringify({ targetClientId: clientId }),
      ),
    );
    // Fire-and-forget notifications leave before the response.
    const order = a.acp().filter((m) => isChunk(m) || m.id === res.id);
    assert.ok(order[order.length - 1]?.id === res.id, "the answer comes after the chunks");
    // The leader routes them by sessionId: every subscriber of the session gets them.
    await waitFor(
      "chunks at the other subscriber",
      () => b.acp().filter(isChunk).length === chunkCount,
    );
    a.destroy();
    b.destroy();
  });
});

test("x.ai/session/updates drops rewind dead branches (and the tail path gives way to the full read)", async () => {
  await withLeader(async ({ leader, home, cwd }) => {
    const c = await client(leader, "rewinder");
    await newSession(c, cwd); // creates the encoded-cwd directory
    const sid = randomUUID();
    const dir = join(cwdDir(home), sid);
    mkdirSync(dir);
    writeFileSync(join(dir, "summary.json"), JSON.stringify({ info: { id: sid, cwd } }));
    const user = (t: string): string =>
      JSON.stringify({
        timestamp: 1,
        method: "session/update",
        params: {
          sessionId: sid,
          update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: t } },
        },
      });
    const agent = (t: string): string =>
      JSON.stringify({
        timestamp: 1,
        method: "session/update",
        params: {
          sessionId: sid,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } },
        },
      });
    const rewind = JSON.stringify({
      timestamp: 1,
      method: "_x.ai/session/update",
      params: {
        sessionId: sid,
        update: { sessionUpdate: "rewind_marker", target_prompt_index: 1 },
      },
    });
    const stored = [
      user("p1"),
      agent("r1"),
      user("dead"),
      agent("dead-r"),
      rewind,
      user("p2"),
      agent("r2"),
    ];
    writeFileSync(join(dir, "updates.jsonl"), `${stored.join("\n")}\n`);
    const live = [stored[0], stored[1], stored[5], stored[6]].map((l) => JSON.parse(l ?? ""));
    const full = await c.request("_x.ai/session/updates", { sessionId: sid, cwd });
    assert.equal(full.result, {
      updates: live,
      totalCount: 4,
      hasMore: false,
      promptStarts: [0, 2],
    });
    const tail = await c.request("_x.ai/session/updates", { sessionId: sid, cwd, offset: -3 });
    assert.equal(tail.result, {
      updates: live.slice(1),
      totalCount: 4,
      hasMore: false,
      promptStarts: [0, 2],
    });
    const turns = await c.request("_x.ai/session/updates", { sessionId: sid, cwd, turnIndex: 1 });
    assert.equal(turns.result, {
      updates: live.slice(2),
      totalCount: 4,
      hasMore: true,
      promptStarts: [0, 2],
    });
    c.destroy();
  });
});

test("x.ai/session/updates: params that do not deserialize are invalid params with serde's text", async () => {
  await withLeader(async ({ leader, cwd }) => {
    const c = await client(leader, "bad");
    const noCwd = { sessionId: "s" };
    const missing = await c.request("_x.ai/session/updates", noCwd);
    assert.equal(missing.error, {
      code: -32602,
      message: "Invalid params",
      data: `missing field \`cwd\` at line 1 column ${JSON.stringify(noCwd).length}`,
    });
    const badOffset = { sessionId: "s", cwd, offset: "x" };
    const wrong = await c.request("_x.ai/session/updates", badOffset);
    assert.equal(wrong.error, {
      code: -32602,
      message: "Invalid params",
      data: `invalid type: string "x", expected i64 at line 1 column ${JSON.stringify(badOffset).length - 1}`,
    });
    const negLimit = await c.request("_x.ai/session/updates", { limit: -1, sessionId: "s", cwd });
    assert.is(
      get(negLimit, "error", "data"),
      "invalid value: integer `-1`, expected usize at line 1 column 11",
    );
    // An extension method nobody handles names itself (acp_agent.rs ext_method).
    const none = await c.request("_x.ai/session/nope", {});
    assert.equal(none.error, {
      code: -32601,
      message: "Method not found",
      data: "unknown ACP extension method: x.ai/session/nope",
    });
    c.destroy();
  });
});

test("x.ai/session/info: {} for anything not resident, the full SessionInfoResponse otherwise", async () => {
  await withLeader(async ({ leader, cwd }) => {
    const a = await client(leader, "prober");
    // Nothing resident: with or without an id, {"result":{}} and never an error.
    a.sendAcp({ jsonrpc: "2.0", id: 701, method: "_x.ai/session/info", params: {} });
    a.sendAcp({
      jsonrpc: "2.0",
      id: 702,
      method: "_x.ai/session/info",
      params: { sessionId: randomUUID() },
    });
    await a.nextAcp((m) => m.id === 702);
    assert.is(rawResponse(a, 701), '{"jsonrpc":"2.0","id":701,"result":{"result":{}}}');
    assert.is(rawResponse(a, 702), '{"jsonrpc":"2.0","id":702,"result":{"result":{}}}');

    const sid = await newSession(a, cwd);
    const fresh = await a.request("_x.ai/session/info", { sessionId: sid });
    const info = record(get(fresh, "result", "result"));
    assert.equal(Object.keys(info), [
      "sessionId",
      "cwd",
      "agentName",
      "model",
      "modelDisplayName",
      "resolvedModelId",
      "modelFingerprint",
      "showModelFingerprint",
      "apiBackend",
      "turns",
      "turnIndex",
      "context",
    ]);
    assert.equal(
      [info.sessionId, info.cwd, info.model, info.modelDisplayName, info.turns, info.turnIndex],
      [sid, cwd, "grok-build", "Grok Build", 0, 0],
    );
    assert.equal(Object.keys(record(info.context)), [
      "used",
      "total",
      "systemPromptTokens",
      "toolDefinitionsCount",
      "toolDefinitionsTokens",
      "compactionCount",
      "turnCount",
      "toolCallCount",
      "messageCount",
      "messageTokens",
      "freeTokens",
      "usagePct",
      "autoCompactThresholdPercent",
    ]);
    assert.is(get(info, "context", "total"), 256_000);
    assert.is(get(info, "context", "autoCompactThresholdPercent"), 85);
    // Without an id: the (first) resident session.
    const implicit = await a.request("_x.ai/session/info", {});
    assert.is(get(implicit, "result", "result", "sessionId"), sid);

    await prompt(a, sid, "P1", "count me [[sim:tool=read]]");
    const after = await a.request("_x.ai/session/info", { sessionId: sid });
    assert.equal(
      [
        get(after, "result", "result", "turns"),
        get(after, "result", "result", "turnIndex"),
        get(after, "result", "result", "context", "turnCount"),
        get(after, "result", "result", "context", "toolCallCount"),
      ],
      [1, 1, 1, 1],
    );
    const used = Number(get(after, "result", "result", "context", "used"));
    assert.ok(used > 0);
    assert.is(get(after, "result", "result", "context", "freeTokens"), 256_000 - used);

    // A session only on disk (its last subscriber left, so it was evicted): {} again. (Asking
    // about it earlier would have subscribed us to it: the leader subscribes a client to every
    // sessionId it names.)
    const b = await client(leader, "leaver");
    const gone = await newSession(b, cwd);
    b.destroy();
    await a.nextAcp(
      (m) =>
        m.method === "_x.ai/sessions/changed" &&
        list(get(m, "params", "upserted")).some(
          (e) => get(e, "sessionId") === gone && get(e, "resident") === false,
        ),
    );
    const evicted = await a.request("_x.ai/session/info", { sessionId: gone });
    assert.equal(evicted.result, { result: {} });
    // A sessionId that is not a string is the only error.
    const bad = await a.request("_x.ai/session/info", { sessionId: 5 });
    assert.equal(bad.error, {
      code: -32602,
      message: "Invalid params",
      data: "invalid params: invalid type: integer `5`, expected a string at line 1 column 14",
    });
    a.destroy();
  });
});

test.run();
