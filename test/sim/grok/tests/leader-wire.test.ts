// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The leader's IPC wire, byte for byte, against the fixture list of docs/design/grok-leader-protocol.md
 * (items 1-7, 10, 17): framing, registration paths and errors, keepalive, control, relaunch.
 * A raw socket client (raw.ts) speaks to a bare simulated leader; expected bytes are written out
 * literally from leader/protocol.rs and leader/server.rs.
 */
import { existsSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim, type GrokLeader, waitFor } from "../../../helpers/grok-sim.js";
import { withSimLeader } from "../../../helpers/grok-sim-clients.js";
import { frameBytes, RawClient } from "./raw.js";

const CAPS =
  '{"yolo_mode":false,"auto_mode":false,"default_model":null,"client_version":null,"code_nav_enabled":false,"terminal":false,"fs_read":false,"fs_write":false,"status_line":true}';
const LEADER_CAPS =
  '{"control_v1":true,"runtime_cpu_profile":false,"profile_formats":[],"workspace_exposure":true,"relaunch_v1":true}';

const withLeader = (
  env: Record<string, string>,
  fn: (leader: GrokLeader) => Promise<void>,
): Promise<void> => withSimLeader({ env }, ({ leader }) => fn(leader));

test.before(async () => {
  await ensureGrokSim();
});

test('ping frame is 00 00 00 0F + {"type":"ping"} and the reply is exactly pong', async () => {
  await withLeader({}, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    c.write(
      frameBytes(
        `{"type":"register","client_type":"my-lib","mode":"stdio","capabilities":${CAPS}}`,
      ),
    );
    await c.next((f) => f.json.type === "registered");
    const ping = frameBytes('{"type":"ping"}');
    assert.equal([...ping.subarray(0, 6)], [0x00, 0x00, 0x00, 0x0f, 0x7b, 0x22]);
    // Split the ping frame at every byte: the leader must reassemble it.
    for (const byte of ping) c.write(Buffer.from([byte]));
    const pong = await c.next((f) => f.text === '{"type":"pong"}');
    assert.is(pong.raw.toString("utf8"), '{"type":"pong"}');
    c.destroy();
  });
});

test("registration, ready path: the registered frame is byte-identical to the fixture", async () => {
  await withLeader({}, async (leader) => {
    const first = await RawClient.open(leader.paths.socketPath);
    await first.register("grok-shell");
    const c = await RawClient.open(leader.paths.socketPath);
    c.write(
      frameBytes(
        `{"type":"register","client_type":"my-lib","mode":"stdio","capabilities":${CAPS}}`,
      ),
    );
    const f = await c.next((fr) => fr.json.type === "registered");
    assert.is(
      f.text,
      `{"type":"registered","client_id":2,"ready":true,"leader_protocol_version":1,"leader_binary_version":"1.0.48","leader_capabilities":${LEADER_CAPS}}`,
    );
    first.destroy();
    c.destroy();
  });
});

test("registration, not-ready path: registered{ready:false}, nothing else, then leader_ready", async () => {
  await withLeader({ GROK_SIM_AUTH_DELAY_MS: "800" }, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    c.send({ type: "register", client_type: "my-lib", mode: "stdio" });
    const reg = await c.next((f) => f.json.type === "registered");
    assert.is(reg.json.ready, false);
    // An ACP request sent now is not read until the leader is ready, then served normally.
    c.sendAcp({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
    const ready = await c.next((f) => f.json.type === "leader_ready");
    assert.is(ready.text, '{"type":"leader_ready"}');
    assert.is(c.frames.indexOf(ready), 1, "leader_ready is the frame right after registered");
    const init = await c.nextAcp((m) => m.id === 1);
    assert.is(init.error, undefined);
    c.destroy();
  });
});

test("leader_starting: an ACP request that reaches the loop before ready gets -32002 with its original id", async () => {
  await withLeader({ GROK_SIM_AUTH_DELAY_MS: "1500", GROK_SIM_EARLY_READ: "1" }, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    c.send({ type: "register", client_type: "my-lib", mode: "stdio" });
    await c.next((f) => f.json.type === "registered" && f.json.ready === false);
    c.sendAcp({ jsonrpc: "2.0", id: "abc", method: "initialize", params: { protocolVersion: 1 } });
    c.sendAcp({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "x" } });
    c.sendAcp({ jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: 1 } });
    const e1 = await c.next((f) => f.text.includes("leader_starting") && f.text.includes("abc"));
    assert.is(
      String(e1.json.payload),
      '{"jsonrpc":"2.0","id":"abc","error":{"code":-32002,"message":"leader_starting","data":"Leader is still initializing (auth in progress). Retry shortly."}}',
    );
    const e2 = await c.nextAcp((m) => m.id === 7);
    assert.is(
      JSON.stringify(e2.error),
      '{"code":-32002,"message":"leader_starting","data":"Leader is still initializing (auth in progress). Retry shortly."}',
    );
    await c.next((f) => f.json.type === "leader_ready", 5000);
    const acps = c.acp();
    assert.is(acps.length, 2, "the notification sent before ready was dropped");
    c.destroy();
  });
});

test("legacy registered: no metadata (GROK_SIM_LEGACY_REGISTERED)", async () => {
  await withLeader({ GROK_SIM_LEGACY_REGISTERED: "1" }, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    c.send({ type: "register", client_type: "x", mode: "stdio" });
    const f = await c.next((fr) => fr.json.type === "registered");
    assert.is(f.text, '{"type":"registered","client_id":1}');
    c.destroy();
  });
});

test("error 1: a first frame that is not register gets Expected Register message, then close", async () => {
  await withLeader({}, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    c.send({ type: "ping" });
    const f = await c.next((fr) => fr.json.type === "error");
    assert.is(f.text, '{"type":"error","code":1,"message":"Expected Register message"}');
    await c.waitClosed();
  });
});

test("error 2: a second register gets Already registered and the connection stays open", async () => {
  await withLeader({}, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    await c.register();
    c.send({ type: "register", client_type: "again", mode: "stdio" });
    const f = await c.next((fr) => fr.json.type === "error");
    assert.is(f.text, '{"type":"error","code":2,"message":"Already registered"}');
    c.send({ type: "ping" });
    await c.next((fr) => fr.json.type === "pong");
    assert.is(c.closed, false);
    c.destroy();
  });
});

test("error 3: no register within the registration timeout", async () => {
  await withLeader({ GROK_SIM_REGISTRATION_TIMEOUT_MS: "300" }, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    const f = await c.next((fr) => fr.json.type === "error", 5000);
    assert.is(f.text, '{"type":"error","code":3,"message":"Registration timeout"}');
    await c.waitClosed();
  });
});

test("framing errors close the connection: oversized length, bad JSON, unknown type, bad first frame", async () => {
  await withLeader({}, async (leader) => {
    const big = await RawClient.open(leader.paths.socketPath);
    await big.register();
    const head = Buffer.alloc(4);
    head.writeUInt32BE(64 * 1024 * 1024 + 1);
    big.write(head);
    await big.waitClosed();

    const exact = await RawClient.open(leader.paths.socketPath);
    await exact.register();
    // Exactly 64 MiB announced is allowed: the connection stays open while the body is pending.
    const ok = Buffer.alloc(4);
    ok.writeUInt32BE(64 * 1024 * 1024);
    exact.write(ok);
    await new Promise((r) => setTimeout(r, 200));
    assert.is(exact.closed, false);
    exact.destroy();

    const badJson = await RawClient.open(leader.paths.socketPath);
    await badJson.register();
    badJson.write(frameBytes("{not json"));
    await badJson.waitClosed();

    const unknown = await RawClient.open(leader.paths.socketPath);
    await unknown.register();
    unknown.send({ type: "frobnicate" });
    await unknown.waitClosed();

    const missing = await RawClient.open(leader.paths.socketPath);
    await missing.register();
    missing.send({ type: "control", request_id: "1", command: { type: "no_such_command" } });
    await missing.waitClosed();

    const first = await RawClient.open(leader.paths.socketPath);
    first.write(frameBytes("garbage"));
    await first.waitClosed();
    assert.is(first.frames.length, 0, "an undecodable first frame closes without an error frame");
  });
});

test("get_leader_info: exact field set and values; wrong pid fault", async () => {
  await withLeader({}, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    await c.register();
    c.send({ type: "control", request_id: "1", command: { type: "get_leader_info" } });
    const f = await c.next((fr) => fr.json.type === "control_result");
    assert.is(
      f.text,
      `{"type":"control_result","request_id":"1","result":{"Ok":{"type":"leader_info","pid":${leader.pid},"socket_path":${JSON.stringify(leader.paths.socketPath)},"lock_path":${JSON.stringify(leader.paths.lockPath)},"ws_url_suffix":"","leader_protocol_version":1,"leader_binary_version":"1.0.48","profiling_supported":false,"profiling_compiled_in":false,"cpu_profile_active":false,"cpu_profile_stopping":false,"profile_started_at":null,"profile_formats":[]}}}`,
    );
    c.send({ type: "control", request_id: "2", command: { type: "start_cpu_profile" } });
    const err = await c.next(
      (fr) => fr.json.type === "control_result" && fr.json.request_id === "2",
    );
    assert.match(
      err.text,
      /"result":\{"Err":\{"code":"runtime_profiling_unsupported","message":"[^"]+"\}\}/,
    );
    c.destroy();
  });
  await withLeader({ GROK_SIM_WRONG_PID: "4242" }, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    await c.register();
    c.send({ type: "control", request_id: "x", command: { type: "get_leader_info" } });
    const f = await c.next((fr) => fr.json.type === "control_result");
    assert.match(f.text, /"pid":4242,/);
    assert.is.not(leader.pid, 4242);
    c.destroy();
  });
});

test("relaunch_for_update: declined when not newer; accepted -> relaunching, shutting_down, shutdown, EOF, files removed", async () => {
  await withLeader({}, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    await c.register();
    c.send({
      type: "control",
      request_id: "r1",
      command: { type: "relaunch_for_update", to_version: "1.0.48" },
    });
    const declined = await c.next((f) => f.json.type === "control_result");
    assert.is(
      declined.text,
      '{"type":"control_result","request_id":"r1","result":{"Ok":{"type":"relaunch_declined","reason":"leader version 1.0.48 is not older than 1.0.48"}}}',
    );
    const other = await RawClient.open(leader.paths.socketPath);
    await other.register();
    c.send({
      type: "control",
      request_id: "r2",
      command: { type: "relaunch_for_update", to_version: "1.0.49" },
    });
    const accepted = await c.next((f) => f.json.request_id === "r2");
    assert.is(
      accepted.text,
      '{"type":"control_result","request_id":"r2","result":{"Ok":{"type":"relaunching","from_version":"1.0.48","to_version":"1.0.49","grace_ms":10000}}}',
    );
    for (const client of [c, other]) {
      const down = await client.next((f) => f.json.type === "shutting_down");
      assert.is(down.text, '{"type":"shutting_down","reason":"auto_update","delay_ms":0}');
      const idx = client.frames.indexOf(down);
      await client.next((f) => f.json.type === "shutdown");
      assert.is(client.frames[idx + 1]?.text, '{"type":"shutdown"}');
      await client.waitClosed();
    }
    await waitFor("leader exit", () => leader.child.exitCode !== null);
    assert.is(leader.child.exitCode, 0);
    assert.ok(!existsSync(leader.paths.socketPath), "graceful exit unlinks the socket");
    assert.ok(!existsSync(leader.paths.lockPath), "graceful exit removes the lock file");
  });
});

test("version mismatch notice: raw method without underscore, only when versions differ", async () => {
  await withLeader({ GROK_SIM_LEADER_BUILD_VERSION: "1.0.48 (abc1234)" }, async (leader) => {
    const same = await RawClient.open(leader.paths.socketPath);
    await same.register("a", { client_version: "1.0.48 (abc1234)" });
    const diff = await RawClient.open(leader.paths.socketPath);
    await diff.register("b", { client_version: "1.0.47" });
    const note = await diff.next((f) => f.json.type === "acp");
    assert.is(
      String(note.json.payload),
      '{"jsonrpc":"2.0","method":"x.ai/leader/version_mismatch","params":{"clientVersion":"1.0.47","leaderVersion":"1.0.48 (abc1234)","message":"Client version 1.0.47 differs from leader version 1.0.48 (abc1234). Restart the grok binary to use the same version."}}',
    );
    same.send({ type: "ping" });
    await same.next((f) => f.json.type === "pong");
    assert.is(same.acp().length, 0, "no notice for an equal version");
    same.destroy();
    diff.destroy();
  });
  await withLeader({}, async (leader) => {
    const c = await RawClient.open(leader.paths.socketPath);
    await c.register("c", { client_version: "0.0.1" });
    c.send({ type: "ping" });
    await c.next((f) => f.json.type === "pong");
    assert.is(c.acp().length, 0, 'the default build version is "unknown": the check is disabled');
    c.destroy();
  });
});

test.run();
