/**
 * The session descriptor against real sockets: peer credentials name the listening process (the
 * kernel as oracle: `processFacts`, `lstat`), and a restarted server is a different descriptor.
 */
import { spawn } from "node:child_process";
import { lstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import { HerdrClient } from "../../lib/herdr/client.js";
import { processFacts, systemKernel } from "../../lib/kernel/index.js";
import { readSessionDescriptor } from "../../lib/observe/herdr-descriptor.js";
import { startFakeHerdr, until } from "../herdr/fake-server.js";

const pong = {
  type: "pong",
  version: "0.8.0",
  protocol: 19,
  capabilities: { live_handoff: true, detached_server_daemon: true },
};

test("descriptor: ping facts, socket dev+ino, and the listener's pid and identity", async () => {
  const fake = await startFakeHerdr((c) => c.reply({ id: c.request?.id, result: pong }));
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const d = await readSessionDescriptor(client, systemKernel, "default");
    const st = lstatSync(fake.socketPath, { bigint: true });
    assert.equal(d.socketFile, {
      device: String(st.dev),
      inode: String(st.ino),
      uid: Number(st.uid),
      mode: Number(st.mode & 0o7777n),
    });
    assert.equal([d.version, d.protocol], ["0.8.0", 19]);
    assert.equal(d.capabilities, { liveHandoff: true, detachedServerDaemon: true });
    // The fake listens in this very process.
    assert.is(d.server.pid, process.pid);
    assert.equal(d.server.identity, processFacts(process.pid).identity);
    assert.is(fake.conns.length, 1, "the ping connection is the peer-credential connection");
  } finally {
    await fake.stop();
  }
});

/** A one-file Herdr stand-in in another process, so a restart gives another pid and inode. */
const childServer = `
const net = require("node:net");
const path = process.argv[1];
net.createServer((s) => {
  let buf = "";
  s.on("data", (d) => {
    buf += d;
    const nl = buf.indexOf("\\n");
    if (nl < 0) return;
    const req = JSON.parse(buf.slice(0, nl));
    s.end(JSON.stringify({ id: req.id, result: ${JSON.stringify(pong)} }) + "\\n");
  });
}).listen(path, () => process.stdout.write("ready\\n"));
`;

async function startChild(path: string) {
  const child = spawn(process.execPath, ["-e", childServer, path], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  await until(() => out.includes("ready"), 5000, "child server");
  return child;
}

test("a restarted server (same path) is another descriptor: server pid and identity", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-herdr-restart-"));
  const path = join(dir, "herdr.sock");
  const first = await startChild(path);
  let second: Awaited<ReturnType<typeof startChild>> | null = null;
  try {
    const client = new HerdrClient({ socketPath: path });
    const a = await readSessionDescriptor(client, systemKernel, null);
    assert.is(a.server.pid, first.pid);
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    rmSync(path);
    second = await startChild(path);
    const b = await readSessionDescriptor(client, systemKernel, null);
    assert.is(b.server.pid, second.pid);
    // The inode may legitimately be reused after unlink (docs/design/kernel-proofs.md §2.4, pitfall 3):
    // the server's pid and pidfs identity are what tell the two servers apart.
    assert.is.not(b.server.pid, a.server.pid);
    assert.not.equal(b.server.identity, a.server.identity);
  } finally {
    first.kill("SIGKILL");
    second?.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a path that is not a socket is refused by name", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-herdr-notsock-"));
  try {
    const client = new HerdrClient({ socketPath: dir });
    try {
      await readSessionDescriptor(client, systemKernel, null);
      assert.unreachable();
    } catch (err) {
      assert.ok(err instanceof GrokSeatError);
      assert.is(err.code, "HERDR_NOT_A_SOCKET");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
