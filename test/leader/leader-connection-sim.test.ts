// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The leader connection against the grok simulator's leader (a separate `grok agent leader`
 * process speaking the real frames): ready and not-ready registration, a legacy leader, control,
 * relaunch_for_update ending in shutting_down + shutdown, and a crash seen as a bare EOF. No test
 * ever sees a second connection from us: there is no reconnect.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import {
  connectLeader,
  type LeaderConnection,
  type LeaderEvent,
} from "../../lib/leader/leader-connection.js";
import { rejectionOf } from "../helpers/error-code.js";
import { type GrokLeader, grokHomeFixture, startGrokLeader, waitFor } from "../helpers/grok-sim.js";

let leader: GrokLeader | null = null;
let home: ReturnType<typeof grokHomeFixture> | null = null;
let conn: LeaderConnection | null = null;

async function start(env: Record<string, string> = {}): Promise<GrokLeader> {
  home = grokHomeFixture();
  leader = await startGrokLeader({ grokHome: home.dir, cwd: home.cwd, env });
  return leader;
}

test.after.each(async () => {
  await conn?.close();
  conn = null;
  await leader?.stop();
  leader = null;
  home?.remove();
  home = null;
});

test("registers with the simulator and reads get_leader_info", async () => {
  const l = await start();
  conn = await connectLeader(l.paths.socketPath, { keepaliveIntervalMs: 0 });
  assert.is(conn.registered.ready, true);
  assert.is(conn.registered.leader_protocol_version, 1);
  assert.is(conn.registered.leader_capabilities?.control_v1, true);
  const info = await conn.getLeaderInfo();
  assert.is(info.pid, l.pid);
  assert.is(info.socket_path, l.paths.socketPath);
  assert.is(info.lock_path, l.paths.lockPath);
  await conn.ping();
});

test("not-ready path: registered{ready:false} then leader_ready (GROK_SIM_AUTH_DELAY_MS)", async () => {
  const l = await start({ GROK_SIM_AUTH_DELAY_MS: "700" });
  conn = await connectLeader(l.paths.socketPath, { keepaliveIntervalMs: 0 });
  assert.is(conn.registered.ready, false);
  assert.is(conn.state, "open");
  assert.is((await conn.getLeaderInfo()).pid, l.pid);
});

test("not-ready path is bounded: LEADER_READY_TIMEOUT", async () => {
  const l = await start({ GROK_SIM_AUTH_DELAY_MS: "30000" });
  assert.is(
    (await rejectionOf(connectLeader(l.paths.socketPath, { readyTimeoutMs: 200 }), GrokSeatError))
      .code,
    "LEADER_READY_TIMEOUT",
  );
});

test("legacy leader (GROK_SIM_LEGACY_REGISTERED): ready by default, control refused locally", async () => {
  const l = await start({ GROK_SIM_LEGACY_REGISTERED: "1" });
  conn = await connectLeader(l.paths.socketPath, { keepaliveIntervalMs: 0 });
  assert.is(conn.registered.leader_protocol_version, null);
  assert.is(conn.controlSupported, false);
  assert.is((await rejectionOf(conn.getLeaderInfo(), GrokSeatError)).code, "CONTROL_UNSUPPORTED");
});

test("relaunch_for_update: relaunching, then shutting_down(auto_update) + shutdown, no reconnect", async () => {
  const l = await start();
  conn = await connectLeader(l.paths.socketPath, { keepaliveIntervalMs: 0 });
  const events: LeaderEvent["type"][] = [];
  conn.onEvent((e) => events.push(e.type));
  const declined = await conn.control({ type: "relaunch_for_update", to_version: "1.0.48" });
  assert.is(declined.type, "relaunch_declined");
  const accepted = await conn.control({ type: "relaunch_for_update", to_version: "9.0.0" });
  assert.equal(accepted, {
    type: "relaunching",
    from_version: "1.0.48",
    to_version: "9.0.0",
    grace_ms: 10000,
  });
  const reason = await conn.closed;
  assert.equal(reason, { kind: "leader_shutdown", shuttingDown: "auto_update" });
  assert.equal(events, ["shutting_down", "shutdown", "closed"]);
  assert.is(conn.state, "closed");
  await waitFor(
    "the old leader to exit",
    () => l.child.exitCode !== null || l.child.signalCode !== null,
  );
});

test("a crashed leader is a bare EOF: connection_lost, pending control rejected", async () => {
  const l = await start();
  conn = await connectLeader(l.paths.socketPath, { keepaliveIntervalMs: 0 });
  l.child.kill("SIGKILL");
  const reason = await conn.closed;
  assert.equal(reason, { kind: "connection_lost", shuttingDown: null, error: null });
  assert.is((await rejectionOf(conn.getLeaderInfo(), GrokSeatError)).code, "CONNECTION_CLOSED");
});

test.run();
