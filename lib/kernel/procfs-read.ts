/**
 * Two per-process facts the native addon does not gather, read from Linux's /proc in TypeScript
 * (docs/design/kernel-proofs.md; the same files `ps` and `lsof` read): the argv a process runs
 * with (`/proc/<pid>/cmdline`) and the pty masters it holds (`/proc/<pid>/fd` links to
 * `/dev/ptmx`, each with the `tty-index:` of its pty in `/proc/<pid>/fdinfo/<fd>`, Linux >= 4.18,
 * drivers/tty/pty.c `pty_show_fdinfo`). On macOS the addon reads argv (lib/kernel/argv.ts picks);
 * pty masters are UNSUPPORTED there for now (PROC_PIDFDVNODEPATHINFO would need the addon), and
 * callers name the weaker fact they fall back to. Failures are KernelErrors classified by errno
 * like the addon's.
 */
import { readdirSync, readlinkSync } from "node:fs";
import { requirePid } from "./arguments.js";
import { KernelError } from "./kernel-error.js";
import { FileReadError, readRegularFile } from "./regular-file.js";
import type { KernelFailureCode } from "./types.js";

/** A cmdline is at most ARG_MAX-ish; 1 MiB is far above any grok invocation. */
const MAX_CMDLINE_BYTES = 1024 * 1024;

function errnoOf(err: unknown): string | undefined {
  // readRegularFile keeps the errno in its details.
  if (err instanceof FileReadError) {
    const errno = err.context.errno;
    return typeof errno === "string" ? errno : undefined;
  }
  const code = err instanceof Error ? Reflect.get(err, "code") : undefined;
  return typeof code === "string" ? code : undefined;
}

function classify(pid: number, syscall: string, err: unknown): KernelError {
  const errno = errnoOf(err);
  const code: KernelFailureCode =
    errno === "ENOENT" || errno === "ESRCH"
      ? "NO_SUCH_PROCESS"
      : errno === "EACCES" || errno === "EPERM"
        ? "ACCESS_DENIED"
        : "SYSCALL_FAILED";
  return new KernelError(code, {
    pid,
    syscall,
    errno: 0,
    message: `${code}: ${syscall} for pid ${pid} failed (${errno ?? "error"})`,
  });
}

function unsupported(pid: number, syscall: string): KernelError {
  return new KernelError("UNSUPPORTED", {
    pid,
    syscall,
    errno: 0,
    message: `UNSUPPORTED: ${syscall} is not read on ${process.platform}`,
  });
}

/** Linux's half of `processArgv` (lib/kernel/argv.ts): /proc/<pid>/cmdline, split at NULs. */
export function procfsArgv(pid: number): readonly string[] {
  requirePid(pid, "processArgv");
  if (process.platform !== "linux") throw unsupported(pid, "cmdline");
  let bytes: Buffer;
  try {
    bytes = readRegularFile(`/proc/${pid}/cmdline`, MAX_CMDLINE_BYTES).bytes;
  } catch (err) {
    throw classify(pid, "read(/proc/pid/cmdline)", err);
  }
  if (bytes.length === 0) return []; // a zombie or a kernel thread
  const text = bytes.toString("utf8");
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}

/**
 * The pty indexes (N of /dev/pts/N) whose master `pid` holds open. Null when the kernel does not
 * say (a ptmx fd without `tty-index`: Linux < 4.18).
 */
export function ptyMasters(pid: number): readonly number[] | null {
  requirePid(pid, "ptyMasters");
  if (process.platform !== "linux") throw unsupported(pid, "fdinfo tty-index");
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch (err) {
    throw classify(pid, "readdir(/proc/pid/fd)", err);
  }
  const out: number[] = [];
  for (const fd of fds) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    if (target !== "/dev/ptmx" && target !== "/dev/pts/ptmx") continue;
    let info: string;
    try {
      info = readRegularFile(`/proc/${pid}/fdinfo/${fd}`, 64 * 1024).bytes.toString("utf8");
    } catch (err) {
      if (errnoOf(err) === "ENOENT") continue; // closed meanwhile
      throw classify(pid, "read(/proc/pid/fdinfo)", err);
    }
    const m = /^tty-index:\s*(\d+)$/m.exec(info);
    if (m?.[1] === undefined) return null;
    out.push(Number(m[1]));
  }
  return out;
}
