/**
 * The leader's sibling lock file (docs/design/grok-leader-protocol.md §1 "Lock file"; `leader/lock.rs`,
 * `leader/mod.rs`): its content is the leader pid in decimal with no newline (`write_pid`), and
 * the leader holds an exclusive flock on it for its whole life. On Linux the holder is visible in
 * `/proc/locks` as a `FLOCK ADVISORY WRITE <pid> <maj>:<min>:<ino>` line (major and minor in hex);
 * the leader's own `flock_holder_pid` / `parse_flock_holder` read it the same way, skipping blocked
 * waiters (`->` lines).
 */
import { constants } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";

/**
 * Read an open file from its current offset until EOF or one byte past `maxBytes`, whichever
 * comes first: at most `maxBytes + 1` bytes (more than `maxBytes` means the file is too large).
 * The buffer starts at `hintBytes` and doubles, so a bound is not a buffer: zero-filling an
 * 8 MiB one for every `/proc/locks` read was most of the leader proof's CPU (issue 19).
 */
export async function readBounded(
  handle: FileHandle,
  maxBytes: number,
  hintBytes = 4096,
): Promise<Buffer> {
  const cap = maxBytes + 1;
  let buf = Buffer.alloc(Math.min(cap, Math.max(1, hintBytes)));
  let filled = 0;
  while (filled < cap) {
    if (filled === buf.length) {
      const bigger = Buffer.alloc(Math.min(cap, buf.length * 2));
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const { bytesRead } = await handle.read(buf, filled, buf.length - filled, null);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buf.subarray(0, filled);
}

/** Read a small file without following a symlink, at most `maxBytes` (more is an error). */
export async function readSmallFile(path: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const buf = await readBounded(handle, maxBytes);
    if (buf.length > maxBytes) {
      throw Object.assign(new Error(`${path} is larger than ${maxBytes} bytes`), {
        code: "EFBIG",
      });
    }
    return buf;
  } finally {
    await handle.close();
  }
}

/** glibc's `gnu_dev_major` / `gnu_dev_minor` on a 64-bit dev_t (as `glibc_dev_major_minor`). */
export function devMajorMinor(dev: bigint): { major: bigint; minor: bigint } {
  const major = ((dev & 0x0000_0000_000f_ff00n) >> 8n) | ((dev & 0xffff_f000_0000_0000n) >> 32n);
  const minor = (dev & 0x0000_0000_0000_00ffn) | ((dev & 0x0000_0fff_fff0_0000n) >> 12n);
  return { major, minor };
}

/** The pid holding an exclusive flock on major:minor:inode in `/proc/locks` text, or null. */
export function parseFlockHolder(
  procLocks: string,
  major: bigint,
  minor: bigint,
  inode: bigint,
): number | null {
  for (const line of procLocks.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[1] === "->") continue; // a blocked waiter does not hold the lock
    if (f.length < 6 || f[1] !== "FLOCK" || f[3] !== "WRITE") continue;
    const parts = (f[5] ?? "").split(":");
    if (parts.length !== 3) continue;
    const [maj = "", min = "", ino = ""] = parts;
    if (!/^[0-9a-f]+$/i.test(maj) || !/^[0-9a-f]+$/i.test(min) || !/^\d+$/.test(ino)) continue;
    if (BigInt(`0x${maj}`) === major && BigInt(`0x${min}`) === minor && BigInt(ino) === inode) {
      const pid = f[4] ?? "";
      return /^\d{1,10}$/.test(pid) ? Number(pid) : null;
    }
  }
  return null;
}

/** Linux: who holds the exclusive flock on `lockPath` right now, by `/proc/locks`. */
export async function flockHolder(
  lockPath: string,
  maxProcLocksBytes = 8 * 1024 * 1024,
): Promise<number | null> {
  const st = await stat(lockPath, { bigint: true });
  const { major, minor } = devMajorMinor(st.dev);
  const text = (await readSmallFile("/proc/locks", maxProcLocksBytes)).toString("utf8");
  return parseFlockHolder(text, major, minor, st.ino);
}
