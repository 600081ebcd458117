import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type SocketFacts, socketFacts } from "../../lib/kernel/index.js";
import {
  checkPrivateSocket,
  checkSocketAddress,
  checkSocketDir,
  checkSocketUnreadable,
  octal,
} from "../../lib/proof/socket.js";
import { cleanup, exited, linuxOnly, spawnListener, tempDir } from "../helpers/kernel-children.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the private socket proof tests on real sockets");

const uid = process.getuid?.() ?? 0;

function failing(facts: SocketFacts): string[] {
  return checkPrivateSocket(facts, { uid })
    .filter((c) => !c.ok)
    .map((c) => c.check);
}

/** A private dir with a live listener: the one setup that must pass. */
async function privateSocket(): Promise<{ dir: string; path: string }> {
  const dir = join(tempDir("proof"), "d");
  mkdirSync(dir, { mode: 0o700 });
  const path = join(dir, "s.sock");
  await spawnListener(path);
  return { dir, path };
}

linuxTest(
  "a private socket with a live listener passes every check, with stable names",
  async () => {
    const { path } = await privateSocket();
    const checks = checkPrivateSocket(socketFacts(path), { uid });
    assert.equal(
      checks.map((c) => c.check),
      [
        "socket.dir_symlink",
        "socket.dir_type",
        "socket.dir_owner",
        "socket.dir_mode",
        "socket.type",
        "socket.owner",
        "socket.listener",
        "socket.listener_pid",
      ],
    );
    assert.ok(checks.every((c) => c.ok && c.reason === null));
  },
);

linuxTest("group or other bits on the directory fail socket.dir_mode, each alone", async () => {
  for (const mode of [0o755, 0o750, 0o710, 0o701, 0o770, 0o707]) {
    const { dir, path } = await privateSocket();
    chmodSync(dir, mode);
    const checks = checkPrivateSocket(socketFacts(path), { uid });
    assert.equal(failing(socketFacts(path)), ["socket.dir_mode"], octal(mode));
    assert.is(checks.find((c) => c.check === "socket.dir_mode")?.received, octal(mode));
    cleanup();
  }
});

linuxTest("a directory owned by another uid fails socket.dir_owner", async () => {
  const { dir, path } = await privateSocket();
  chownSync(dir, 65534, 65534);
  assert.equal(failing(socketFacts(path)), ["socket.dir_owner"]);
});

linuxTest("a symlinked directory fails socket.dir_symlink and socket.dir_type", async () => {
  const { dir, path } = await privateSocket();
  const alias = `${dir}-alias`;
  symlinkSync(dir, alias);
  // lstat of a symlink reports mode 0777, so the mode check fails with it.
  assert.equal(failing(socketFacts(join(alias, "s.sock"))), [
    "socket.dir_symlink",
    "socket.dir_type",
    "socket.dir_mode",
  ]);
  assert.equal(failing(socketFacts(path)), []);
});

linuxTest("a regular file or FIFO at the path fails socket.type (and has no listener)", () => {
  const dir = join(tempDir("types"), "d");
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, "file"), "");
  const none = ["socket.type", "socket.listener", "socket.listener_pid"];
  assert.equal(failing(socketFacts(join(dir, "file"))), none);
  spawnSync("mkfifo", [join(dir, "fifo")]);
  assert.equal(failing(socketFacts(join(dir, "fifo"))), none);
});

linuxTest("a socket owned by another uid fails socket.owner", async () => {
  const { path } = await privateSocket();
  chownSync(path, 65534, 65534);
  assert.equal(failing(socketFacts(path)), ["socket.owner"]);
});

linuxTest(
  "a stale socket fails socket.listener (nothing listens) and socket.listener_pid",
  async () => {
    const dir = join(tempDir("stale"), "d");
    mkdirSync(dir, { mode: 0o700 });
    const path = join(dir, "s.sock");
    const child = await spawnListener(path);
    child.kill("SIGKILL");
    await exited(child);
    const checks = checkPrivateSocket(socketFacts(path), { uid });
    assert.equal(
      checks.filter((c) => !c.ok).map((c) => [c.check, c.received]),
      [
        ["socket.listener", 0],
        ["socket.listener_pid", []],
      ],
    );
    assert.match(checks.find((c) => c.check === "socket.listener")?.reason ?? "", "a stale socket");
  },
);

test("pure: reasons name the path; checkSocketUnreadable distinguishes missing from denied", () => {
  const facts: SocketFacts = {
    path: "/d/s.sock",
    type: "socket",
    inode: "1",
    device: "2",
    uid: 1000,
    mode: 0o600,
    dir: { path: "/d", type: "directory", uid: 1000, mode: 0o750, isSymlink: false },
    listeners: [],
    listeningSockets: 0,
  };
  const checks = checkPrivateSocket(facts, { uid: 1000 });
  const mode = checks.find((c) => c.check === "socket.dir_mode");
  assert.equal(mode?.received, "0750");
  assert.ok(mode?.reason?.includes("/d"));
  assert.is(octal(0o700), "0700");
  assert.is(octal(0o4755), "04755");
  const missing = checkSocketUnreadable("/x", { code: "SYSCALL_FAILED", errno: 2, message: "m" });
  assert.equal([missing.check, missing.ok, missing.received], ["socket.exists", false, null]);
  const denied = checkSocketUnreadable("/x", { code: "ACCESS_DENIED", errno: 13, message: "m" });
  assert.is(denied.received, "ACCESS_DENIED");
});

test("pure: a stale socket, another user's listener and a platform that cannot tell, each by name", () => {
  const facts = (listeners: number[], listeningSockets: number | null): SocketFacts => ({
    path: "/d/s.sock",
    type: "socket",
    inode: "1",
    device: "2",
    uid,
    mode: 0o600,
    dir: { path: "/d", type: "directory", uid, mode: 0o700, isSymlink: false },
    listeners,
    listeningSockets,
  });
  const failed = (f: SocketFacts) =>
    checkPrivateSocket(f, { uid })
      .filter((c) => !c.ok)
      .map((c) => [c.check, c.reason]);
  assert.equal(failed(facts([42], 1)), []);
  assert.equal(failed(facts([42, 43], 1)), [], "a forked holder shares one listening socket");
  assert.equal(failed(facts([], 0)), [
    ["socket.listener", "nothing listens on /d/s.sock: a stale socket"],
    ["socket.listener_pid", "no process listens on /d/s.sock"],
  ]);
  assert.equal(failed(facts([], 1)), [
    ["socket.listener_pid", "/d/s.sock has a listener whose process we cannot see: another user's"],
  ]);
  // macOS: other users' sockets are invisible, so only the visible pids tell.
  assert.equal(failed(facts([42], null)), []);
  assert.equal(failed(facts([], null)), [
    [
      "socket.listener",
      "no process we can see listens on /d/s.sock (stale socket, or another user's)",
    ],
    ["socket.listener_pid", "no process listens on /d/s.sock"],
  ]);
});

test("socket addresses: abstract names and over-long paths refused by name, before any lookup", () => {
  const names = (path: string, max: number): string[] =>
    checkSocketAddress(path, max)
      .filter((c) => !c.ok)
      .map((c) => c.check);
  assert.equal(names("/run/x/leader.sock", 108), []);
  assert.equal(names("\0grok-leader", 108), ["socket.abstract_address"]);
  // sun_path counts bytes, not UTF-16 units: 54 two-byte characters are 108 bytes.
  assert.equal(names(`/${"é".repeat(53)}`, 108), []);
  assert.equal(names(`/${"é".repeat(54)}`, 108), ["socket.path_length"]);
  const long = checkSocketAddress(`/${"a".repeat(200)}`, 104).find((c) => !c.ok);
  assert.is(long?.received, 201);
});

test("directory checks alone: symlink, type, owner and each group/other bit", () => {
  const dir = (over: Partial<Parameters<typeof checkSocketDir>[0]>) =>
    checkSocketDir(
      { path: "/d", type: "directory", uid, mode: 0o700, isSymlink: false, ...over },
      {
        uid,
      },
    )
      .filter((c) => !c.ok)
      .map((c) => c.check);
  assert.equal(dir({}), []);
  for (const mode of [0o755, 0o750, 0o710, 0o701, 0o770, 0o707]) {
    assert.equal(dir({ mode }), ["socket.dir_mode"], octal(mode));
  }
  assert.ok(dir({ isSymlink: true }).includes("socket.dir_symlink"));
  assert.ok(dir({ type: "file" }).includes("socket.dir_type"));
  assert.ok(dir({ uid: uid + 1 }).includes("socket.dir_owner"));
});

test.run();
