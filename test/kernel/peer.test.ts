import { chmodSync, closeSync, openSync } from "node:fs";
import { connect, createServer, Socket } from "node:net";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { peerCredentials, peerCredentialsOfFd } from "../../lib/kernel/peer.js";
import { processFacts } from "../../lib/kernel/process.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import {
  bootId,
  cleanup,
  exited,
  lineFrom,
  linuxOnly,
  onCleanup,
  pidExists,
  probeAsNobody,
  pythonPidfsInode,
  spawnChild,
  spawnListener,
  tempDir,
  waitFor,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the peer credential tests");

function connected(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(path, () => resolve(s));
    s.on("error", reject);
    onCleanup(() => s.destroy());
  });
}

const codeOf = (fn: () => unknown): string => codeOfError(fn, "OK");

linuxTest(
  "connecting to a child's listener: the child is the peer, with processFacts' identity",
  async () => {
    const dir = tempDir("peer");
    const path = join(dir, "s.sock");
    const child = await spawnListener(path);
    const sock = await connected(path);
    const peer = peerCredentials(sock);
    const pid = child.pid ?? 0;
    assert.is(peer.pid, pid);
    assert.is(peer.uid, 0);
    assert.is(peer.gid, 0);
    assert.is(peer.method, "SO_PEERPIDFD");
    assert.equal(peer.identity, processFacts(pid).identity);
    assert.equal(peer.identity, {
      kind: "linux-pidfs",
      value: `${bootId()}:${pythonPidfsInode(pid)}`,
    });
  },
);

linuxTest("the server side sees the connecting child as peer", async () => {
  const dir = tempDir("srv");
  const path = join(dir, "s.sock");
  const accepted = new Promise<Socket>((resolve) => {
    const server = createServer((c) => resolve(c));
    server.listen(path);
    onCleanup(() => server.close());
  });
  await new Promise((r) => setTimeout(r, 0));
  const child = spawnChild(process.execPath, [
    "-e",
    `const s=require("net").connect(${JSON.stringify(path)},()=>console.log("CONNECTED"));setTimeout(()=>{},30000)`,
  ]);
  await lineFrom(child, /(CONNECTED)/);
  const c = await accepted;
  onCleanup(() => c.destroy());
  const peer = peerCredentials(c);
  assert.is(peer.pid, child.pid);
  assert.equal(peer.identity, processFacts(child.pid ?? 0).identity);
});

linuxTest(
  "after the peer exits, SO_PEERPIDFD still names the original process, never a newcomer",
  async () => {
    const dir = tempDir("gone");
    const path = join(dir, "s.sock");
    // The listener forks a child that keeps the accepted connection open, then exits itself:
    // our socket stays connected while the process SO_PEERCRED names is gone.
    const py = [
      "import os, socket, sys, time",
      "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); print('READY', flush=True)",
      "c, _ = s.accept()",
      "pid = os.fork()",
      "if pid: print('HOLDER', pid, flush=True); os._exit(0)",
      "time.sleep(30)",
    ].join("\n");
    const child = spawnChild("/usr/bin/python3", ["-c", py, path]);
    await lineFrom(child, /(READY)/);
    const holderLine = lineFrom(child, /HOLDER (\d+)/);
    const sock = await connected(path);
    const holder = Number(await holderLine);
    onCleanup(() => process.kill(holder, "SIGKILL"));
    await exited(child);
    await waitFor("the listener to be reaped", () => !pidExists(child.pid ?? 0));
    const after = peerCredentials(sock);
    assert.is(after.pid, child.pid, "SO_PEERCRED keeps the (now stale) pid");
    assert.ok(after.pid !== holder);
    // On 6.5-6.8 the kernel may refuse a pidfd for a dead peer; then no identity is claimed.
    if (after.identity !== null) {
      assert.is(after.identity.kind, "linux-pidfs");
      assert.is.not(after.identity.value, `${bootId()}:${pythonPidfsInode(holder)}`);
    }
  },
);

const ProbePeer = v.object({
  ok: v.boolean(),
  code: v.optional(v.string()),
  value: v.optional(
    v.object({
      pid: v.number(),
      uid: v.number(),
      identity: v.nullable(v.object({ kind: v.string(), value: v.string() })),
    }),
  ),
});

linuxTest(
  "an unprivileged client proves which root process listens (SO_PEERPIDFD across uids)",
  async () => {
    const dir = tempDir("xuid");
    chmodSync(dir, 0o755);
    const path = join(dir, "s.sock");
    const child = await spawnListener(path); // chmods the socket 0777 so nobody may connect
    const seen = v.parse(ProbePeer, probeAsNobody(["peer", path]));
    assert.is(seen.ok, true, JSON.stringify(seen));
    assert.is(seen.value?.pid, child.pid);
    assert.is(seen.value?.uid, 0);
    assert.equal(seen.value?.identity, processFacts(child.pid ?? 0).identity);
  },
);

linuxTest(
  "a spawn stdio pipe is a socketpair: the peer is the child holding the other end",
  async () => {
    const child = spawnChild("sleep", ["30"]);
    const stdout = child.stdout;
    assert.ok(stdout instanceof Socket, "libuv makes stdio pipes from a socketpair");
    // The socketpair's credentials are the creator's: our own process made both ends.
    const peer = peerCredentials(stdout);
    assert.is(peer.pid, process.pid);
  },
);

linuxTest("closed sockets, non-sockets and bad fds are INVALID_ARGUMENT", async () => {
  const dir = tempDir("bad");
  const path = join(dir, "s.sock");
  await spawnListener(path);
  const sock = await connected(path);
  sock.destroy();
  assert.is(
    codeOf(() => peerCredentials(sock)),
    "INVALID_ARGUMENT",
  );
  const fd = openSync("/dev/null", "r");
  assert.is(
    codeOf(() => peerCredentialsOfFd(fd)),
    "INVALID_ARGUMENT",
    "ENOTSOCK",
  );
  closeSync(fd);
  assert.is(
    codeOf(() => peerCredentialsOfFd(fd)),
    "INVALID_ARGUMENT",
    "EBADF",
  );
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 40]) {
    assert.is(
      codeOf(() => peerCredentialsOfFd(bad)),
      "INVALID_ARGUMENT",
      String(bad),
    );
  }
});

test.run();
