import net from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError, WireError } from "../../lib/errors.js";
import {
  connectLeader,
  LeaderConnection,
  type LeaderEvent,
} from "../../lib/leader/leader-connection.js";
import { registerMessage } from "../../lib/leader/messages.js";
import { rejectionOf } from "../helpers/error-code.js";
import {
  CAPABILITIES,
  FakeLeader,
  type FakeLeaderOptions,
  frame,
  until,
} from "../helpers/fake-leader.js";

const fakes: FakeLeader[] = [];
const conns: LeaderConnection[] = [];

async function fake(options: FakeLeaderOptions = {}): Promise<FakeLeader> {
  const f = await FakeLeader.start(options);
  fakes.push(f);
  return f;
}

async function connect(f: FakeLeader, options = {}): Promise<LeaderConnection> {
  const c = await connectLeader(f.socketPath, { keepaliveIntervalMs: 0, ...options });
  conns.push(c);
  return c;
}

const rejection = (p: Promise<unknown>): Promise<GrokSeatError> => rejectionOf(p, GrokSeatError);

function received(f: FakeLeader, type: string): number {
  return f.clients.flatMap((c) => c.received).filter((m) => m.type === type).length;
}

test.after.each(async () => {
  for (const c of conns.splice(0)) await c.close();
  for (const f of fakes.splice(0)) await f.stop();
});

test("ready path: registers as stdio grok-seat with status_line and no client_version", async () => {
  const f = await fake();
  const c = await connect(f);
  assert.is(c.state, "open");
  assert.equal(f.clients[0]?.received[0], registerMessage());
  assert.equal(c.registered, {
    type: "registered",
    client_id: 1,
    ready: true,
    leader_protocol_version: 1,
    leader_binary_version: "1.0.48",
    leader_capabilities: CAPABILITIES,
  });
  assert.ok(c.controlSupported);
});

test("not-ready path: waits for leader_ready, then opens", async () => {
  const f = await fake({ startNotReady: true });
  const socket = net.createConnection({ path: f.socketPath });
  await new Promise((r) => socket.once("connect", r));
  const c = new LeaderConnection(socket, { keepaliveIntervalMs: 0 });
  conns.push(c);
  let settled = false;
  void c.ready.then(() => {
    settled = true;
  });
  // registered{ready:false} has been read: the connection waits, and is not usable yet.
  await until(() => c.state === "awaiting_ready", 5_000, "registered{ready:false}");
  assert.is(settled, false);
  assert.is((await rejection(c.sendAcp('{"jsonrpc":"2.0"}'))).code, "NOT_READY");
  f.makeReady();
  await c.ready;
  assert.is(c.state, "open");
  assert.is(c.registered.ready, false);
  assert.is(received(f, "acp"), 0, "nothing was sent before leader_ready");
});

test("not-ready path: bounded by readyTimeoutMs, then disconnect", async () => {
  const f = await fake({ startNotReady: true });
  const err = await rejection(connectLeader(f.socketPath, { readyTimeoutMs: 100 }));
  assert.is(err.code, "LEADER_READY_TIMEOUT");
  await until(() => received(f, "disconnect") === 1, 5_000, "disconnect frame");
});

test("not-ready path: a shutdown before ready is CONNECTION_CLOSED", async () => {
  const f = await fake({ startNotReady: true });
  const pending = rejection(connectLeader(f.socketPath));
  await until(() => f.clients[0]?.registered === true);
  f.shutdown("manual");
  const err = await pending;
  assert.is(err.code, "CONNECTION_CLOSED");
  assert.is(err.context.reason, "leader_shutdown");
});

test("legacy registered: ready by default, control refused locally", async () => {
  const f = await fake({ registerReply: (id) => ({ type: "registered", client_id: id + 6 }) });
  const c = await connect(f);
  assert.is(c.registered.client_id, 7);
  assert.is(c.registered.ready, true);
  assert.is(c.controlSupported, false);
  const err = await rejection(c.getLeaderInfo());
  assert.is(err.code, "CONTROL_UNSUPPORTED");
  await c.ping(); // a round trip, so a control frame would have arrived by now
  assert.is(received(f, "control"), 0);
});

test("control refused without control_v1 or with another protocol version", async () => {
  for (const [version, caps] of [
    [1, { ...CAPABILITIES, control_v1: false }],
    [2, CAPABILITIES],
    [1, null],
  ] as const) {
    const f = await fake({
      registerReply: (id) => ({
        type: "registered",
        client_id: id,
        ready: true,
        leader_protocol_version: version,
        leader_binary_version: "1.0.48",
        leader_capabilities: caps,
      }),
    });
    const c = await connect(f);
    const err = await rejection(c.control({ type: "get_leader_info" }));
    assert.is(err.code, "CONTROL_UNSUPPORTED");
    await c.ping();
    assert.is(received(f, "control"), 0);
  }
});

test("registration errors: error frame, silence, unexpected reply", async () => {
  const f1 = await fake({
    registerReply: () => ({ type: "error", code: 1, message: "Expected Register message" }),
  });
  const e1 = await rejection(connectLeader(f1.socketPath));
  assert.ok(e1 instanceof WireError);
  assert.is(e1.peer, "leader");
  assert.is(e1.code, "1");

  const f2 = await fake({ registerReply: () => null });
  const e2 = await rejection(connectLeader(f2.socketPath, { registrationTimeoutMs: 100 }));
  assert.is(e2.code, "REGISTRATION_TIMEOUT");

  const f3 = await fake({ registerReply: () => ({ type: "pong" }) });
  const e3 = await rejection(connectLeader(f3.socketPath));
  assert.is(e3.code, "REGISTRATION_UNEXPECTED");

  const f4 = await fake({
    registerReply: () => ({ type: "error", code: 3, message: "Registration timeout" }),
  });
  const e4 = await rejection(connectLeader(f4.socketPath));
  assert.is(e4.code, "3");
});

test("control: replies correlated by request_id, out of order", async () => {
  const f = await fake({
    control: (cmd) => {
      const reason = String(cmd.to_version);
      const answer = { ok: { type: "relaunch_declined", reason } };
      return reason === "slow" ? { delayMs: 80, answer } : answer;
    },
  });
  const c = await connect(f);
  const order: string[] = [];
  const slow = c.control({ type: "relaunch_for_update", to_version: "slow" }).then((p) => {
    order.push("slow");
    return p;
  });
  const fast = c.control({ type: "relaunch_for_update", to_version: "fast" }).then((p) => {
    order.push("fast");
    return p;
  });
  assert.equal(await slow, { type: "relaunch_declined", reason: "slow" });
  assert.equal(await fast, { type: "relaunch_declined", reason: "fast" });
  assert.equal(order, ["fast", "slow"]);
  const ids = f.clients[0]?.received.filter((m) => m.type === "control").map((m) => m.request_id);
  assert.equal(ids, ["1", "2"]);
});

test("control: get_leader_info, Err as WireError, timeout and a late reply", async () => {
  const f = await fake({
    pid: 4242,
    control: (cmd) => {
      if (cmd.type === "get_leader_info") return { ok: { type: "relaunch_declined", reason: "x" } };
      if (cmd.type === "stop_cpu_profile") {
        return { err: { code: "profile_not_active", message: "no profile", details: { a: 1 } } };
      }
      return { delayMs: 150, answer: { ok: { type: "relaunch_declined", reason: "late" } } };
    },
  });
  const c = await connect(f);
  assert.is((await rejection(c.getLeaderInfo())).code, "UNEXPECTED_CONTROL_PAYLOAD");
  const err = await rejection(c.control({ type: "stop_cpu_profile" }));
  assert.ok(err instanceof WireError);
  assert.is(err.code, "profile_not_active");
  assert.equal(err.data, { a: 1 });
  const events: LeaderEvent[] = [];
  c.onEvent((e) => events.push(e));
  const t = await rejection(c.control({ type: "workspace_status" }, { timeoutMs: 30 }));
  assert.is(t.code, "CONTROL_TIMEOUT");
  await until(() => events.some((e) => e.type === "unexpected"), 5_000, "late reply");
  assert.is(c.state, "open");
});

test("get_leader_info returns the leader's self-report", async () => {
  const f = await fake({ pid: 4242 });
  const c = await connect(f);
  const info = await c.getLeaderInfo();
  assert.is(info.pid, 4242);
  assert.is(info.socket_path, f.socketPath);
  assert.is(info.cpu_profile_stopping, false);
});

test("keepalive: pings at the interval, pongs consumed", async () => {
  const f = await fake();
  const c = await connect(f, { keepaliveIntervalMs: 20 });
  await until(() => received(f, "ping") >= 3, 5_000, "three keepalive pings");
  await c.ping();
  assert.is(c.state, "open");
});

test("shutting_down + shutdown: typed events, leader_shutdown, pending controls rejected", async () => {
  const f = await fake({ control: () => ({ none: true }) });
  const c = await connect(f);
  const events: string[] = [];
  c.onEvent((e) => events.push(e.type));
  const pending = rejection(c.control({ type: "workspace_status" }));
  await until(() => received(f, "control") === 1);
  f.shutdown("auto_update");
  assert.equal(await c.closed, { kind: "leader_shutdown", shuttingDown: "auto_update" });
  assert.equal(events, ["shutting_down", "shutdown", "closed"]);
  assert.is((await pending).code, "CONNECTION_CLOSED");
});

test("EOF without shutdown is connection_lost; no reconnect afterwards", async () => {
  const f = await fake();
  const c = await connect(f);
  f.clients[0]?.destroy();
  const reason = await c.closed;
  assert.equal(reason, { kind: "connection_lost", shuttingDown: null, error: null });
  assert.is((await rejection(c.sendAcp('{"jsonrpc":"2.0"}'))).code, "CONNECTION_CLOSED");
  assert.is((await rejection(c.getLeaderInfo())).code, "CONNECTION_CLOSED");
  assert.is((await rejection(c.ping())).code, "CONNECTION_CLOSED");
  // The fake still listens: a reconnect would be accepted and counted. Prove the event loop
  // had many turns to attempt one: a fresh probe connection round-trips first.
  const probe = await connectLeader(f.socketPath, { keepaliveIntervalMs: 0 });
  await probe.ping();
  await probe.close();
  assert.is(f.connections, 2, "only the original connection and our probe");
  assert.is(c.state, "closed");
});

test("malformed frames from the leader: typed protocol_error and close", async () => {
  const cases: [Buffer, string][] = [
    [Buffer.from([0, 0, 0, 5, 0x7b, 0x6e, 0x6f, 0x70, 0x65]), "INVALID_JSON"],
    [Buffer.from([0, 0, 0, 3, 0x22, 0xc3, 0x22]), "INVALID_UTF8"],
    [Buffer.from([0xff, 0xff, 0xff, 0xff]), "FRAME_TOO_LARGE"],
    [frame({ type: "hello" }), "UNKNOWN_MESSAGE_TYPE"],
    [frame({ type: "acp" }), "INVALID_MESSAGE"],
  ];
  for (const [bytes, code] of cases) {
    const f = await fake();
    const c = await connect(f);
    f.clients[0]?.sendRaw(bytes);
    const reason = await c.closed;
    assert.is(reason.kind, "protocol_error");
    if (reason.kind === "protocol_error") assert.is(reason.error.code, code);
    await until(() => f.clients[0]?.closed === true, 5_000, "socket closed");
    assert.is(received(f, "disconnect"), 1, `${code}: disconnect frame sent`);
  }
});

test("a malformed frame during registration rejects connectLeader with its code", async () => {
  const f = await fake({ registerReply: () => null });
  const pending = rejection(connectLeader(f.socketPath));
  await until(() => f.clients[0]?.registered === true);
  f.clients[0]?.sendRaw(Buffer.from([0, 0, 0, 1, 0x5b]));
  assert.is((await pending).code, "INVALID_JSON");
});

test("slowloris: a stalled partial frame and a trickled frame are both cut off", async () => {
  const f = await fake();
  const c = await connect(f, { partialFrameIdleMs: 60, frameDeadlineMs: 10_000 });
  f.clients[0]?.sendRaw(Buffer.from([0, 0]));
  const r1 = await c.closed;
  assert.ok(r1.kind === "protocol_error" && r1.error.code === "PARTIAL_FRAME_TIMEOUT");

  const c2 = await connect(f, { partialFrameIdleMs: 200, frameDeadlineMs: 150 });
  const client = f.clients[1];
  const body = Buffer.from('{"type":"pong"}');
  const bytes = Buffer.concat([Buffer.from([0, 0, 0, body.length]), body]);
  let i = 0;
  const trickle = setInterval(() => {
    if (i < bytes.length) client?.sendRaw(bytes.subarray(i, ++i));
  }, 20);
  const r2 = await c2.closed;
  clearInterval(trickle);
  assert.ok(r2.kind === "protocol_error" && r2.error.code === "FRAME_DEADLINE_EXCEEDED");
});

test("ACP: payloads before the consumer are kept, in order; sendAcp is exact", async () => {
  const f = await fake({
    onAcp: (p, client) => client.send({ type: "acp", payload: `echo:${p}` }),
  });
  const c = await connect(f);
  f.clients[0]?.send({ type: "acp", payload: "early-1" });
  f.clients[0]?.send({ type: "acp", payload: "early-2" });
  await c.ping(); // both early frames were read before the pong
  const got: string[] = [];
  c.onAcp((p) => got.push(p));
  assert.equal(got, ["early-1", "early-2"]);
  const payload = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"s":"ü\\n"}}';
  await c.sendAcp(payload);
  await until(() => got.length === 3);
  assert.is(got[2], `echo:${payload}`);
  assert.equal(
    f.clients[0]?.received.find((m) => m.type === "acp"),
    { type: "acp", payload },
  );
  assert.throws(
    () => c.onAcp(() => {}),
    (e: unknown) => e instanceof GrokSeatError && e.code === "ACP_CONSUMER_TAKEN",
  );
});

test("ACP: refuses multi-line, empty and lone-surrogate payloads", async () => {
  const f = await fake();
  const c = await connect(f);
  for (const p of ['{\n"a":1}', "", '{"a":"\ud800"}', '{"a":1}\r']) {
    assert.is((await rejection(c.sendAcp(p))).code, "INVALID_ACP_PAYLOAD");
  }
  await c.ping();
  assert.is(received(f, "acp"), 0);
});

test("ACP back-pressure: reading pauses above the cap and resumes as the consumer drains", async () => {
  const f = await fake();
  const c = await connect(f, { maxQueuedAcpBytes: 10_000 });
  const payload = "p".repeat(1_000);
  for (let i = 0; i < 200; i++) f.clients[0]?.send({ type: "acp", payload: `${i}:${payload}` });
  await until(() => c.socket.isPaused(), 5_000, "socket paused");
  const got: string[] = [];
  for await (const p of c.acpMessages()) {
    got.push(p);
    if (got.length === 200) break;
  }
  assert.is(got.length, 200);
  assert.ok(got.every((p, i) => p.startsWith(`${i}:`)));
  assert.is(c.socket.isPaused(), false);
});

test("acpMessages ends when the connection closes", async () => {
  const f = await fake();
  const c = await connect(f);
  f.clients[0]?.send({ type: "acp", payload: "last" });
  await c.ping();
  const it = c.acpMessages();
  f.clients[0]?.destroy();
  const got: string[] = [];
  for await (const p of it) got.push(p);
  assert.equal(got, ["last"]);
});

test("error frames and a second registered after open are events; the connection stays", async () => {
  const f = await fake();
  const c = await connect(f);
  const events: LeaderEvent[] = [];
  c.onEvent((e) => events.push(e));
  f.clients[0]?.send({ type: "error", code: 2, message: "Already registered" });
  f.clients[0]?.send({ type: "registered", client_id: 9 });
  await c.ping();
  assert.is(events.length, 2);
  const first = events[0];
  assert.ok(
    first?.type === "error_frame" && first.error.code === "2" && first.error.peer === "leader",
  );
  assert.is(events[1]?.type, "unexpected");
  assert.is(c.state, "open");
});

test("close(): disconnect frame, then EOF; client_closed; idempotent", async () => {
  const f = await fake();
  const c = await connect(f);
  const r = await c.close();
  assert.equal(r, { kind: "client_closed" });
  await until(() => f.clients[0]?.closed === true, 5_000, "leader sees EOF");
  assert.is(received(f, "disconnect"), 1);
  assert.equal(await c.close(), { kind: "client_closed" });
  assert.is(f.connections, 1);
});

test("an already-connected socket is accepted; a closed one and a bad path are typed errors", async () => {
  const f = await fake();
  const s = net.createConnection({ path: f.socketPath });
  await new Promise((r) => s.once("connect", r));
  const c = await connectLeader(s, { keepaliveIntervalMs: 0 });
  conns.push(c);
  assert.is(c.socket, s);
  assert.is(c.state, "open");
  const dead = net.createConnection({ path: f.socketPath });
  await new Promise((r) => dead.once("connect", r));
  dead.destroy();
  assert.is((await rejection(connectLeader(dead))).code, "SOCKET_NOT_CONNECTED");
  assert.is((await rejection(connectLeader(`${f.dir}/absent.sock`))).code, "CONNECT_FAILED");
});

test.run();
