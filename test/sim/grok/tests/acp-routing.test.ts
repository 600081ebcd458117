// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * ACP over the leader (docs/design/grok-leader-protocol.md §4, §7, §9, §12; fixtures 8, 9, 11, 12, 16, 20):
 * request-id namespacing as the agent sees it (GROK_SIM_LOG records every line the agent read),
 * `_meta` injection, the initialize response, fan-out to two subscribers, shared interaction
 * requests (first answer wins, replay to late joiners), driver-only reverse requests,
 * machine-wide broadcasts, and the unknown-session error.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim, type GrokLeader, waitFor } from "../../../helpers/grok-sim.js";
import { withSimLeader } from "../../../helpers/grok-sim-clients.js";
import { get, promptParams, RawClient, upsertsSession } from "./raw.js";

interface Ctx {
  leader: GrokLeader;
  cwd: string;
  log: string;
}

function withLeader(env: Record<string, string>, fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  return withSimLeader({ env }, ({ leader, home, log }) => fn({ leader, cwd: home.cwd, log }));
}

function agentLines(log: string): string[] {
  let text = "";
  try {
    text = readFileSync(log, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === "agent_in")
    .map((e) => String(e.line));
}

async function newSession(c: RawClient, cwd: string, sessionId = randomUUID()): Promise<string> {
  await c.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const res = await c.request("session/new", { cwd, mcpServers: [], _meta: { sessionId } });
  assert.is(get(res, "result", "sessionId"), sessionId, JSON.stringify(res));
  return sessionId;
}

/** A client opened on the leader and registered under `name`. */
async function joined(leader: GrokLeader, name: string): Promise<RawClient> {
  const c = await RawClient.open(leader.paths.socketPath);
  await c.register(name);
  return c;
}

/** A registered client, initialized and subscribed to `sessionId` by session/resume. */
async function resumed(
  leader: GrokLeader,
  name: string,
  sessionId: string,
  cwd: string,
): Promise<RawClient> {
  const c = await joined(leader, name);
  await c.request("initialize", { protocolVersion: 1 });
  await c.request("session/resume", { sessionId, cwd, mcpServers: [] });
  return c;
}

/** Client `a` creates a session and client `b` resumes it: both are its subscribers. */
async function twoSubscribers(
  leader: GrokLeader,
  cwd: string,
): Promise<{ a: RawClient; b: RawClient; sid: string }> {
  const a = await joined(leader, "a");
  const sid = await newSession(a, cwd);
  const b = await resumed(leader, "b", sid, cwd);
  return { a, b, sid };
}

/** Initialize, then session/load without the history replay; the load's response. */
async function loadNoReplay(c: RawClient, sessionId: string, cwd: string) {
  await c.request("initialize", { protocolVersion: 1 });
  return c.request("session/load", { sessionId, cwd, mcpServers: [], _meta: { noReplay: true } });
}

/** A session/prompt request frame with a promptId. */
function promptFrame(id: number, sessionId: string, text: string, promptId: string) {
  return {
    jsonrpc: "2.0",
    id,
    method: "session/prompt",
    params: promptParams(sessionId, text, { promptId }),
  };
}

test.before(async () => {
  await ensureGrokSim();
});

test('id namespacing: the agent sees "<client>|<json id>", responses come back with the original id and type', async () => {
  await withLeader({}, async ({ leader, log }) => {
    const c = await RawClient.open(leader.paths.socketPath);
    const reg = await c.register("my-lib");
    const cid = Number(reg.client_id);
    const num = await c.request("initialize", { protocolVersion: 1 }, 10_000, 1);
    assert.is(num.id, 1);
    const s = await c.request("_x.ai/models/list", {}, 10_000, "abc");
    assert.is(s.id, "abc");
    const lines = await waitFor("agent lines", () => {
      const l = agentLines(log);
      return l.length >= 2 ? l : undefined;
    });
    assert.ok(
      lines[0]?.startsWith(`{"jsonrpc":"2.0","id":"${cid}|1","method":"initialize"`),
      lines[0],
    );
    assert.ok(lines[1]?.includes(`"id":"${cid}|\\"abc\\""`), lines[1]);
    // A notification passes byte-for-byte, with no id added.
    const raw = '{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}';
    c.send({ type: "acp", payload: raw });
    await waitFor("cancel at agent", () => agentLines(log).includes(raw));
    c.destroy();
  });
});

test("injection: initialize gains clientIdentifier; session/new gains the client context, existing keys kept", async () => {
  await withLeader({}, async ({ leader, cwd, log }) => {
    const c = await RawClient.open(leader.paths.socketPath);
    const reg = await c.register("my-lib", {
      yolo_mode: true,
      default_model: "grok-4.5",
      terminal: true,
      status_line: true,
    });
    const cid = Number(reg.client_id);
    await c.request("initialize", { protocolVersion: 1, _meta: { keep: 1 } }, 10_000, 1);
    const sid = randomUUID();
    await c.request(
      "session/new",
      { cwd, mcpServers: [], _meta: { sessionId: sid, clientIdentifier: "mine" } },
      10_000,
      2,
    );
    const lines = agentLines(log);
    assert.is(
      lines[0],
      `{"jsonrpc":"2.0","id":"${cid}|1","method":"initialize","params":{"protocolVersion":1,"_meta":{"keep":1,"clientIdentifier":"my-lib"}}}`,
    );
    assert.is(
      lines[1],
      `{"jsonrpc":"2.0","id":"${cid}|2","method":"session/new","params":{"cwd":${JSON.stringify(cwd)},"mcpServers":[],"_meta":{"sessionId":"${sid}","clientIdentifier":"mine","yoloMode":true,"modelId":"grok-4.5","x.ai/leaderClientId":${cid},"codeNavEnabled":false,"clientTerminal":true,"clientFsRead":false,"clientFsWrite":false,"clientStatusLine":true}}}`,
    );
    c.destroy();
  });
});

test("initialize response: protocol 1, no agentInfo, loadSession, agentVersion, launch cwd, modelState", async () => {
  await withLeader({ GROK_SIM_AGENT_VERSION: "1.0.47" }, async ({ leader, cwd }) => {
    const c = await RawClient.open(leader.paths.socketPath);
    await c.register();
    const res = await c.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const r = res.result;
    assert.is(get(r, "protocolVersion"), 1);
    assert.is(get(r, "agentInfo"), undefined);
    assert.is(get(r, "agentCapabilities", "loadSession"), true);
    assert.equal(get(r, "agentCapabilities", "sessionCapabilities"), {
      close: {},
      list: {},
      resume: {},
    });
    assert.is(get(r, "_meta", "agentVersion"), "1.0.47");
    assert.is(get(r, "_meta", "currentWorkingDirectory"), cwd);
    assert.is(get(r, "_meta", "modelState", "currentModelId"), "grok-build");
    assert.ok(Array.isArray(get(r, "_meta", "modelState", "availableModels")));
    assert.equal(Object.keys(r as object), [
      "protocolVersion",
      "agentCapabilities",
      "authMethods",
      "_meta",
    ]);
    c.destroy();
  });
});

test('unknown session: session/prompt is invalid params with data "unknown session id"; bad UUID refused', async () => {
  await withLeader({}, async ({ leader, cwd }) => {
    const c = await RawClient.open(leader.paths.socketPath);
    await c.register();
    await c.request("initialize", { protocolVersion: 1 });
    const res = await c.request("session/prompt", promptParams(randomUUID(), "hi"));
    assert.equal(res.error, {
      code: -32602,
      message: "Invalid params",
      data: "unknown session id",
    });
    const bad = await c.request("session/new", {
      cwd,
      mcpServers: [],
      _meta: { sessionId: "not-a-uuid" },
    });
    assert.is(get(bad, "error", "code"), -32602);
    assert.match(
      String(get(bad, "error", "data")),
      /^Invalid UUID format for _meta.sessionId 'not-a-uuid'/,
    );
    const load = await c.request("session/load", { sessionId: randomUUID(), cwd, mcpServers: [] });
    assert.equal(load.error, {
      code: -32603,
      message: "Path not found.",
      data: { code: "FS_NOT_FOUND", detail: "No such file or directory (os error 2)" },
    });
    c.destroy();
  });
});

test("fan-out: both subscribers get session/update, queue/changed and prompt_complete; the response only the caller", async () => {
  await withLeader({}, async ({ leader, cwd }) => {
    const { a, b, sid } = await twoSubscribers(leader, cwd);
    const res = await a.request(
      "session/prompt",
      promptParams(sid, "fan out", { promptId: "P-fan" }),
    );
    assert.is(get(res, "result", "stopReason"), "end_turn");
    for (const client of [a, b]) {
      await client.nextAcp(
        (m) =>
          m.method === "_x.ai/session/prompt_complete" && get(m, "params", "promptId") === "P-fan",
      );
      const msgs = client.acp();
      assert.ok(
        msgs.some(
          (m) => m.method === "session/update" && get(m, "params", "_meta", "promptId") === "P-fan",
        ),
      );
      assert.ok(
        msgs.some(
          (m) =>
            m.method === "_x.ai/queue/changed" && get(m, "params", "runningPromptId") === "P-fan",
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(
      !b
        .acp()
        .some(
          (m) =>
            m.id !== undefined &&
            m.result !== undefined &&
            get(m, "result", "stopReason") !== undefined,
        ),
    );
    a.destroy();
    b.destroy();
  });
});

test("interactions: a permission request goes to every subscriber, first answer wins, late joiners get it replayed", async () => {
  await withLeader({}, async ({ leader, cwd }) => {
    const { a, b, sid } = await twoSubscribers(leader, cwd);
    a.sendAcp(promptFrame(9, sid, "[[sim:permission]] go", "P-perm"));
    const isPerm = (m: Record<string, unknown>): boolean =>
      m.method === "session/request_permission";
    const ra = await a.nextAcp(isPerm);
    const rb = await b.nextAcp(isPerm);
    assert.equal(ra, rb);
    const tcid = String(get(ra, "params", "toolCall", "toolCallId"));
    await a.nextAcp((m) => get(m, "params", "update", "sessionUpdate") === "pending_interaction");
    // A third client attaching now gets the pending request replayed after its load response.
    const late = await joined(leader, "late");
    const loadRes = await loadNoReplay(late, sid, cwd);
    const replayed = await late.nextAcp(isPerm);
    assert.equal(replayed, ra);
    const frames = late.acp();
    assert.ok(
      frames.findIndex(isPerm) > frames.findIndex((m) => m.id === loadRes.id),
      "replayed after the load response",
    );
    // b answers first (deny); a's later allow is ignored.
    b.sendAcp({
      jsonrpc: "2.0",
      id: rb.id,
      result: { outcome: { outcome: "selected", optionId: "reject-once" } },
    });
    await a.nextAcp(
      (m) =>
        get(m, "params", "update", "sessionUpdate") === "interaction_resolved" &&
        get(m, "params", "update", "tool_call_id") === tcid,
    );
    a.sendAcp({
      jsonrpc: "2.0",
      id: ra.id,
      result: { outcome: { outcome: "selected", optionId: "allow-once" } },
    });
    const done = await a.nextAcp((m) => m.id === 9);
    assert.is(get(done, "result", "stopReason"), "end_turn");
    const failed = a
      .acp()
      .find(
        (m) =>
          get(m, "params", "update", "sessionUpdate") === "tool_call_update" &&
          get(m, "params", "update", "toolCallId") === tcid,
      );
    assert.is(get(failed, "params", "update", "status"), "failed", "the first answer (deny) won");
    // Once resolved it is no longer replayed.
    const later = await joined(leader, "later");
    await loadNoReplay(later, sid, cwd);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(!later.acp().some(isPerm));
    for (const x of [a, b, late, later]) x.destroy();
  });
});

test("driver-only: fs/read_text_file goes to the session's driver, not to other subscribers", async () => {
  await withLeader({}, async ({ leader, cwd }) => {
    writeFileSync(join(cwd, "README.md"), "hello readme");
    const driver = await joined(leader, "driver");
    const sid = await newSession(driver, cwd);
    const viewer = await resumed(leader, "viewer", sid, cwd);
    viewer.sendAcp(promptFrame(3, sid, "[[sim:fs]] read it", "P-fs"));
    const req = await driver.nextAcp((m) => m.method === "fs/read_text_file");
    assert.is(get(req, "params", "path"), join(cwd, "README.md"));
    driver.sendAcp({ jsonrpc: "2.0", id: req.id, result: { content: "hello readme" } });
    const done = await viewer.nextAcp((m) => m.id === 3);
    assert.is(get(done, "result", "stopReason"), "end_turn");
    assert.ok(!viewer.acp().some((m) => m.method === "fs/read_text_file"));
    driver.destroy();
    viewer.destroy();
  });
});

test("machine-wide broadcasts reach every client; subscribers of other sessions included", async () => {
  await withLeader({}, async ({ leader, cwd }) => {
    const a = await joined(leader, "a");
    const b = await joined(leader, "b");
    const sid = await newSession(a, cwd);
    for (const c of [a, b]) {
      await c.nextAcp((m) => upsertsSession(m, "sessionId", sid));
    }
    a.destroy();
    b.destroy();
  });
});

test.run();
