/**
 * The leader's sibling lock file (docs/design/grok-leader-protocol.md §1 "Lock file"; `leader/lock.rs`,
 * `leader/mod.rs`): its content is the leader pid in decimal with no newline (`write_pid`), and
 * the leader holds an exclusive flock on it for its whole life. On Linux the holder is visible in
 * `/proc/locks` as a `FLOCK ADVISORY WRITE <pid> <maj>:<min>:<ino>` line (major and minor in hex);
 * the leader's own `flock_holder_pid` / `parse_flock_holder` read it the same way, skipping blocked
 * waiters (`->` lines).
 */
import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";

/** Read a small file without following a symlink, at most `maxBytes` (more is an error). */
export async function readSmallFile(path: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const buf = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > maxBytes) {
        throw Object.assign(new Error(`${path} is larger than ${maxBytes} bytes`), {
          code: "EFBIG",
        });
      }
    }
    return buf.subarray(0, filled);
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
