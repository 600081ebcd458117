/**
 * Connect once and prove the peer before the first byte (lib/leader/connect-proven.ts), against
 * real listener processes: a straight connect passes every check with nothing written; a path
 * renamed to another listener after the socket proof, a peer that is not the TUI's child and a
 * path nobody listens on are refused by name. Each listener's byte count is the oracle.
 */
import { spawn } from "node:child_process";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { processFacts, socketFacts } from "../../lib/kernel/index.js";
import { connectProven } from "../../lib/leader/connect-proven.js";
import { waitFor } from "../helpers/kernel-children.js";
import { type SwapWorld, startSwapWorld } from "./swap-world.js";

const uid = process.getuid?.() ?? -1;
const linux = process.platform === "linux";
let world: SwapWorld | null = null;

test.before.each(async () => {
  world = await startSwapWorld();
});
test.after.each(async () => {
  await world?.close();
  world = null;
});

function w(): SwapWorld {
  if (world === null) throw new Error("no world");
  return world;
}

test("straight: every peer check passes, the socket is ours and nothing was written", async () => {
  const facts = socketFacts(w().path);
  const self = processFacts(process.pid);
  // The listener processes are our children: the test process plays the TUI.
  const r = await connectProven(w().path, {
    socket: facts,
    uid,
    tui: { pid: self.pid, identity: self.identity },
  });
  assert.ok(r.ok, JSON.stringify(r.ok ? null : r.failed));
  if (!r.ok) return;
  const names = r.checks.map((c) => c.check);
  assert.equal(names, [
    "connect.peer_listener",
    "connect.peer_uid",
    ...(linux ? ["connect.peer_socket_file"] : []),
    "connect.peer_identity",
    "connect.peer_parent",
  ]);
  assert.ok(r.checks.every((c) => c.ok));
  assert.ok(!r.socket.destroyed);
  await waitFor(
    "the real listener to accept",
    async () => (await w().counts()).real.connections === 1,
  );
  r.socket.write("x");
  await waitFor("our byte to arrive", async () => (await w().counts()).real.bytes === 1);
  r.socket.destroy();
});

test("a path renamed to another listener after the socket proof: refused, no byte written", async () => {
  const facts = socketFacts(w().path);
  w().swap();
  const r = await connectProven(w().path, { socket: facts, uid });
  assert.not.ok(r.ok);
  if (r.ok) return;
  assert.is(r.code, "SOCKET_UNPROVEN");
  assert.is(r.failed.check, "connect.peer_listener");
  assert.is(r.failed.received, w().other.pid);
  const failing = r.checks.filter((c) => !c.ok).map((c) => c.check);
  if (linux) assert.ok(failing.includes("connect.peer_socket_file"), failing.join());
  await waitFor("the other listener to see our connect", async () => {
    return (await w().counts()).other.connections === 1;
  });
  const counts = await w().counts();
  assert.equal(counts.other, { connections: 1, bytes: 0 }, "the connect reached it, no byte did");
  assert.equal(counts.real, { connections: 0, bytes: 0 });
});

test("a peer that is not the child of a live TUI: LEADER_UNPROVEN at connect.peer_parent", async () => {
  const tui = spawn("sleep", ["30"], { stdio: "ignore" });
  try {
    const pid = tui.pid ?? 0;
    await waitFor("sleep to exec", () => processFacts(pid).executable?.endsWith("sleep") === true);
    const r = await connectProven(w().path, {
      socket: socketFacts(w().path),
      uid,
      tui: { pid, identity: processFacts(pid).identity },
    });
    assert.not.ok(r.ok);
    if (r.ok) return;
    assert.is(r.code, "LEADER_UNPROVEN");
    assert.is(r.failed.check, "connect.peer_parent");
    assert.is(r.failed.expected, pid);
    assert.is(r.failed.received, process.pid);
    assert.is((await w().counts()).real.bytes, 0);
  } finally {
    tui.kill("SIGKILL");
  }
});

test("nobody listens on the path: LEADER_CONNECT_FAILED at connect.socket, with the cause", async () => {
  const facts = socketFacts(w().path);
  const r = await connectProven(`${w().dir}/absent.sock`, { socket: facts, uid });
  assert.not.ok(r.ok);
  if (r.ok) return;
  assert.is(r.code, "LEADER_CONNECT_FAILED");
  assert.is(r.failed.check, "connect.socket");
  assert.is(r.failed.received, "CONNECT_FAILED");
  assert.ok(r.cause instanceof Error);
});

test.run();
