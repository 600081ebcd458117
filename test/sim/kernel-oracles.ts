/**
 * Independent kernel oracles for the simulator tests (Linux /proc; no addon, no lib/ code):
 * parent pid and process group from /proc/<pid>/stat, the executable, fd targets, environment,
 * the flock holder of a file from /proc/locks, and which process has a unix socket inode open.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";

export function stat(pid: number): { ppid: number; pgrp: number; session: number } {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]) };
}

export function exe(pid: number): string {
  return readlinkSync(`/proc/${pid}/exe`);
}

export function cmdline(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8")
    .split("\0")
    .filter((s) => s !== "");
}

export function fdTarget(pid: number, fd: number): string {
  return readlinkSync(`/proc/${pid}/fd/${fd}`);
}

export function environ(pid: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const kv of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const eq = kv.indexOf("=");
    if (eq > 0) out.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  return out;
}

/** The pid holding an exclusive FLOCK on `path`, per /proc/locks (maj:min:inode match). */
export function flockHolder(path: string): number | undefined {
  const st = statSync(path, { bigint: true });
  const dev = st.dev;
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  for (const line of readFileSync("/proc/locks", "utf8").split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[1] === "->" || f[1] !== "FLOCK" || f[3] !== "WRITE") continue;
    const [maj, min, ino] = (f[5] ?? "").split(":");
    if (maj === undefined || min === undefined || ino === undefined) continue;
    if (BigInt(`0x${maj}`) === major && BigInt(`0x${min}`) === minor && BigInt(ino) === st.ino) {
      return Number(f[4]);
    }
  }
  return undefined;
}

/**
 * Inodes of listening unix sockets bound under `path` (/proc/net/unix keeps the bound name even
 * after the file was unlinked and re-bound by someone else, so there can be several).
 */
export function listeningInodes(path: string): string[] {
  const out: string[] = [];
  for (const line of readFileSync("/proc/net/unix", "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // Num RefCount Protocol Flags Type St Inode Path; flags 00010000 = __SO_ACCEPTCON (listening)
    if (f[7] === path && f[3] === "00010000" && f[6] !== undefined) out.push(f[6]);
  }
  return out;
}

/** Whether `pid` has the socket with this inode open. */
export function hasSocket(pid: number, inode: string): boolean {
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return true;
    } catch {
      // fd closed meanwhile
    }
  }
  return false;
}
