/**
 * `herdr.pane_terminal`: the pane's process is on a terminal of *this* Herdr server, so a server
 * cannot name any process of ours as a pane's. Pure, from facts lib/observe/pane-terminal.ts reads.
 *
 * Linux: the Herdr server opens each pane's pty itself and keeps the master (portable_pty in
 * src/pty/backend.rs `spawn_with_portable_pty`; on a live handoff the new server receives the
 * masters over SCM_RIGHTS, src/server/handoff.rs), so the master of the pane process's
 * /dev/pts/N is held by the server: `/proc/<server>/fdinfo/<fd>` of its /dev/ptmx fd says
 * `tty-index: N`. A terminal host the server started may hold it instead (the Herdr simulator's
 * tmux server, a child of the simulator): then that holder must sit between the pane process and
 * the server in the pane's ancestry. macOS (no fdinfo without the addon): the weaker fact that the
 * server is an ancestor of the pane process, named as such in `received`.
 */
import { type CheckResult, fail, pass } from "../check.js";

export interface TerminalTie {
  /** The pane process's controlling terminal, from the kernel. */
  readonly tty: string;
  /** The pane process first, then its parent and so on, up to the server (when reached) or init. */
  readonly ancestry: readonly number[];
  /**
   * For the server and each process between the pane process and it: does it hold the master of
   * `tty`? Null when masters cannot be read here (macOS; a kernel without fdinfo `tty-index`).
   */
  readonly masters: readonly { readonly pid: number; readonly holds: boolean }[] | null;
}

const EXPECTED = "the pane's terminal is held by the Herdr server (or a terminal host it started)";

/** A tie that could not be read (the same shape as pane.ts's `Unavailable`). */
export interface TieUnavailable {
  readonly unavailable: true;
  readonly code: string;
  readonly message: string;
}

export function checkPaneTerminal(
  serverPid: number,
  tie: TerminalTie | TieUnavailable,
): CheckResult {
  if ("unavailable" in tie)
    return fail(
      "herdr.pane_terminal",
      EXPECTED,
      { unavailable: tie.code },
      `${tie.code}: ${tie.message}`,
    );
  const at = tie.ancestry.indexOf(serverPid);
  const between = at > 0 ? tie.ancestry.slice(1, at) : [];
  if (tie.masters === null) {
    return at > 0
      ? pass("herdr.pane_terminal", EXPECTED, {
          method: "ancestry (weaker: the master's holder is not readable here)",
          server: serverPid,
          ancestry: [...tie.ancestry],
        })
      : fail(
          "herdr.pane_terminal",
          EXPECTED,
          { method: "ancestry", server: serverPid, ancestry: [...tie.ancestry] },
          `the pane's process does not descend from the Herdr server (pid ${serverPid})`,
        );
  }
  const holder = tie.masters.find(
    (m) => m.holds && (m.pid === serverPid || between.includes(m.pid)),
  );
  if (holder !== undefined) {
    return pass("herdr.pane_terminal", EXPECTED, {
      method: "pty-master",
      tty: tie.tty,
      holder: holder.pid,
      server: serverPid,
    });
  }
  return fail(
    "herdr.pane_terminal",
    EXPECTED,
    { method: "pty-master", tty: tie.tty, server: serverPid, ancestry: [...tie.ancestry] },
    `neither the Herdr server (pid ${serverPid}) nor a process it started holds the master of ${tie.tty}: the pane is not this server's`,
  );
}
