// workspace.create, tab.create and layout.apply (src/app/api/workspaces.rs handle_workspace_create,
// src/app/api/tabs.rs handle_tab_create, src/app/api/layouts.rs handle_layout_apply): the same
// validation order, error codes and messages, the same events in the same order, and the same
// result records. workspace.create and tab.create start the default shell; layout.apply is the
// only way to start an argv command, always in a new tab.
import {
  layoutDescription,
  paneId,
  paneInfo,
  paneLayoutSnapshot,
  tabInfo,
  workspaceInfo,
} from "./info.js";
import { normalizeLaunchEnv } from "./launch.js";
import type {
  LayoutNodeSpec,
  LayoutPaneSpec,
  layoutApplyParams,
  tabCreateParams,
  workspaceCreateParams,
} from "./methods.js";
import {
  encodePublicNumber,
  type LayoutTree,
  paneIdsInLayout,
  singlePaneTab,
  splitLeaf,
  type Tab,
  type Terminal,
  type Workspace,
} from "./model.js";
import { foregroundProcessGroupId, readCwd } from "./procfs.js";
import type { HerdrSim, PaneLocation } from "./sim.js";
import { errorLine, successLine } from "./wire.js";

type WorkspaceCreateParams = ReturnType<typeof workspaceCreateParams>;
type TabCreateParams = ReturnType<typeof tabCreateParams>;
type LayoutApplyParams = ReturnType<typeof layoutApplyParams>;

const MAX_LAYOUT_PANES = 24;
const MAX_LAYOUT_DEPTH = 16;

/** follow_cwd of a pane: its foreground group's cwd, else its own, else where it started. */
export function followCwd(loc: PaneLocation | null): string | null {
  if (loc === null) return null;
  const t = loc.pane.terminal;
  const pgid = foregroundProcessGroupId(t.shellPid);
  return (pgid === null ? null : readCwd(pgid)) ?? readCwd(t.shellPid) ?? t.launchCwd;
}

function focusedPaneIn(sim: HerdrSim, wsIndex: number): PaneLocation | null {
  const ws = sim.workspaces[wsIndex];
  const tab = ws?.tabs[ws.activeTab];
  return tab === undefined ? null : sim.locate(wsIndex, tab.focusedPane);
}

async function emitTabOpen(sim: HerdrSim, wsIndex: number, tabIndex: number): Promise<void> {
  await sim.refreshLiveFacts(false);
  const ws = sim.workspaces[wsIndex] as Workspace;
  const tab = ws.tabs[tabIndex] as Tab;
  sim.emit("tab_created", { tab: tabInfo(sim, wsIndex, ws, tabIndex) });
  for (const n of paneIdsInLayout(tab.layout)) {
    const loc = sim.locate(wsIndex, n);
    if (loc !== null) sim.emit("pane_created", { pane: paneInfo(sim, wsIndex, ws, tab, loc.pane) });
  }
  sim.emit("layout_updated", { layout: paneLayoutSnapshot(ws, tab) });
}

export async function workspaceCreate(
  sim: HerdrSim,
  id: string,
  p: WorkspaceCreateParams,
): Promise<string> {
  const source = sim.active;
  const cwd = p.cwd ?? (source === null ? null : followCwd(focusedPaneIn(sim, source))) ?? sim.home;
  const env = normalizeLaunchEnv(p.env);
  if ("code" in env) return errorLine(id, env.code, env.message);
  const workspaceId = sim.allocWorkspaceId();
  const terminal = await sim.spawnTerminal(
    {
      workspaceId,
      tabId: `${workspaceId}:t1`,
      paneId: `${workspaceId}:p1`,
      tmuxSession: workspaceId,
    },
    cwd,
    null,
    env.ok,
    { kind: "session" },
  );
  if ("error" in terminal) return errorLine(id, "workspace_create_failed", terminal.error);
  const ws: Workspace = {
    id: workspaceId,
    customName: p.label,
    tabs: [singlePaneTab(1, 1, terminal.tmuxWindowId)],
    activeTab: 0,
    nextTabNumber: 2,
    nextPaneNumber: 2,
    panes: new Map([[1, { number: 1, terminal, seen: true }]]),
    initialCwd: cwd,
  };
  sim.workspaces.push(ws);
  const wsIndex = sim.workspaces.length - 1;
  if (p.focus || sim.active === null) sim.focusTab(wsIndex, 0);
  await sim.refreshLiveFacts(false);
  sim.emit("workspace_created", { workspace: workspaceInfo(sim, wsIndex) });
  await emitTabOpen(sim, wsIndex, 0);
  const tab = ws.tabs[0] as Tab;
  const pane = ws.panes.get(1);
  return successLine(id, {
    type: "workspace_created",
    workspace: workspaceInfo(sim, wsIndex),
    tab: tabInfo(sim, wsIndex, ws, 0),
    root_pane: pane === undefined ? null : paneInfo(sim, wsIndex, ws, tab, pane),
  });
}

function resolveWorkspace(
  sim: HerdrSim,
  id: string,
  workspaceId: string | undefined,
): number | string {
  if (workspaceId !== undefined) {
    const i = sim.parseWorkspaceId(workspaceId);
    return i ?? errorLine(id, "workspace_not_found", `workspace ${workspaceId} not found`);
  }
  return sim.active ?? errorLine(id, "workspace_not_found", "no active workspace");
}

export async function tabCreate(sim: HerdrSim, id: string, p: TabCreateParams): Promise<string> {
  const wsIndex = resolveWorkspace(sim, id, p.workspace_id);
  if (typeof wsIndex === "string") return wsIndex;
  const ws = sim.workspaces[wsIndex] as Workspace;
  const cwd = p.cwd ?? followCwd(focusedPaneIn(sim, wsIndex)) ?? sim.home;
  const env = normalizeLaunchEnv(p.env);
  if ("code" in env) return errorLine(id, env.code, env.message);
  const number = ws.nextTabNumber++;
  const paneNumber = ws.nextPaneNumber;
  const terminal = await sim.spawnTerminal(
    {
      workspaceId: ws.id,
      tabId: `${ws.id}:t${encodePublicNumber(number)}`,
      paneId: paneId(ws, paneNumber),
      tmuxSession: ws.id,
    },
    cwd,
    null,
    env.ok,
    { kind: "window", name: p.label ?? `t${encodePublicNumber(number)}` },
  );
  if ("error" in terminal) return errorLine(id, "tab_create_failed", terminal.error);
  ws.nextPaneNumber = paneNumber + 1;
  ws.panes.set(paneNumber, { number: paneNumber, terminal, seen: true });
  const tab = singlePaneTab(number, paneNumber, terminal.tmuxWindowId);
  tab.customName = p.label;
  ws.tabs.push(tab);
  const tabIndex = ws.tabs.length - 1;
  if (p.focus) sim.focusTab(wsIndex, tabIndex);
  await emitTabOpen(sim, wsIndex, tabIndex);
  const pane = ws.panes.get(paneNumber);
  return successLine(id, {
    type: "tab_created",
    tab: tabInfo(sim, wsIndex, ws, tabIndex),
    root_pane: pane === undefined ? null : paneInfo(sim, wsIndex, ws, tab, pane),
  });
}

/** validate_layout_tree: the first problem in a depth-first walk. */
function validateLayout(root: LayoutNodeSpec): string | null {
  let panes = 0;
  let maxDepth = 0;
  const walk = (node: LayoutNodeSpec, depth: number): string | null => {
    maxDepth = Math.max(maxDepth, depth);
    if (depth > MAX_LAYOUT_DEPTH) return `layout depth is ${depth}; maximum is ${MAX_LAYOUT_DEPTH}`;
    if (node.type === "pane") {
      panes += 1;
      if (panes > MAX_LAYOUT_PANES) return `layout has more than ${MAX_LAYOUT_PANES} panes`;
      if (node.pane.command !== undefined && node.pane.command.length === 0)
        return "pane command must not be empty";
      const env = normalizeLaunchEnv(node.pane.env);
      return "code" in env ? env.message : null;
    }
    if (!Number.isFinite(node.ratio)) return "split ratio must be finite";
    return walk(node.first, depth + 1) ?? walk(node.second, depth + 1);
  };
  return walk(root, 1);
}

function firstLeaf(node: LayoutNodeSpec): LayoutPaneSpec {
  return node.type === "pane" ? node.pane : firstLeaf(node.first);
}

function setLabel(t: Terminal, spec: LayoutPaneSpec): void {
  const label = spec.label?.trim();
  if (label) t.manualLabel = label;
}

export async function layoutApply(
  sim: HerdrSim,
  id: string,
  p: LayoutApplyParams,
): Promise<string> {
  let replace: { wsIndex: number; tabIndex: number } | null = null;
  if (p.tab_id !== undefined) {
    replace = sim.parseTabId(p.tab_id);
    if (replace === null) return errorLine(id, "tab_not_found", `tab ${p.tab_id} not found`);
  }
  if (replace !== null && p.workspace_id !== undefined)
    return errorLine(id, "invalid_target", "use either tab_id or workspace_id, not both");
  const wsIndex = replace?.wsIndex ?? resolveWorkspace(sim, id, p.workspace_id);
  if (typeof wsIndex === "string") return wsIndex;
  const invalid = validateLayout(p.root);
  if (invalid !== null) return errorLine(id, "invalid_layout", invalid);
  const ws = sim.workspaces[wsIndex] as Workspace;
  const oldTab = replace === null ? undefined : ws.tabs[replace.tabIndex];
  const tabLabel = p.tab_label ?? oldTab?.customName;
  const replaceWasActive =
    replace !== null && sim.active === wsIndex && ws.activeTab === replace.tabIndex;
  const rootLeaf = firstLeaf(p.root);
  const followFrom =
    oldTab === undefined ? focusedPaneIn(sim, wsIndex) : sim.locate(wsIndex, oldTab.focusedPane);
  const cwd = rootLeaf.cwd ?? followCwd(followFrom) ?? sim.home;
  const env = normalizeLaunchEnv(rootLeaf.env);
  if ("code" in env) return errorLine(id, env.code, env.message);

  const number = ws.nextTabNumber++;
  const rootNumber = ws.nextPaneNumber;
  const tabPublicId = `${ws.id}:t${encodePublicNumber(number)}`;
  const terminal = await sim.spawnTerminal(
    { workspaceId: ws.id, tabId: tabPublicId, paneId: paneId(ws, rootNumber), tmuxSession: ws.id },
    cwd,
    rootLeaf.command ?? null,
    env.ok,
    { kind: "window", name: tabLabel ?? `t${encodePublicNumber(number)}` },
  );
  if ("error" in terminal) return errorLine(id, "layout_apply_failed", terminal.error);
  ws.nextPaneNumber = rootNumber + 1;
  ws.panes.set(rootNumber, { number: rootNumber, terminal, seen: true });
  const tab = singlePaneTab(number, rootNumber, terminal.tmuxWindowId);
  tab.customName = tabLabel;
  ws.tabs.push(tab);
  setLabel(terminal, rootLeaf);

  // apply_layout_node_to_pane: split off each second child, then recurse first, then second.
  const created: Terminal[] = [terminal];
  const applyNode = async (pane: number, node: LayoutNodeSpec): Promise<string | null> => {
    const at = ws.panes.get(pane);
    if (at === undefined) return "pane not found";
    if (node.type === "pane") {
      setLabel(at.terminal, node.pane);
      return null;
    }
    const leaf = firstLeaf(node.second);
    const leafEnv = normalizeLaunchEnv(leaf.env);
    if ("code" in leafEnv) return leafEnv.message;
    const added = ws.nextPaneNumber;
    const leafCwd = leaf.cwd ?? followCwd(sim.locate(wsIndex, pane)) ?? sim.home;
    const spawned = await sim.spawnTerminal(
      { workspaceId: ws.id, tabId: tabPublicId, paneId: paneId(ws, added), tmuxSession: ws.id },
      leafCwd,
      leaf.command ?? null,
      leafEnv.ok,
      { kind: "split" },
    );
    if ("error" in spawned) return spawned.error;
    created.push(spawned);
    ws.nextPaneNumber = added + 1;
    ws.panes.set(added, { number: added, terminal: spawned, seen: true });
    tab.layout = splitLeaf(tab.layout, pane, node.direction, node.ratio, added) as LayoutTree;
    setLabel(spawned, leaf);
    return (await applyNode(pane, node.first)) ?? (await applyNode(added, node.second));
  };
  const failure = await applyNode(rootNumber, p.root);
  if (failure !== null) {
    // rollback_layout_tab
    ws.tabs.splice(ws.tabs.indexOf(tab), 1);
    for (const n of paneIdsInLayout(tab.layout)) ws.panes.delete(n);
    for (const t of created) await sim.killTerminal(t);
    return errorLine(id, "layout_apply_failed", failure);
  }

  if (oldTab !== undefined && ws.tabs.length > 1) {
    const oldIndex = ws.tabs.indexOf(oldTab);
    const closedId = `${ws.id}:t${encodePublicNumber(oldTab.number)}`;
    const old = paneIdsInLayout(oldTab.layout).flatMap((n) => ws.panes.get(n) ?? []);
    ws.tabs.splice(oldIndex, 1);
    if (ws.activeTab >= ws.tabs.length) ws.activeTab = ws.tabs.length - 1;
    else if (oldIndex <= ws.activeTab && ws.activeTab > 0) ws.activeTab -= 1;
    for (const pane of old) {
      ws.panes.delete(pane.number);
      await sim.killTerminal(pane.terminal);
    }
    sim.emit("tab_closed", { tab_id: closedId, workspace_id: ws.id });
  }
  const tabIndex = ws.tabs.indexOf(tab);
  if (p.focus || replaceWasActive) sim.focusTab(wsIndex, tabIndex);
  await emitTabOpen(sim, wsIndex, tabIndex);
  return successLine(id, { type: "layout_apply", layout: layoutDescription(ws, tab) });
}
