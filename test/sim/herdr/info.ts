// Wire records built from the simulator state, field by field in the declaration order of
// src/api/schema/{panes,tabs,workspaces}.rs: PaneInfo (App::pane_info, src/app/creation.rs),
// TabInfo, WorkspaceInfo, LayoutDescription and PaneLayoutSnapshot. The PaneInfo fault switches
// (G5, G6, G7a-c, the 0.9.3 omission) are applied here, on the way out.
import { basename } from "node:path";
import type { AgentSessionInfo } from "./agent-state.js";
import type { AgentStatus, PaneAgentState } from "./methods.js";
import {
  encodePublicNumber,
  type LayoutTree,
  layoutRects,
  type Pane,
  paneIdsInLayout,
  type Tab,
  type Terminal,
  type Workspace,
} from "./model.js";
import { foregroundJob, foregroundProcessGroupId, readCwd } from "./procfs.js";
import type { Switches } from "./switches.js";
import type { TmuxPaneFacts } from "./tmux.js";
import { F32, type Wire, type WireObject } from "./wire.js";

/** Where cwd facts come from: /proc for the simulator, fixed values for golden tests. */
export type ProcessReader = {
  readonly cwd: (pid: number) => string | null;
  readonly foregroundCwd: (pid: number) => string | undefined;
};

export type StateView = {
  readonly procs: ProcessReader;
  readonly workspaces: readonly Workspace[];
  readonly active: number | null;
  readonly switches: Switches;
  readonly liveFacts: ReadonlyMap<string, TmuxPaneFacts>;
  readonly home: string;
};

export const tabId = (ws: Workspace, tab: Tab) => `${ws.id}:t${encodePublicNumber(tab.number)}`;
export const paneId = (ws: Workspace, pane: number) => `${ws.id}:p${encodePublicNumber(pane)}`;

/** pane_agent_status: idle that nobody has seen yet is `done`. */
export function paneAgentStatus(state: PaneAgentState, seen: boolean): AgentStatus {
  if (state === "idle") return seen ? "idle" : "done";
  return state;
}

function attention(state: PaneAgentState, seen: boolean): number {
  if (state === "blocked") return 4;
  if (state === "idle") return seen ? 1 : 3;
  return state === "working" ? 2 : 0;
}

function aggregateStatus(panes: Iterable<Pane>): AgentStatus {
  let best: { state: PaneAgentState; seen: boolean } = { state: "unknown", seen: true };
  let bestScore = -1;
  for (const p of panes) {
    const score = attention(p.terminal.agent.state, p.seen);
    if (score > bestScore) {
      bestScore = score;
      best = { state: p.terminal.agent.state, seen: p.seen };
    }
  }
  return paneAgentStatus(best.state, best.seen);
}

/** stripped_terminal_title (src/terminal/title.rs): one leading activity glyph is dropped. */
export function strippedTitle(title: string | undefined): string | undefined {
  const t = title?.trim();
  if (t === undefined || t === "") return undefined;
  const [first = "", ...rest] = Array.from(t);
  const cp = first.codePointAt(0) ?? 0;
  const glyph = (cp >= 0x2800 && cp <= 0x28ff) || "·✢✳✶✻✽".includes(first);
  const after = rest.join("");
  const stripped = glyph && (after === "" || /^\s/u.test(after)) ? after.trim() : t;
  return stripped === "" ? undefined : stripped;
}

/** Pane.foreground_cwd (src/pane.rs): the foreground group's cwd, or a member's that differs. */
function foregroundCwd(shellPid: number): string | undefined {
  const shellCwd = readCwd(shellPid);
  const pgid = foregroundProcessGroupId(shellPid);
  const leaderCwd = pgid === null ? null : readCwd(pgid);
  const memberDifferent = () => {
    for (const p of foregroundJob(shellPid)?.processes ?? []) {
      if (p.pid === shellPid) continue;
      const cwd = readCwd(p.pid);
      if (cwd !== null && cwd !== shellCwd) return cwd;
    }
    return null;
  };
  const result =
    leaderCwd === shellCwd ? (memberDifferent() ?? leaderCwd) : (leaderCwd ?? memberDifferent());
  return result ?? undefined;
}

function faultApplies(view: StateView, id: string): boolean {
  return view.switches.faultPane === null || view.switches.faultPane === id;
}

function sessionWire(
  s: AgentSessionInfo | null,
  fault: Switches["sessionFault"],
): WireObject | undefined {
  if (s === null) return undefined;
  if (fault === "missing_source") return { agent: s.agent, kind: s.kind, value: s.value };
  if (fault === "missing_value") return { source: s.source, agent: s.agent, kind: s.kind };
  if (fault === "id_instead_of_value")
    return { source: s.source, agent: s.agent, kind: s.kind, id: s.value };
  return { source: s.source, agent: s.agent, kind: s.kind, value: s.value };
}

export function isFocused(
  view: StateView,
  wsIndex: number,
  ws: Workspace,
  tab: Tab,
  pane: number,
): boolean {
  return view.active === wsIndex && ws.tabs[ws.activeTab] === tab && tab.focusedPane === pane;
}

export function paneInfo(
  view: StateView,
  wsIndex: number,
  ws: Workspace,
  tab: Tab,
  pane: Pane,
): WireObject {
  const t: Terminal = pane.terminal;
  const id = paneId(ws, pane.number);
  const facts = view.liveFacts.get(t.tmuxPaneId);
  const faults = faultApplies(view, id);
  let agent: Wire = t.agent.effectiveLabel() ?? undefined;
  if (view.switches.omitTopLevelAgentAfterReport && t.agent.reportAgentSeen) agent = undefined;
  if (faults && view.switches.agentOverride !== null) agent = view.switches.agentOverride;
  if (faults && view.switches.agentNull) agent = null;
  return {
    pane_id: id,
    terminal_id: t.id,
    workspace_id: ws.id,
    tab_id: tabId(ws, tab),
    focused: isFocused(view, wsIndex, ws, tab, pane.number),
    cwd: view.procs.cwd(t.shellPid) ?? t.launchCwd,
    foreground_cwd: view.procs.foregroundCwd(t.shellPid),
    label: t.manualLabel,
    agent,
    title: undefined,
    terminal_title: t.terminalTitle,
    terminal_title_stripped: strippedTitle(t.terminalTitle),
    display_agent: undefined,
    agent_status: paneAgentStatus(t.agent.state, pane.seen),
    agent_session: sessionWire(t.agent.sessionInfo(), faults ? view.switches.sessionFault : null),
    scroll:
      facts === undefined
        ? undefined
        : {
            offset_from_bottom: facts.scrollPosition,
            max_offset_from_bottom: facts.historySize,
            viewport_rows: facts.height,
          },
    revision: t.revision,
  };
}

export function tabInfo(
  view: StateView,
  wsIndex: number,
  ws: Workspace,
  tabIndex: number,
): WireObject {
  const tab = ws.tabs[tabIndex] as Tab;
  const panes = paneIdsInLayout(tab.layout).flatMap((n) => ws.panes.get(n) ?? []);
  return {
    tab_id: tabId(ws, tab),
    workspace_id: ws.id,
    number: tab.number,
    label: tab.customName ?? String(tabIndex + 1),
    focused: view.active === wsIndex && ws.activeTab === tabIndex,
    pane_count: panes.length,
    agent_status: aggregateStatus(panes),
  };
}

/** fallback_label_from_cwd (the git repository label is not modelled). */
function workspaceLabel(view: StateView, ws: Workspace): string {
  if (ws.customName !== undefined) return ws.customName;
  if (ws.initialCwd === view.home) return "~";
  return basename(ws.initialCwd) || ws.initialCwd;
}

export function workspaceInfo(view: StateView, wsIndex: number): WireObject {
  const ws = view.workspaces[wsIndex] as Workspace;
  const active = ws.tabs[ws.activeTab] as Tab;
  return {
    workspace_id: ws.id,
    number: wsIndex + 1,
    label: workspaceLabel(view, ws),
    focused: view.active === wsIndex,
    pane_count: ws.panes.size,
    tab_count: ws.tabs.length,
    active_tab_id: tabId(ws, active),
    agent_status: aggregateStatus(ws.panes.values()),
  };
}

function layoutNodeWire(ws: Workspace, node: LayoutTree): WireObject {
  if (node.type === "split") {
    return {
      type: "split",
      direction: node.direction,
      ratio: new F32(node.ratio),
      first: layoutNodeWire(ws, node.first),
      second: layoutNodeWire(ws, node.second),
    };
  }
  const t = ws.panes.get(node.pane)?.terminal;
  return {
    type: "pane",
    pane_id: paneId(ws, node.pane),
    label: t?.manualLabel,
    cwd: t === undefined ? undefined : (readCwd(t.shellPid) ?? t.launchCwd),
    command: t?.launchArgv ?? undefined,
  };
}

export const systemProcs: ProcessReader = { cwd: readCwd, foregroundCwd };

export function layoutDescription(ws: Workspace, tab: Tab): WireObject {
  return {
    workspace_id: ws.id,
    tab_id: tabId(ws, tab),
    zoomed: false,
    focused_pane_id: paneId(ws, tab.focusedPane),
    root: layoutNodeWire(ws, tab.layout),
  };
}

/**
 * pane_layout_snapshot (src/app/api/panes.rs): rects are computed in `view.terminal_area`, which
 * stays Rect::default() on a headless server no client ever attached to, so every rect is zero.
 */
export function paneLayoutSnapshot(ws: Workspace, tab: Tab): WireObject {
  const area = { x: 0, y: 0, width: 0, height: 0 };
  const rects = layoutRects(tab.layout, area);
  return {
    workspace_id: ws.id,
    tab_id: tabId(ws, tab),
    zoomed: false,
    area,
    focused_pane_id: paneId(ws, tab.focusedPane),
    panes: rects.panes.map((p) => ({
      pane_id: paneId(ws, p.pane),
      focused: p.pane === tab.focusedPane,
      rect: p.rect,
    })),
    splits: rects.splits.map((s, i) => ({
      id:
        s.path.length === 0
          ? `split_${i}_root`
          : `split_${i}_${s.path.map((r) => (r ? "1" : "0")).join("")}`,
      direction: s.direction,
      ratio: new F32(s.ratio),
      rect: s.rect,
    })),
  };
}

/** AgentInfo (src/api/schema/agents.rs) for a pane Herdr counts as an agent terminal. */
export function agentInfo(
  view: StateView,
  wsIndex: number,
  ws: Workspace,
  tab: Tab,
  pane: Pane,
  name: string | undefined,
): WireObject {
  const p = paneInfo(view, wsIndex, ws, tab, pane);
  return {
    terminal_id: p.terminal_id,
    name,
    agent: p.agent,
    title: undefined,
    terminal_title: p.terminal_title,
    terminal_title_stripped: p.terminal_title_stripped,
    display_agent: undefined,
    agent_status: p.agent_status,
    agent_session: p.agent_session,
    workspace_id: p.workspace_id,
    tab_id: p.tab_id,
    pane_id: p.pane_id,
    focused: p.focused,
    state_change_seq: 0,
    cwd: p.cwd,
    foreground_cwd: p.foreground_cwd,
    revision: p.revision,
  };
}
