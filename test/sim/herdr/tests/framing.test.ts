// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
// The socket's framing and connection model (src/api/server.rs handle_connection,
// read_initial_request_line_with_limits), over raw sockets. Herdr reads the request line byte by
// byte and never past it; closing a unix socket with unread input resets the peer
// (net/unix/af_unix.c unix_release_sock), so a client that sent more than the line reads the reply
// and then ECONNRESET, where a well-behaved one reads EOF.
import { statSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type HerdrSimHandle, herdrPreset, startHerdrSim } from "../../../helpers/herdr-sim.js";
import { exchange, kernelExchange, rpc } from "./support.js";

let sim: HerdrSimHandle;

test.before(async () => {
  sim = await startHerdrSim();
});

test.after(async () => {
  await sim.stop();
});

const PING = `{"id":"req_ping","method":"ping","params":{}}`;

test("the socket is a unix socket with mode 0600", () => {
  const st = statSync(sim.socketPath);
  assert.ok(st.isSocket());
  assert.is(st.mode & 0o777, 0o600);
});

/** The pong line of each preset (0.8.0: the golden line; 0.9.3: the publicly quoted one). */
const PONG: Record<string, string> = {
  "0.8.0": `{"id":"req_ping","result":{"type":"pong","version":"0.8.0","protocol":19,"capabilities":{"live_handoff":true,"detached_server_daemon":true}}}\n`,
  "0.9.3": `{"id":"req_ping","result":{"type":"pong","version":"0.9.3","protocol":22,"capabilities":{"live_handoff":true,"detached_server_daemon":true,"endpoint_protocol_generation":1,"surface_interest":true,"health_check":true,"ssh_agent_registration":true}}}\n`,
};

test("ping answers the golden pong line, then the server closes: EOF, not a reset", async () => {
  const r = await exchange(sim.socketPath, `${PING}\n`);
  assert.is(r.data, PONG[herdrPreset()]);
  assert.ok(r.closed);
  assert.is(r.error, null);
  const k = await kernelExchange(sim.socketPath, `${PING}\n`);
  assert.is(k.end, "EOF");
});

test("one request per connection: a second line is never read, and the close resets the client", async () => {
  const r = await kernelExchange(
    sim.socketPath,
    `${PING}\n{"id":"second","method":"ping","params":{}}\n`,
  );
  assert.is(r.data.split("\n").filter((l) => l !== "").length, 1);
  assert.ok(r.data.startsWith(`{"id":"req_ping"`));
  assert.is(r.end, "ECONNRESET", "the second line was left unread in the server's socket");
});

test("any byte after the request line resets the connection after the reply", async () => {
  for (const tail of ["x", "\n", " "]) {
    const r = await kernelExchange(sim.socketPath, `${PING}\n${tail}`);
    assert.ok(r.data.startsWith(`{"id":"req_ping","result":{"type":"pong"`), JSON.stringify(tail));
    assert.is(r.end, "ECONNRESET", JSON.stringify(tail));
  }
  // a parse error is answered the same way
  const bad = await kernelExchange(sim.socketPath, `{"id":7}\nmore`);
  assert.ok(bad.data.startsWith(`{"id":"","error":{"code":"invalid_request"`));
  assert.is(bad.end, "ECONNRESET");
  // a Node client reads the reply either way, then an end or a reset (libuv decides)
  const node = await exchange(sim.socketPath, `${PING}\nx`);
  assert.ok(node.data.startsWith(`{"id":"req_ping","result":{"type":"pong"`));
  assert.ok(node.error === null || node.error === "ECONNRESET", String(node.error));
});

test("no reply for an empty line, a blank line, or EOF without a newline", async () => {
  for (const payload of ["\n", "   \t \r\n", PING]) {
    const r = await exchange(sim.socketPath, payload, { halfClose: true });
    assert.is(r.data, "", JSON.stringify(payload));
    assert.ok(r.closed);
  }
});

test("a half-close after an ordinary request is harmless", async () => {
  const r = await exchange(sim.socketPath, `${PING}\n`, { halfClose: true });
  assert.ok(r.data.startsWith(`{"id":"req_ping","result":{"type":"pong"`));
});

test("more than 1 MiB without a newline: dropped without a word", async () => {
  // Herdr reads exactly 1 MiB + 1 bytes, then drops: nothing was left unread, a plain close.
  const r = await exchange(sim.socketPath, Buffer.alloc(1024 * 1024 + 1, 0x20));
  assert.is(r.data, "");
  assert.ok(r.closed);
  const exact = await kernelExchange(sim.socketPath, Buffer.alloc(1024 * 1024 + 1, 0x20));
  assert.is(exact.end, "EOF");
  // More than that was sent: the rest stays unread and the client is reset.
  const more = await exchange(sim.socketPath, Buffer.alloc(1024 * 1024 + 4096, 0x20));
  assert.is(more.data, "");
  assert.ok(
    more.error === "ECONNRESET" || more.error === "EPIPE",
    `reset while reading or writing, got ${more.error}`,
  );
});

test("exactly 1 MiB before the newline is still read", async () => {
  const head = `{"id":"big","method":"ping","params":{},"pad":"`;
  const line = `${head}${"x".repeat(1024 * 1024 - head.length - 2)}"}`;
  assert.is(Buffer.byteLength(line), 1024 * 1024);
  const r = await exchange(sim.socketPath, `${line}\n`);
  assert.ok(r.data.startsWith(`{"id":"big","result":{"type":"pong"`), r.data.slice(0, 80));
});

test("invalid UTF-8: dropped without a word", async () => {
  const r = await exchange(sim.socketPath, Buffer.from([0xff, 0xfe, 0x0a]));
  assert.is(r.data, "");
  assert.ok(r.closed);
});

test("a request that does not arrive in time is dropped without a word", async () => {
  await sim.configure({ requestTimeoutMs: 200 });
  try {
    const r = await exchange(sim.socketPath, `{"id":"slow"`, { timeoutMs: 5000 });
    assert.is(r.data, "");
    assert.ok(r.closed, "the server closed the idle connection");
  } finally {
    await sim.configure({ requestTimeoutMs: 5000 });
  }
});

test('parse errors answer id "" and invalid_request', async () => {
  const missing = await exchange(sim.socketPath, `{"id":"x","method":"ping"}\n`);
  assert.is(
    missing.data,
    `{"id":"","error":{"code":"invalid_request","message":"invalid request: missing field \`params\` at line 1 column 26"}}\n`,
  );
  const r = await exchange(sim.socketPath, `{"id":7,"method":"ping","params":{}}\n`);
  assert.is(
    r.data,
    `{"id":"","error":{"code":"invalid_request","message":"invalid request: invalid type: integer \`7\`, expected a string at line 1 column 7"}}\n`,
  );
});

test("unknown top-level keys and params keys are ignored", async () => {
  const r = await exchange(
    sim.socketPath,
    `{"jsonrpc":"2.0","id":"k","method":"ping","params":{"x":1}}\n`,
  );
  assert.ok(r.data.startsWith(`{"id":"k","result":{"type":"pong"`));
});

test("an unknown pane: the golden pane_not_found line", async () => {
  assert.is(
    await rpc(sim.socketPath, "req_x", "pane.get", { pane_id: "w1:p9" }),
    `{"id":"req_x","error":{"code":"pane_not_found","message":"pane w1:p9 not found"}}`,
  );
});

test("methods Herdr has but the simulator does not model say so", async () => {
  assert.is(
    await rpc(sim.socketPath, "n", "pane.zoom", {}),
    `{"id":"n","error":{"code":"not_simulated","message":"herdr-sim does not simulate pane.zoom"}}`,
  );
});

test.run();
