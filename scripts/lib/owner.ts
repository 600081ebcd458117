/**
 * Playing the owner in front of the simulated Herdr: the Herdr simulator runs every pane in a
 * private tmux server (`tmux -L <socket>`), so a person (or the demo, standing in for one) can
 * attach to it and type into the Grok TUI. The library itself never types into a pane (its Herdr
 * client cannot even name the input methods); only these scripts do, as the owner would.
 */
import { execFileSync, spawnSync } from "node:child_process";

/** The tmux pane (`%N`) whose process is `pid`, or null. */
export function tmuxPaneOf(tmuxSocket: string, pid: number): string | null {
  const out = spawnSync(
    "tmux",
    ["-L", tmuxSocket, "list-panes", "-a", "-F", "#{pane_pid} #{pane_id}"],
    {
      encoding: "utf8",
    },
  );
  if (out.status !== 0) return null;
  for (const line of out.stdout.split("\n")) {
    const [p, pane] = line.split(" ");
    if (p === String(pid) && pane !== undefined) return pane;
  }
  return null;
}

/** Type a line into the TUI's pane and press Enter, as the owner at the keyboard would. */
export function typeAsOwner(tmuxSocket: string, pid: number, text: string): void {
  const pane = tmuxPaneOf(tmuxSocket, pid);
  if (pane === null) throw new Error(`no tmux pane runs pid ${pid} on -L ${tmuxSocket}`);
  execFileSync("tmux", ["-L", tmuxSocket, "send-keys", "-t", pane, "-l", text]);
  execFileSync("tmux", ["-L", tmuxSocket, "send-keys", "-t", pane, "Enter"]);
}

/** The owner quits the Grok TUI (`/quit`); its leader keeps running (docs/design/grok-leader-protocol.md §13). */
export function quitTuiAsOwner(tmuxSocket: string, pid: number): void {
  typeAsOwner(tmuxSocket, pid, "/quit");
}

/** What the TUI's pane shows now. */
export function capturePane(tmuxSocket: string, pid: number): string {
  const pane = tmuxPaneOf(tmuxSocket, pid);
  if (pane === null) return "";
  return execFileSync("tmux", ["-L", tmuxSocket, "capture-pane", "-p", "-t", pane], {
    encoding: "utf8",
  });
}

/** The command that shows a Herdr simulator workspace (each workspace is a tmux session). */
export function attachHint(tmuxSocket: string, workspaceId: string): string {
  return `tmux -L ${tmuxSocket} attach -t ${workspaceId}`;
}
