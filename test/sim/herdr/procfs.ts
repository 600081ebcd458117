// Kernel process facts from /proc, read the way Herdr's src/platform/linux.rs reads them:
// stat (comm between the first '(' and the last ')', then state, ppid, pgrp, session, tty_nr,
// tpgid ... starttime), cmdline (NUL-split, empty parts dropped, lossy UTF-8), cwd, environ,
// and /proc/<pid>/task/<tid>/children for process trees. Linux only.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export type ProcStat = {
  readonly pid: number;
  readonly comm: string;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  readonly tpgid: number;
  readonly startTime: string;
};

export function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const fields = text.slice(close + 2).split(" ");
  // After (comm): state(0) ppid(1) pgrp(2) session(3) tty_nr(4) tpgid(5) ... starttime(19)
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: fields[0] ?? "?",
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    tpgid: Number(fields[5]),
    startTime: fields[19] ?? "",
  };
}

/** A pid is the same live process when it exists, is not a zombie and started when we saw it. */
export function isAlive(pid: number, startTime: string): boolean {
  const stat = readStat(pid);
  return stat !== null && stat.state !== "Z" && stat.state !== "X" && stat.startTime === startTime;
}

export function readArgv(pid: number): string[] | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(`/proc/${pid}/cmdline`);
  } catch {
    return null;
  }
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0) {
      if (i > start) parts.push(bytes.subarray(start, i).toString("utf8"));
      start = i + 1;
    }
  }
  return parts.length > 0 ? parts : null;
}

export function readCwd(pid: number): string | null {
  if (pid <= 0) return null;
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** The value of one variable in a process environment (HERDR_AGENT hints). */
export function readEnvVar(pid: number, name: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
  const prefix = `${name}=`;
  for (const record of bytes.toString("utf8").split("\0")) {
    if (record.startsWith(prefix)) return record.slice(prefix.length);
  }
  return null;
}

function taskChildren(pid: number): number[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tids) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8");
      for (const c of text.split(/\s+/)) if (c !== "") out.push(Number(c));
    } catch {
      // the task ended while we listed it
    }
  }
  return out;
}

/** Breadth-first process tree under the roots (process_tree_pids). */
export function processTree(roots: readonly number[]): number[] {
  const seen = new Set<number>();
  const queue: number[] = [];
  for (const r of roots) {
    if (r > 0 && !seen.has(r)) {
      seen.add(r);
      queue.push(r);
    }
  }
  const out: number[] = [];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    out.push(pid);
    for (const child of taskChildren(pid)) {
      if (child > 0 && !seen.has(child)) {
        seen.add(child);
        queue.push(child);
      }
    }
  }
  return out;
}

/** Every pid whose session id is `session` (a pane process is its session leader). */
export function sessionMembers(session: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat !== null && stat.session === session) out.push(stat.pid);
  }
  return out;
}

export type ForegroundProcess = {
  readonly pid: number;
  readonly name: string;
  readonly argv: string[] | null;
};
export type ForegroundJob = {
  readonly processGroupId: number;
  readonly processes: readonly ForegroundProcess[];
};

function describe(pid: number, comm: string): ForegroundProcess {
  return { pid, name: comm, argv: readArgv(pid) };
}

/** foreground_process_group_id: tpgid of the pane child, when positive. */
export function foregroundProcessGroupId(childPid: number): number | null {
  const stat = readStat(childPid);
  return stat !== null && stat.tpgid > 0 ? stat.tpgid : null;
}

/** foreground_group_leader_job: the process group leader alone. */
export function foregroundGroupLeaderJob(pgid: number): ForegroundJob | null {
  const stat = readStat(pgid);
  if (stat === null || stat.pgrp !== pgid) return null;
  return { processGroupId: pgid, processes: [describe(pgid, stat.comm)] };
}

/** foreground_job: members of the tty's foreground group in the pane's process tree, by pid. */
export function foregroundJob(childPid: number): ForegroundJob | null {
  const tpgid = foregroundProcessGroupId(childPid);
  if (tpgid === null) return null;
  const members: ForegroundProcess[] = [];
  for (const pid of processTree([childPid, tpgid])) {
    const stat = readStat(pid);
    if (stat !== null && stat.pgrp > 0 && stat.pgrp === tpgid)
      members.push(describe(pid, stat.comm));
  }
  members.sort((a, b) => a.pid - b.pid);
  return members.length > 0 ? { processGroupId: tpgid, processes: members } : null;
}
