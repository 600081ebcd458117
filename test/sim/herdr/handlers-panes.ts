// Read-side methods and pane.close/pane.focus (src/app/api/panes.rs, workspaces.rs, tabs.rs,
// layouts.rs, session.rs). pane.process_info reports the kernel's view from /proc and, like
// Herdr (`tty: None`, asserted in tests/api_ping.rs), never a tty.
import {
  agentInfo,
  layoutDescription,
  paneId,
  paneInfo,
  paneLayoutSnapshot,
  tabInfo,
  workspaceInfo,
} from "./info.js";
import type {
  layoutExportParams,
  paneCurrentParams,
  paneListParams,
  paneProcessInfoParams,
  paneReadParams,
  paneTarget,
  tabListParams,
  tabTarget,
  workspaceTarget,
} from "./methods.js";
import { paneIdsInLayout, type Tab, type Workspace } from "./model.js";
import { foregroundJob, readCwd } from "./procfs.js";
import type { HerdrSim, PaneLocation } from "./sim.js";
import { errorLine, paneNotFound, successLine, type WireObject } from "./wire.js";

function allPanes(sim: HerdrSim, wsIndex: number): WireObject[] {
  const ws = sim.workspaces[wsIndex] as Workspace;
  return ws.tabs.flatMap((tab) =>
    paneIdsInLayout(tab.layout).flatMap((n) => {
      const pane = ws.panes.get(n);
      return pane === undefined ? [] : [paneInfo(sim, wsIndex, ws, tab, pane)];
    }),
  );
}

/** `pane_info` for the pane after `before` ran on it (fresh live facts); `pane_not_found` otherwise. */
async function paneInfoReply(
  sim: HerdrSim,
  id: string,
  paneId: string,
  before: (loc: PaneLocation) => void = () => undefined,
): Promise<string> {
  const loc = sim.parsePaneId(paneId);
  if (loc === null) return paneNotFound(id, paneId);
  before(loc);
  await sim.refreshLiveFacts();
  return successLine(id, { type: "pane_info", pane: sim.paneInfoAt(loc) });
}

export function paneGet(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneTarget>,
): Promise<string> {
  return paneInfoReply(sim, id, p.pane_id);
}

export function paneFocus(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneTarget>,
): Promise<string> {
  return paneInfoReply(sim, id, p.pane_id, (loc) => {
    loc.tab.focusedPane = loc.pane.number;
    sim.focusTab(loc.wsIndex, loc.tabIndex);
  });
}

export async function paneList(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneListParams>,
): Promise<string> {
  await sim.refreshLiveFacts();
  if (p.workspace_id !== undefined) {
    const wsIndex = sim.parseWorkspaceId(p.workspace_id);
    if (wsIndex === null)
      return errorLine(id, "workspace_not_found", `workspace ${p.workspace_id} not found`);
    return successLine(id, { type: "pane_list", panes: allPanes(sim, wsIndex) });
  }
  const panes = sim.workspaces.flatMap((_, i) => allPanes(sim, i));
  return successLine(id, { type: "pane_list", panes });
}

export async function paneCurrent(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneCurrentParams>,
): Promise<string> {
  const loc =
    p.caller_pane_id === undefined ? sim.focusedPane() : sim.parsePaneId(p.caller_pane_id);
  if (loc === null) return errorLine(id, "pane_not_found", "pane not found");
  await sim.refreshLiveFacts();
  return successLine(id, { type: "pane_current", pane: sim.paneInfoAt(loc) });
}

function optionalPane(sim: HerdrSim, pane: string | undefined): PaneLocation | null {
  return pane === undefined ? sim.focusedPane() : sim.parsePaneId(pane);
}

export function paneProcessInfo(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneProcessInfoParams>,
): string {
  const loc = optionalPane(sim, p.pane_id);
  if (loc === null) return errorLine(id, "pane_not_found", "pane not found");
  const shellPid = loc.pane.terminal.shellPid;
  const job = foregroundJob(shellPid);
  return successLine(id, {
    type: "pane_process_info",
    process_info: {
      pane_id: paneId(loc.ws, loc.pane.number),
      shell_pid: shellPid,
      foreground_process_group_id: job?.processGroupId,
      tty: undefined,
      foreground_processes:
        job === null
          ? undefined
          : job.processes.map((proc) => ({
              pid: proc.pid,
              name: proc.name,
              argv0: undefined,
              argv: proc.argv ?? undefined,
              cmdline: proc.argv?.join(" "),
              cwd: readCwd(proc.pid) ?? undefined,
            })),
    },
  });
}

/** close_pane: pane_closed, then workspace_closed (last pane) or layout_updated (tab lives on). */
export async function paneClose(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneTarget>,
): Promise<string> {
  const loc = sim.parsePaneId(p.pane_id);
  if (loc === null) return paneNotFound(id, p.pane_id);
  const publicId = paneId(loc.ws, loc.pane.number);
  const tabWillSurvive = paneIdsInLayout(loc.tab.layout).length > 1;
  const workspaceSnapshot = workspaceInfo(sim, loc.wsIndex);
  await sim.killTerminal(loc.pane.terminal);
  const { workspaceClosed } = sim.removePane(loc);
  sim.emit("pane_closed", { pane_id: publicId, workspace_id: loc.ws.id });
  if (workspaceClosed)
    sim.emit("workspace_closed", { workspace_id: loc.ws.id, workspace: workspaceSnapshot });
  else if (tabWillSurvive)
    sim.emit("layout_updated", { layout: paneLayoutSnapshot(loc.ws, loc.tab) });
  return successLine(id, { type: "ok" });
}

export async function paneRead(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneReadParams>,
): Promise<string> {
  const loc = sim.parsePaneId(p.pane_id);
  if (loc === null) return paneNotFound(id, p.pane_id);
  const text = await sim.tmux.capture(loc.pane.terminal.tmuxPaneId, p.lines).catch(() => "");
  return successLine(id, {
    type: "pane_read",
    read: {
      pane_id: paneId(loc.ws, loc.pane.number),
      workspace_id: loc.ws.id,
      tab_id: tabInfo(sim, loc.wsIndex, loc.ws, loc.tabIndex).tab_id as string,
      source: p.source,
      format: p.format,
      text: text.replace(/\n+$/, ""),
      revision: 0,
      truncated: false,
    },
  });
}

export function workspaceList(sim: HerdrSim, id: string): string {
  return successLine(id, {
    type: "workspace_list",
    workspaces: sim.workspaces.map((_, i) => workspaceInfo(sim, i)),
  });
}

export function workspaceGet(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof workspaceTarget>,
): string {
  const i = sim.parseWorkspaceId(p.workspace_id);
  if (i === null)
    return errorLine(id, "workspace_not_found", `workspace ${p.workspace_id} not found`);
  return successLine(id, { type: "workspace_info", workspace: workspaceInfo(sim, i) });
}

export function tabList(sim: HerdrSim, id: string, p: ReturnType<typeof tabListParams>): string {
  const indexes =
    p.workspace_id === undefined
      ? sim.workspaces.map((_, i) => i)
      : [sim.parseWorkspaceId(p.workspace_id)];
  if (indexes.includes(null))
    return errorLine(id, "workspace_not_found", `workspace ${p.workspace_id} not found`);
  const tabs = indexes.flatMap((i) => {
    const ws = sim.workspaces[i as number] as Workspace;
    return ws.tabs.map((_, t) => tabInfo(sim, i as number, ws, t));
  });
  return successLine(id, { type: "tab_list", tabs });
}

export function tabGet(sim: HerdrSim, id: string, p: ReturnType<typeof tabTarget>): string {
  const found = sim.parseTabId(p.tab_id);
  if (found === null) return errorLine(id, "tab_not_found", `tab ${p.tab_id} not found`);
  const ws = sim.workspaces[found.wsIndex] as Workspace;
  return successLine(id, {
    type: "tab_info",
    tab: tabInfo(sim, found.wsIndex, ws, found.tabIndex),
  });
}

export function layoutExport(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof layoutExportParams>,
): string {
  let target: { ws: Workspace; tab: Tab } | null = null;
  if (p.tab_id !== undefined && p.pane_id !== undefined) target = null;
  else if (p.tab_id !== undefined) {
    const found = sim.parseTabId(p.tab_id);
    const ws = found === null ? undefined : sim.workspaces[found.wsIndex];
    const tab = found === null ? undefined : ws?.tabs[found.tabIndex];
    target = ws && tab ? { ws, tab } : null;
  } else {
    const loc = p.pane_id === undefined ? sim.focusedPane() : sim.parsePaneId(p.pane_id);
    target = loc === null ? null : { ws: loc.ws, tab: loc.tab };
  }
  if (target === null) return errorLine(id, "layout_not_found", "layout target not found");
  return successLine(id, {
    type: "layout_export",
    layout: layoutDescription(target.ws, target.tab),
  });
}

export async function sessionSnapshot(sim: HerdrSim, id: string): Promise<string> {
  await sim.refreshLiveFacts();
  const focused = sim.focusedPane();
  return successLine(id, {
    type: "session_snapshot",
    snapshot: {
      version: sim.switches.version,
      protocol: sim.switches.protocol,
      focused_workspace_id: focused?.ws.id,
      focused_tab_id:
        focused === null
          ? undefined
          : (tabInfo(sim, focused.wsIndex, focused.ws, focused.tabIndex).tab_id as string),
      focused_pane_id: focused === null ? undefined : paneId(focused.ws, focused.pane.number),
      workspaces: sim.workspaces.map((_, i) => workspaceInfo(sim, i)),
      tabs: sim.workspaces.flatMap((ws, i) => ws.tabs.map((_, t) => tabInfo(sim, i, ws, t))),
      panes: sim.workspaces.flatMap((_, i) => allPanes(sim, i)),
      layouts: sim.workspaces.flatMap((ws) => ws.tabs.map((tab) => paneLayoutSnapshot(ws, tab))),
      agents: sim.workspaces.flatMap((ws, i) =>
        ws.tabs.flatMap((tab) =>
          paneIdsInLayout(tab.layout).flatMap((n) => {
            const pane = ws.panes.get(n);
            if (pane === undefined || pane.terminal.agent.effectiveLabel() === null) return [];
            return [agentInfo(sim, i, ws, tab, pane, pane.terminal.agentName)];
          }),
        ),
      ),
    },
  });
}
