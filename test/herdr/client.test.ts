import { mkdtempSync, readFileSync, readSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { GrokSeatError, WireError } from "../../lib/errors.js";
import { HerdrClient, parseReply } from "../../lib/herdr/client.js";
import { HerdrError } from "../../lib/herdr/herdr-error.js";
import type { HerdrMethod } from "../../lib/herdr/methods.js";
import {
  LayoutApplyResultSchema,
  OkResultSchema,
  PaneListResultSchema,
  PaneProcessInfoResultSchema,
  PongSchema,
  SubscriptionStartedSchema,
} from "../../lib/herdr/wire-envelope.js";
import { parseEventLine } from "../../lib/herdr/wire-events.js";
import { type FakeConn, startFakeHerdr, until } from "./fake-server.js";

const fixtures = join(import.meta.dirname, "..", "fixtures", "herdr");
const WireGolden = v.object({ provenance: v.string(), lines: v.record(v.string(), v.string()) });
const wire = v.parse(
  WireGolden,
  JSON.parse(readFileSync(join(fixtures, "wire-golden.json"), "utf8")),
);
function line(name: string): string {
  const l = wire.lines[name];
  if (l === undefined) throw new Error(`no golden line ${name}`);
  return l;
}
/** A golden line re-addressed to the request's id, byte-identical otherwise. */
function answerWith(conn: FakeConn, name: string): void {
  const golden = JSON.parse(line(name));
  conn.reply({ ...golden, id: conn.request?.id });
}

async function codeOf(p: Promise<unknown>): Promise<{ code: string; err: unknown }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof GrokSeatError) return { code: err.code, err };
    throw err;
  }
  throw new Error("expected a rejection");
}

test("golden wire lines parse with their schemas", () => {
  const id = (l: string): string => String(JSON.parse(l).id);
  assert.is(parseReply(line("pong"), id(line("pong")), "ping", PongSchema).version, "0.8.0");
  parseReply(line("ok"), "req_ok", "x", OkResultSchema);
  parseReply(line("subscription_started"), "sub1", "events.subscribe", SubscriptionStartedSchema);
  const list = parseReply(line("pane_list"), "req_list", "pane.list", PaneListResultSchema);
  assert.equal(
    list.panes.map((p) => p.pane_id),
    ["w1:p1", "w1:p2"],
  );
  const info = parseReply(
    line("pane_process_info"),
    "req_process_info",
    "pane.process_info",
    PaneProcessInfoResultSchema,
  );
  assert.is(info.process_info.shell_pid, 48211);
  assert.is(info.process_info.tty, undefined);
  const layout = parseReply(
    line("layout_apply"),
    "launch-1",
    "layout.apply",
    LayoutApplyResultSchema,
  );
  assert.is(layout.layout.root.type, "pane");
  const exited = parseEventLine(JSON.parse(line("pane_exited")));
  assert.equal(exited?.shape, "lifecycle");
  assert.equal(exited?.data.pane_id, "w1:p2");
  assert.is(parseEventLine(JSON.parse(line("pane_agent_detected")))?.event, "pane_agent_detected");
});

test("one request per connection, string id, params always present", async () => {
  const fake = await startFakeHerdr((conn) => answerWith(conn, "pong"));
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const pong = await client.request("ping", {});
    assert.is(pong.protocol, 19);
    assert.is(pong.capabilities?.live_handoff, true);
    await client.request("ping", {});
    assert.is(fake.conns.length, 2);
    for (const c of fake.conns) {
      assert.type(c.request?.id, "string");
      assert.is(c.request?.method, "ping");
      assert.equal(c.request?.params, {});
      assert.is(c.line.includes("\n"), false);
    }
    assert.is.not(fake.conns[0]?.request?.id, fake.conns[1]?.request?.id);
  } finally {
    await fake.stop();
  }
});

test("Herdr error bodies become WireError with the Herdr code", async () => {
  const fake = await startFakeHerdr((conn) => {
    if (conn.request?.method === "pane.get") answerWith(conn, "pane_not_found");
    else conn.reply(JSON.parse(line("invalid_request")));
  });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const a = await codeOf(client.request("pane.get", { pane_id: "w1:p9" }));
    assert.ok(a.err instanceof WireError);
    assert.is(a.code, "pane_not_found");
    assert.is((a.err as WireError).peer, "herdr");
    const b = await codeOf(client.request("pane.list", {}));
    assert.is(b.code, "invalid_request");
    assert.equal(fake.conns[1]?.request?.params, {});
  } finally {
    await fake.stop();
  }
});

test("a server that never answers times out; nothing hangs", async () => {
  const fake = await startFakeHerdr(() => {});
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath, timeoutMs: 150 });
    assert.is(
      (await codeOf(client.request("pane.get", { pane_id: "w1:p1" }))).code,
      "HERDR_TIMEOUT",
    );
    const sub = client.subscribe([{ type: "pane.exited" }]);
    assert.is((await codeOf(sub)).code, "HERDR_TIMEOUT");
  } finally {
    await fake.stop();
  }
});

test("malformed, oversized, mismatched and early-closed replies are typed errors", async () => {
  const fake = await startFakeHerdr((conn) => {
    const mode = String(
      conn.request?.params && (conn.request.params as { pane_id?: string }).pane_id,
    );
    if (mode === "garbage") conn.writeRaw("not json\n");
    else if (mode === "huge") conn.writeRaw(Buffer.alloc(64 * 1024, 0x61));
    else if (mode === "huge-line") conn.writeRaw(`${"b".repeat(5000)}\n`);
    else if (mode === "wrong-id") conn.reply({ ...JSON.parse(line("ok")), id: "someone-else" });
    else if (mode === "wrong-type") answerWith(conn, "pong");
    else if (mode === "close") conn.socket.destroy();
    else if (mode === "partial") {
      conn.writeRaw('{"id":"x","res');
      conn.socket.end();
    } else if (mode === "bad-utf8") conn.writeRaw(Buffer.from([0xff, 0xfe, 0x0a]));
  });
  try {
    const client = new HerdrClient({
      socketPath: fake.socketPath,
      maxLineBytes: 4096,
      timeoutMs: 2000,
    });
    const get = (pane_id: string): Promise<unknown> => client.request("pane.get", { pane_id });
    assert.is((await codeOf(get("garbage"))).code, "HERDR_REPLY_MALFORMED");
    assert.is((await codeOf(get("huge"))).code, "HERDR_REPLY_TOO_LARGE");
    assert.is((await codeOf(get("huge-line"))).code, "HERDR_REPLY_TOO_LARGE");
    assert.is((await codeOf(get("wrong-id"))).code, "HERDR_REPLY_MISMATCH");
    assert.is((await codeOf(get("wrong-type"))).code, "HERDR_REPLY_INVALID");
    assert.is((await codeOf(get("close"))).code, "HERDR_CLOSED_EARLY");
    assert.is((await codeOf(get("partial"))).code, "HERDR_CLOSED_EARLY");
    assert.is((await codeOf(get("bad-utf8"))).code, "HERDR_REPLY_MALFORMED");
  } finally {
    await fake.stop();
  }
});

test("no socket: HERDR_CONNECT_FAILED", async () => {
  const client = new HerdrClient({ socketPath: "/nonexistent/gs/herdr.sock" });
  const r = await codeOf(client.request("ping", {}));
  assert.is(r.code, "HERDR_CONNECT_FAILED");
  assert.is((r.err as GrokSeatError).context.errno, "ENOENT");
});

test("injection methods cannot be sent, even behind a cast; nothing is connected", async () => {
  const fake = await startFakeHerdr((conn) => answerWith(conn, "ok"));
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    for (const m of [
      "pane.send_text",
      "pane.send_keys",
      "pane.send_input",
      "agent.start",
      "agent.prompt",
    ]) {
      const r = await codeOf(client.request(m as HerdrMethod, {} as never));
      assert.is(r.code, "HERDR_METHOD_FORBIDDEN");
    }
    assert.is(fake.accepted, 0);
  } finally {
    await fake.stop();
  }
});

test("the gate runs on every connection but ping's, before the line is written", async () => {
  const fake = await startFakeHerdr((conn) =>
    answerWith(conn, conn.request?.method === "ping" ? "pong" : "pane_list"),
  );
  try {
    const seen: string[] = [];
    const client = new HerdrClient({
      socketPath: fake.socketPath,
      gate: (_socket, { method, socketPath }) => {
        seen.push(`${method}@${socketPath === fake.socketPath}`);
        if (method !== "pane.list") throw new HerdrError("HERDR_UNTRUSTED", "not ours");
      },
    });
    await client.request("ping", {});
    await client.request("pane.list", {});
    assert.is(
      (await codeOf(client.request("pane.get", { pane_id: "w1:p1" }))).code,
      "HERDR_UNTRUSTED",
    );
    assert.is((await codeOf(client.subscribe([{ type: "pane.exited" }]))).code, "HERDR_UNTRUSTED");
    assert.equal(
      seen,
      ["pane.list@true", "pane.get@true", "events.subscribe@true"],
      "ping is not gated",
    );
    await until(() => fake.accepted === 4);
    assert.equal(
      fake.conns.map((c) => c.request?.method),
      ["ping", "pane.list"],
      "a refused connection never carried its request",
    );
  } finally {
    await fake.stop();
  }
});

test("a request over Herdr's 1 MiB line limit is refused before sending", async () => {
  const fake = await startFakeHerdr((conn) => answerWith(conn, "ok"));
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const r = await codeOf(client.request("pane.get", { pane_id: "x".repeat(1024 * 1024) }));
    assert.is(r.code, "HERDR_REQUEST_TOO_LARGE");
    assert.is(fake.accepted, 0);
  } finally {
    await fake.stop();
  }
});

test("subscription: never writes after the request, never half-closes; close destroys", async () => {
  let streamConn: FakeConn | null = null;
  const fake = await startFakeHerdr((conn) => {
    streamConn = conn;
    // Acknowledgement and the first event in one write: the client must split them.
    conn.writeRaw(
      `${JSON.stringify({ id: conn.request?.id, result: { type: "subscription_started" } })}\n${line("pane_exited")}\n`,
    );
  });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const sub = await client.subscribe([{ type: "pane.exited" }, { type: "pane.closed" }]);
    const first = await sub.next();
    assert.is(first?.event, "pane_exited");
    const sc = streamConn as FakeConn | null;
    if (sc === null) throw new Error("no stream connection");
    assert.equal(sc.request?.params, {
      subscriptions: [{ type: "pane.exited" }, { type: "pane.closed" }],
    });
    // Push more events over time while the client holds the stream open.
    for (let i = 0; i < 5; i++) {
      sc.writeRaw(`${line("pane_agent_detected")}\n`);
      const ev = await sub.next();
      assert.is(ev?.event, "pane_agent_detected");
    }
    await new Promise((r) => setTimeout(r, 150)); // a Herdr probe interval (100 ms) with the stream idle
    assert.is(sc.extraBytes(), 0, "client wrote after its request line");
    assert.is(sc.sawEof(), false, "client half-closed its side");
    sub.close();
    await until(() => sc.sawEof() || sc.socket.destroyed, 2000, "server to see the close");
    assert.is(sc.extraBytes(), 0);
    assert.equal(await sub.ended, { reason: "closed" });
    assert.is(await sub.next(), null);
  } finally {
    await fake.stop();
  }
});

test("subscription: refused subscribe, bad pushed line, server end", async () => {
  const fake = await startFakeHerdr((conn) => {
    const params = conn.request?.params as { subscriptions?: { pane_id?: string }[] } | undefined;
    const pane = params?.subscriptions?.[0]?.pane_id;
    if (pane === "w1:p9") return answerWith(conn, "pane_not_found");
    conn.reply({ id: conn.request?.id, result: { type: "subscription_started" } });
    if (pane === "bad") conn.writeRaw('{"event":"pane.exited"}\n');
    if (pane === "end") {
      conn.writeRaw(`${line("pane_exited")}\n`);
      conn.socket.end();
    }
  });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const status = (pane_id: string) =>
      client.subscribe([{ type: "pane.agent_status_changed", pane_id }]);
    assert.is((await codeOf(status("w1:p9"))).code, "pane_not_found");
    const bad = await status("bad");
    assert.is((await codeOf(bad.next())).code, "HERDR_REPLY_MALFORMED");
    assert.is((await bad.ended).reason, "error");
    const ended = await status("end");
    const seen: string[] = [];
    for await (const ev of ended) seen.push(ev.event);
    assert.equal(seen, ["pane_exited"]);
    assert.equal(await ended.ended, { reason: "server_closed" });
  } finally {
    await fake.stop();
  }
});

test("subscription: a Herdr error line on the stream ends it as a WireError with that code", async () => {
  // herdrdev/herdr PR #4225 proposes `events_lost`: the error body with the request id, then
  // close. Any code, known or not, is Herdr's error by name, never a malformed event.
  const fake = await startFakeHerdr((conn) => {
    const params = conn.request?.params as { subscriptions?: { pane_id?: string }[] } | undefined;
    const code = params?.subscriptions?.[0]?.pane_id ?? "";
    const id = code === "foreign" ? "someone-else" : conn.request?.id;
    conn.writeRaw(
      `${JSON.stringify({ id: conn.request?.id, result: { type: "subscription_started" } })}\n${line("pane_exited")}\n${JSON.stringify({ id, error: { code, message: "gone" } })}\n`,
    );
    conn.socket.destroy();
  });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    for (const code of ["events_lost", "never_seen_before"]) {
      const sub = await client.subscribe([{ type: "pane.agent_status_changed", pane_id: code }]);
      assert.is((await sub.next())?.event, "pane_exited");
      const { err } = await codeOf(sub.next());
      assert.ok(err instanceof WireError, String(err));
      assert.is(err.peer, "herdr");
      assert.is(err.code, code);
      const end = await sub.ended;
      assert.ok(end.reason === "error" && end.error.code === code);
    }
    const foreign = await client.subscribe([
      { type: "pane.agent_status_changed", pane_id: "foreign" },
    ]);
    await foreign.next();
    assert.is((await codeOf(foreign.next())).code, "HERDR_REPLY_MISMATCH");
  } finally {
    await fake.stop();
  }
});

/**
 * A server that reads only the start of the request line (up to its id) and leaves the rest
 * unread, answers, and closes: the unread input makes the kernel reset the client after the reply
 * (net/unix/af_unix.c unix_release_sock), as real Herdr does when it closes with unread input.
 */
async function resettingServer(
  answer: (id: string) => string,
): Promise<{ socketPath: string; resets: () => number; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "gs-rst-"));
  const socketPath = join(dir, "herdr.sock");
  let unread = 0;
  const server = createServer({ pauseOnConnect: true }, (socket) => {
    socket.on("error", () => {});
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd ?? -1;
    let head = "";
    const one = Buffer.alloc(1);
    const step = (): void => {
      for (;;) {
        const m = /^\{"id":"([^"]*)"/.exec(head);
        if (m !== null) {
          // Close a moment after the reply, so the client reads it first and then the reset
          // (libuv reports a plain EOF when the hang-up arrives with the last data).
          socket.write(answer(m[1] ?? ""), () => {
            unread += 1; // the rest of the line is still in the kernel
            setTimeout(() => socket.destroy(), 20);
          });
          return;
        }
        try {
          if (readSync(fd, one, 0, 1, null) === 0) return void socket.destroy();
        } catch {
          setTimeout(step, 2);
          return;
        }
        head += one.toString("latin1");
      }
    };
    step();
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    resets: () => unread,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test("a reply line followed by a reset (the server closed with unread input) is a success", async () => {
  const pong = (id: string) => `${JSON.stringify({ ...JSON.parse(line("pong")), id })}\n`;
  const server = await resettingServer(pong);
  try {
    const client = new HerdrClient({ socketPath: server.socketPath });
    for (let i = 0; i < 20; i++) assert.is((await client.request("ping", {})).type, "pong");
    assert.is(server.resets(), 20);
  } finally {
    await server.stop();
  }
  const stream = (id: string) =>
    `${JSON.stringify({ id, result: { type: "subscription_started" } })}\n${line("pane_exited")}\n`;
  const events = await resettingServer(stream);
  try {
    const client = new HerdrClient({ socketPath: events.socketPath });
    for (let i = 0; i < 20; i++) {
      const sub = await client.subscribe([{ type: "pane.exited" }]);
      assert.is((await sub.next())?.event, "pane_exited");
      assert.is(await sub.next(), null);
      assert.equal(await sub.ended, { reason: "server_closed" });
    }
  } finally {
    await events.stop();
  }
});

test("lines before a bad line in the same chunk are delivered before the typed error", async () => {
  // Found by T7: the line buffer returned only the failure, so a reply or events that shared a
  // chunk with a bad line were lost, and delivery depended on how the kernel cut the bytes. One
  // write of a few hundred bytes on a unix socket arrives as one chunk.
  const fake = await startFakeHerdr((conn) => {
    const params = conn.request?.params as
      | { pane_id?: string; subscriptions?: { pane_id?: string }[] }
      | undefined;
    const mode = params?.pane_id ?? params?.subscriptions?.[0]?.pane_id;
    const bad = mode?.endsWith("long") ? `${"x".repeat(8192)}\n` : Buffer.from([0xc3, 0x28, 0x0a]);
    const head =
      conn.request?.method === "events.subscribe"
        ? `${JSON.stringify({ id: conn.request.id, result: { type: "subscription_started" } })}\n${line("pane_exited")}\n`
        : `${JSON.stringify({ ...JSON.parse(line("pane_process_info")), id: conn.request?.id })}\n`;
    conn.writeRaw(Buffer.concat([Buffer.from(head), Buffer.from(bad)]));
  });
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath, maxLineBytes: 4096 });
    for (const [mode, code] of [
      ["utf8", "HERDR_REPLY_MALFORMED"],
      ["long", "HERDR_REPLY_TOO_LARGE"],
    ] as const) {
      const info = await client.request("pane.process_info", { pane_id: mode });
      assert.is(info.type, "pane_process_info");
      const sub = await client.subscribe([{ type: "pane.agent_status_changed", pane_id: mode }]);
      const first = await sub.next();
      assert.is(first?.event, "pane_exited");
      assert.is((await codeOf(sub.next())).code, code);
      const end = await sub.ended;
      assert.ok(end.reason === "error" && end.error.code === code);
    }
  } finally {
    await fake.stop();
  }
});

test.run();
