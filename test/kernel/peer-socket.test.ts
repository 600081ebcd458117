import { spawnSync } from "node:child_process";
import { renameSync } from "node:fs";
import { Socket } from "node:net";
import { constants } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { KernelError } from "../../lib/kernel/kernel-error.js";
import { peerBoundTo, peerSocketFile } from "../../lib/kernel/peer-socket.js";
import { socketFacts } from "../../lib/kernel/socket.js";
import {
  cleanup,
  connectUnix,
  haveCommand,
  lineFrom,
  linuxOnly,
  spawnChild,
  spawnListener,
  tempDir,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the peer socket file tests");

/** `ss -xe` for one sockfs inode: the `ino:` and `dev:` of the file it is bound to. */
function ssVfs(sockInode: string): { ino: string; dev: string } | null {
  const out = spawnSync("ss", ["-xeaH"], { encoding: "utf8" }).stdout;
  for (const line of out.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields[5] !== sockInode) continue;
    const m = /ino:(\d+) dev:(\d+)\/(\d+)/.exec(line);
    if (m) return { ino: m[1] ?? "", dev: `${m[2]}/${m[3]}` };
  }
  return null;
}

linuxTest(
  "the accepted socket on the other side is bound to the file we lstat'ed (ss -xe agrees)",
  async () => {
    const dir = tempDir("vfs");
    const path = join(dir, "s.sock");
    await spawnListener(path);
    const facts = socketFacts(path);
    const sock = await connectUnix(path, { accepted: true });
    const peer = peerSocketFile(sock);
    assert.ok(peer.file, "the peer is bound to a file");
    assert.is(peer.file.device, facts.device);
    assert.is(BigInt(peer.file.inode32), BigInt(facts.inode) & 0xffffffffn);
    assert.is(peerBoundTo(peer, facts), true);
    if (!haveCommand("ss")) {
      console.log("SKIP (oracle): ss is not installed");
      return;
    }
    const oracle = ssVfs(peer.peerSocketInode);
    assert.ok(oracle, `ss -xe lists sockfs inode ${peer.peerSocketInode}`);
    assert.is(oracle.ino, String(peer.file.inode32));
    // ss applies glibc's major()/minor() to the raw kernel value (major<<20|minor), so for
    // 254:0 it prints "0/65024". Re-encode our user-space st_dev the kernel's way, decode like ss.
    const glibcMajor = (d: bigint): bigint => ((d >> 8n) & 0xfffn) | ((d >> 32n) & ~0xfffn);
    const glibcMinor = (d: bigint): bigint => (d & 0xffn) | ((d >> 12n) & ~0xffn);
    const user = BigInt(facts.device);
    const kernel = (glibcMajor(user) << 20n) | glibcMinor(user);
    assert.is(oracle.dev, `${glibcMajor(kernel)}/${glibcMinor(kernel)}`);
  },
);

linuxTest("a file swapped in after connect() no longer matches the peer", async () => {
  const dir = tempDir("swap");
  const path = join(dir, "s.sock");
  await spawnListener(path);
  const sock = await connectUnix(path, { accepted: true });
  renameSync(path, join(dir, "old.sock"));
  await spawnListener(path);
  const peer = peerSocketFile(sock);
  assert.is(peerBoundTo(peer, socketFacts(path)), false, "the path now names another inode");
  assert.is(peerBoundTo(peer, socketFacts(join(dir, "old.sock"))), true);
});

linuxTest("a socketpair peer (spawn stdio) is bound to no file", () => {
  const child = spawnChild("sleep", ["30"]);
  assert.ok(child.stdout instanceof Socket);
  const peer = peerSocketFile(child.stdout);
  assert.is(peer.file, null);
  assert.is(peerBoundTo(peer, { device: "1", inode: "1" }), false);
});

linuxTest(
  "before the server accept()s, the peer has no inode yet: EAGAIN, not a wrong answer",
  async () => {
    const dir = tempDir("embryo");
    const path = join(dir, "s.sock");
    const py =
      "import socket, sys, time\ns = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); print('READY', flush=True); time.sleep(30)";
    const child = spawnChild("/usr/bin/python3", ["-c", py, path]);
    await lineFrom(child, /(READY)/);
    const sock = await connectUnix(path);
    try {
      peerSocketFile(sock);
      assert.unreachable("an unaccepted connection has no peer socket file");
    } catch (err) {
      assert.ok(err instanceof KernelError, String(err));
      assert.is(err.code, "SYSCALL_FAILED");
      assert.is(err.errno, constants.errno.EAGAIN);
    }
  },
);

test.run();
