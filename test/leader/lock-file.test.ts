// @platform linux: reads a /proc file
/**
 * readSmallFile (lib/leader/lock-file.ts): the bound holds (exactly `maxBytes` is read, one byte
 * more is EFBIG), a file larger than the first buffer is read whole as the buffer grows, a
 * /proc file whose size says 0 is read to its end, and the bound is not a buffer: reading a small
 * file under a large bound allocates what the file needs (issue 19: an 8 MiB zero-filled buffer
 * per /proc/locks read was most of the leader proof's CPU).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readSmallFile } from "../../lib/leader/lock-file.js";

let dir = "";
test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), "grok-seat-lockfile-"));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

function fileOf(bytes: number): string {
  const path = join(dir, `f${bytes}`);
  writeFileSync(path, Buffer.from(Array.from({ length: bytes }, (_, i) => 97 + (i % 26))));
  return path;
}

test("a file of exactly maxBytes is read whole; one byte more is EFBIG", async () => {
  const path = fileOf(10_000);
  assert.equal(await readSmallFile(path, 10_000), readFileSync(path));
  try {
    await readSmallFile(path, 9_999);
    assert.unreachable("a file over the bound was read");
  } catch (err) {
    assert.is((err as { code?: unknown }).code, "EFBIG");
  }
});

test("a file larger than the first buffer is read whole as the buffer grows", async () => {
  const path = fileOf(300_001);
  assert.equal(await readSmallFile(path, 1024 * 1024), readFileSync(path));
});

test("a /proc file whose size says 0 is read to its end", async () => {
  const text = (await readSmallFile("/proc/self/status", 1024 * 1024)).toString("utf8");
  assert.match(text, /^Name:/);
  assert.match(text, new RegExp(`^Pid:\\s+${process.pid}$`, "m"));
});

test("the bound is not a buffer: a 10-byte file under a 64 MiB bound allocates no 64 MiB", async () => {
  const path = fileOf(10);
  const sizes: number[] = [];
  const alloc = Buffer.alloc;
  Buffer.alloc = ((
    size: number,
    ...rest: Parameters<typeof Buffer.alloc> extends [number, ...infer R] ? R : never
  ) => {
    sizes.push(size);
    return alloc(size, ...rest);
  }) as typeof Buffer.alloc;
  try {
    assert.is((await readSmallFile(path, 64 * 1024 * 1024)).toString("utf8"), "abcdefghij");
  } finally {
    Buffer.alloc = alloc;
  }
  assert.ok(sizes.length > 0, "the read allocated through Buffer.alloc");
  assert.ok(Math.max(...sizes) <= 64 * 1024, `allocated ${Math.max(...sizes)} bytes`);
});

test.run();
