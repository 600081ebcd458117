import * as acp from "@agentclientprotocol/sdk";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { GrokEvent } from "../../lib/acp/grok-extensions.js";
import {
  createAcpStream,
  MAX_SDK_ECHO_CHARS,
  routeIncoming,
  sdkRefusal,
} from "../../lib/acp/stream.js";
import { AcpTap } from "../../lib/acp/tap.js";
import { GrokSeatError } from "../../lib/errors.js";
import { FakeAgent, MemoryPipe, until, within } from "./helpers.js";

const S = "0198b0c2-1111-7222-8333-444455556666";

function setup() {
  const pipe = new MemoryPipe();
  const agent = new FakeAgent(pipe);
  const tap = new AcpTap();
  const events: GrokEvent[] = [];
  tap.on((e) => events.push(e));
  const sent: string[] = [];
  const conn = acp
    .client({ name: "test" })
    .connect(createAcpStream(pipe, tap, { onSent: (_m, p) => sent.push(p) }));
  return { pipe, agent, tap, events, conn, sent };
}

test("routing: responses and non-interaction requests to the SDK, the rest to the tap", () => {
  assert.is(routeIncoming({ kind: "response", id: 1, ok: true, result: null }), "sdk");
  assert.is(routeIncoming({ kind: "notification", method: "session/update", params: {} }), "tap");
  assert.is(
    routeIncoming({ kind: "request", id: 1, method: "fs/read_text_file", params: {} }),
    "sdk",
  );
  for (const method of [
    "session/request_permission",
    "_x.ai/ask_user_question",
    "_x.ai/exit_plan_mode",
  ]) {
    assert.is(routeIncoming({ kind: "request", id: 1, method, params: {} }), "tap", method);
  }
});

test("the SDK client app round-trips a request over the pipe, single-line payloads", async () => {
  const { agent, conn, sent } = setup();
  agent.on("initialize", (p) => ({ protocolVersion: 1, echo: p }));
  const r = await conn.agent.request<{ protocolVersion: number }>("initialize", {
    protocolVersion: 1,
  });
  assert.is(r.protocolVersion, 1);
  assert.is(sent.length, 1);
  assert.not.match(sent[0] ?? "", /\n/);
  conn.close();
});

test("unknown update kinds reach the tap (the SDK would drop them)", async () => {
  const { agent, events, conn } = setup();
  agent.notify("session/update", {
    sessionId: S,
    update: { sessionUpdate: "xai_custom_update" },
    _meta: { promptId: "p" },
  });
  const e = await until(() => events.find((x) => x.type === "session_update"), "session_update");
  assert.equal(e, {
    type: "session_update",
    sessionId: S,
    kind: "xai_custom_update",
    promptId: "p",
    replay: false,
  });
  conn.close();
});

test("interaction requests are never answered; other requests get the SDK's -32601", async () => {
  const { agent, events, conn } = setup();
  const permId = agent.request("session/request_permission", {
    sessionId: S,
    toolCall: { toolCallId: "t1" },
    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
  });
  const askId = agent.request("_x.ai/ask_user_question", {
    method: "x.ai/ask_user_question",
    params: { sessionId: S, toolCallId: "t2", questions: [] },
  });
  const planId = agent.request("_x.ai/exit_plan_mode", { sessionId: S, toolCallId: "t3" });
  // A barrier: a later driver-only request the SDK does answer.
  const fsId = agent.request("fs/read_text_file", { sessionId: S, path: "/etc/hostname" });
  const fsAnswer = await until(
    () => agent.responses().find((m) => m.kind === "response" && m.id === fsId),
    "fs response",
  );
  assert.is(fsAnswer.kind === "response" && !fsAnswer.ok && fsAnswer.error.code, -32601);
  const answered = agent.responses().map((m) => (m.kind === "response" ? m.id : null));
  for (const id of [permId, askId, planId]) assert.not.ok(answered.includes(id), `answered ${id}`);
  assert.equal(
    events
      .filter((e) => e.type === "interaction_request")
      .map((e) => e.type === "interaction_request" && e.kind),
    ["permission", "question", "plan_approval"],
  );
  conn.close();
});

test("a malformed payload is a tap event and the connection carries on", async () => {
  const { agent, pipe, events, conn } = setup();
  pipe.push("{not json");
  pipe.push('[{"jsonrpc":"2.0","method":"x"}]');
  agent.on("ping/x", () => ({ ok: true }));
  const r = await conn.agent.request<{ ok: boolean }>("ping/x", {});
  assert.is(r.ok, true);
  assert.is(events.filter((e) => e.type === "malformed").length, 2);
  // Nothing was sent back for the malformed payloads (the SDK never saw them).
  assert.is(agent.responses().length, 0);
  conn.close();
});

test("the pipe ending closes the SDK connection and rejects pending requests", async () => {
  const { pipe, conn } = setup();
  const pending = conn.agent.request("never/answered", {});
  pipe.end();
  let rejected: unknown = null;
  await pending.catch((err: unknown) => {
    rejected = err;
  });
  assert.ok(rejected instanceof Error);
  await conn.closed;
  assert.ok(conn.signal.aborted);
});

test("a failed write is reported and ends the SDK connection", async () => {
  const pipe = new MemoryPipe();
  pipe.sendAcp = () => Promise.reject(new Error("socket gone"));
  const failed: string[] = [];
  const sentOk: string[] = [];
  const conn = acp.client().connect(
    createAcpStream(pipe, new AcpTap(), {
      onSendFailed: (m) => failed.push("method" in m ? m.method : "?"),
      onSent: (m) => sentOk.push("method" in m ? m.method : "?"),
    }),
  );
  let rejected = false;
  await conn.agent.request("session/prompt", {}).catch(() => {
    rejected = true;
  });
  assert.ok(rejected);
  assert.equal(failed, ["session/prompt"]);
  assert.equal(sentOk, []);
  await conn.closed;
});

/** `[[[…]]]` nested `depth` levels, as the JSON text a peer would send. */
function deepText(depth: number): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

test("a 10^4-deep unmodelled notification is kept by the tap and the stream carries on", async () => {
  // Found by T7: the tap's JSON.stringify threw RangeError in the pull loop, the SDK stream
  // ended and the answer to our pending request never arrived.
  const { agent, pipe, tap, events, conn } = setup();
  agent.on("ping/x", () => ({ ok: true }));
  pipe.push(`{"jsonrpc":"2.0","method":"other/thing","params":${deepText(10_000)}}`);
  const r = await within(conn.agent.request<{ ok: boolean }>("ping/x", {}), "ping/x answer");
  assert.is(r.ok, true);
  assert.ok(events.some((e) => e.type === "unknown" && e.key === "notification:other/thing"));
  assert.equal(tap.stats().unknown, { "notification:other/thing": 1 });
  assert.not.ok(conn.signal.aborted);
  conn.close();
});

test("a 10^4-deep unmodelled request reaches the SDK, gets -32601, and the stream carries on", async () => {
  // The SDK routes on `method` and never walks the params of a request it has no handler for.
  const { agent, pipe, conn } = setup();
  agent.on("ping/x", () => ({ ok: true }));
  pipe.push(`{"jsonrpc":"2.0","id":7,"method":"other/request","params":${deepText(10_000)}}`);
  const answer = await until(
    () => agent.responses().find((m) => m.kind === "response" && m.id === 7),
    "answer to the deep request",
  );
  assert.is(answer.kind === "response" && !answer.ok && answer.error.code, -32601);
  const r = await within(conn.agent.request<{ ok: boolean }>("ping/x", {}), "ping/x answer");
  assert.is(r.ok, true);
  conn.close();
});

test("sdkRefusal: only requests whose id or method the SDK's answer could not carry", () => {
  const long = "m".repeat(MAX_SDK_ECHO_CHARS + 1);
  const ok = "m".repeat(MAX_SDK_ECHO_CHARS);
  assert.is(sdkRefusal({ kind: "request", id: 1, method: ok, params: {} }), null);
  assert.is(sdkRefusal({ kind: "request", id: ok, method: "m", params: {} }), null);
  assert.is(sdkRefusal({ kind: "response", id: long, ok: true, result: null }), null);
  assert.is(sdkRefusal({ kind: "notification", method: long, params: {} }), null);
  for (const r of [
    sdkRefusal({ kind: "request", id: 1, method: long, params: {} }),
    sdkRefusal({ kind: "request", id: long, method: "m", params: {} }),
  ]) {
    assert.ok(r instanceof GrokSeatError);
    assert.is(r.code, "ACP_MALFORMED_PAYLOAD");
  }
});

test("a request the SDK could not answer is a typed, logged refusal; the connection stays usable", async () => {
  // The SDK's -32601 echoes the method twice; when that answer cannot be written the SDK closes
  // the whole connection. This pipe refuses what the leader connection would refuse, scaled down
  // (frame-codec.ts FRAME_TOO_LARGE over MAX_FRAME_BYTES, here over 2 * MAX_SDK_ECHO_CHARS).
  const pipe = new MemoryPipe();
  const send = pipe.sendAcp.bind(pipe);
  pipe.sendAcp = (payload) =>
    payload.length > 2 * MAX_SDK_ECHO_CHARS
      ? Promise.reject(new GrokSeatError("FRAME_TOO_LARGE", "frame over the cap"))
      : send(payload);
  const agent = new FakeAgent(pipe);
  agent.on("ping/x", () => ({ ok: true }));
  const logs: string[] = [];
  const tap = new AcpTap({ log: (l) => logs.push(l) });
  const events: GrokEvent[] = [];
  tap.on((e) => events.push(e));
  const conn = acp.client({ name: "test" }).connect(createAcpStream(pipe, tap));
  const method = `x.ai/${"m".repeat(MAX_SDK_ECHO_CHARS)}`;
  agent.request(method, {}, 9);
  const r = await within(conn.agent.request<{ ok: boolean }>("ping/x", {}), "ping/x answer");
  assert.is(r.ok, true);
  assert.not.ok(conn.signal.aborted);
  const refused = events.find((e) => e.type === "malformed");
  assert.ok(refused?.type === "malformed" && refused.error.code === "ACP_MALFORMED_PAYLOAD");
  assert.is(tap.stats().malformed["malformed:payload"], 1);
  assert.ok(logs.includes("acp tap: kept malformed:payload"));
  // Never given to the SDK, so never answered.
  assert.not.ok(agent.responses().some((m) => m.kind === "response" && m.id === 9));
  conn.close();
});

test.run();
