/**
 * The facts behind `herdr.pane_terminal` (lib/proof/pane-terminal.ts): the pane process's ancestry
 * up to the Herdr server, and whether the server, or a process between it and the pane, holds the
 * master of the pane's pty (KernelPort.ptyMasters: Linux fdinfo `tty-index`). Where masters
 * cannot be read (macOS, an old kernel) only the ancestry is recorded and the proof says weaker.
 */
import { isErrorCode } from "../errors.js";
import type { KernelPort } from "../kernel/index.js";
import type { TerminalTie } from "../proof/pane-terminal.js";

const MAX_DEPTH = 64;

function ancestry(kernel: KernelPort, pid: number, serverPid: number): number[] {
  const chain = [pid];
  let at = pid;
  while (chain.length < MAX_DEPTH && at !== serverPid && at > 1) {
    let ppid: number;
    try {
      ppid = kernel.processFacts(at).ppid;
    } catch (err) {
      if (isErrorCode(err)) break; // an unreadable or vanished ancestor ends the walk
      throw err;
    }
    if (ppid <= 0 || chain.includes(ppid)) break;
    chain.push(ppid);
    at = ppid;
  }
  return chain;
}

export function observeTerminalTie(
  kernel: KernelPort,
  serverPid: number,
  panePid: number,
  tty: string,
): TerminalTie {
  const chain = ancestry(kernel, panePid, serverPid);
  const at = chain.indexOf(serverPid);
  const candidates = [serverPid, ...(at > 0 ? chain.slice(1, at) : [])];
  const index = /^\/dev\/pts\/(\d+)$/.exec(tty)?.[1];
  const masters: { pid: number; holds: boolean }[] = [];
  for (const pid of candidates) {
    let held: readonly number[] | null;
    try {
      held = kernel.ptyMasters(pid);
    } catch (err) {
      if (isErrorCode(err, "UNSUPPORTED")) return { tty, ancestry: chain, masters: null };
      if (isErrorCode(err)) {
        masters.push({ pid, holds: false }); // unreadable: not shown to hold it
        continue;
      }
      throw err;
    }
    if (held === null) return { tty, ancestry: chain, masters: null };
    masters.push({ pid, holds: index !== undefined && held.includes(Number(index)) });
  }
  return { tty, ancestry: chain, masters };
}
