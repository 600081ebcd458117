import { spawnSync } from "node:child_process";
import { release } from "node:os";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { kernelInfo } from "../../lib/kernel/info.js";
import { bootId, linuxOnly } from "../helpers/kernel-children.js";

const linuxTest = linuxOnly(test, "the kernelInfo tests");

function kernelAtLeast(major: number, minor: number): boolean {
  const [a = 0, b = 0] = release().split(/[.-]/).map(Number);
  return a > major || (a === major && b >= minor);
}

linuxTest("kernelInfo matches uname, boot_id and the kernel version's features", () => {
  const k = kernelInfo();
  assert.is(k.platform, "linux");
  assert.is(k.release, spawnSync("uname", ["-r"], { encoding: "utf8" }).stdout.trim());
  assert.is(k.bootId, bootId());
  assert.is(k.pidfsIdentity, kernelAtLeast(6, 9), "pidfs identities from 6.9");
  assert.is(k.peerPidfd, kernelAtLeast(6, 5), "SO_PEERPIDFD from 6.5");
  assert.is(k.sunPathMax, 107, "sockaddr_un.sun_path is 108 bytes on Linux");
});

test.run();
