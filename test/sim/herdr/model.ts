// The simulator's Herdr state: workspaces hold tabs, tabs hold a layout tree of panes, each pane
// is attached to one terminal (a tmux pane running the launched process). Public ids follow
// src/workspace.rs: workspaces `w<N>` from one global counter, tabs `w<N>:t<M>` and panes
// `w<N>:p<K>` from per-workspace counters that start at 1 and are never reused; numbers use the
// alphabet 123456789ABCDEFGHJKMNPQRSTVWXYZ0 (encode_public_number).
import type { TerminalAgentState } from "./agent-state.js";
import type { SplitDirection } from "./methods.js";

const ALPHABET = "123456789ABCDEFGHJKMNPQRSTVWXYZ0";

export function encodePublicNumber(value: number): string {
  if (value === 0) return "0";
  let out = "";
  let v = value;
  while (v > 0) {
    out = ALPHABET[(v - 1) % ALPHABET.length] + out;
    v = Math.floor((v - 1) / ALPHABET.length);
  }
  return out;
}

export function decodePublicNumber(value: string): number | null {
  if (value === "") return null;
  let n = 0;
  for (const ch of value) {
    const digit = ALPHABET.indexOf(ch);
    if (digit < 0) return null;
    n = n * ALPHABET.length + digit + 1;
  }
  return n;
}

export type Terminal = {
  readonly id: string;
  readonly launchArgv: readonly string[] | null;
  readonly launchCwd: string;
  manualLabel: string | undefined;
  /** The managed agent name set by agent.start. */
  agentName: string | undefined;
  readonly agent: TerminalAgentState;
  terminalTitle: string | undefined;
  revision: number;
  readonly shellPid: number;
  readonly shellStartTime: string;
  readonly tmuxPaneId: string;
  readonly tmuxWindowId: string;
  readonly tty: string;
  /** Set once the sim has handled this terminal's end (exit or close). */
  gone: boolean;
};

export type Pane = {
  readonly number: number;
  readonly terminal: Terminal;
  seen: boolean;
};

export type LayoutTree =
  | { readonly type: "pane"; readonly pane: number }
  | {
      readonly type: "split";
      readonly direction: SplitDirection;
      ratio: number;
      first: LayoutTree;
      second: LayoutTree;
    };

export type Tab = {
  readonly number: number;
  customName: string | undefined;
  layout: LayoutTree;
  focusedPane: number;
  readonly rootPane: number;
  readonly tmuxWindowId: string;
};

/** A tab of one pane, its root and its focus: what a new tab or workspace starts as. */
export function singlePaneTab(number: number, pane: number, tmuxWindowId: string): Tab {
  return {
    number,
    customName: undefined,
    layout: { type: "pane", pane },
    focusedPane: pane,
    rootPane: pane,
    tmuxWindowId,
  };
}

export type Workspace = {
  readonly id: string;
  customName: string | undefined;
  readonly tabs: Tab[];
  activeTab: number;
  nextTabNumber: number;
  nextPaneNumber: number;
  readonly panes: Map<number, Pane>;
  readonly initialCwd: string;
};

export function paneIdsInLayout(tree: LayoutTree): number[] {
  return tree.type === "pane"
    ? [tree.pane]
    : [...paneIdsInLayout(tree.first), ...paneIdsInLayout(tree.second)];
}

/** Replace a pane leaf with a split whose first child is that pane (Tab::split_pane). */
export function splitLeaf(
  tree: LayoutTree,
  target: number,
  direction: SplitDirection,
  ratio: number,
  added: number,
): LayoutTree {
  if (tree.type === "pane") {
    if (tree.pane !== target) return tree;
    return { type: "split", direction, ratio, first: tree, second: { type: "pane", pane: added } };
  }
  return {
    ...tree,
    first: splitLeaf(tree.first, target, direction, ratio, added),
    second: splitLeaf(tree.second, target, direction, ratio, added),
  };
}

/** Remove a pane leaf; its sibling takes the parent's place. Null when the tree empties. */
export function removeLeaf(tree: LayoutTree, target: number): LayoutTree | null {
  if (tree.type === "pane") return tree.pane === target ? null : tree;
  const first = removeLeaf(tree.first, target);
  const second = removeLeaf(tree.second, target);
  if (first === null) return second;
  if (second === null) return first;
  return { ...tree, first, second };
}

export type Rect = { x: number; y: number; width: number; height: number };

/** Pane rectangles by splitting the area at each ratio (the sim's geometry, not Herdr's chrome). */
export function layoutRects(
  tree: LayoutTree,
  area: Rect,
): {
  panes: Array<{ pane: number; rect: Rect }>;
  splits: Array<{ path: boolean[]; direction: SplitDirection; ratio: number; rect: Rect }>;
} {
  const panes: Array<{ pane: number; rect: Rect }> = [];
  const splits: Array<{ path: boolean[]; direction: SplitDirection; ratio: number; rect: Rect }> =
    [];
  const walk = (node: LayoutTree, rect: Rect, path: boolean[]) => {
    if (node.type === "pane") {
      panes.push({ pane: node.pane, rect });
      return;
    }
    splits.push({ path, direction: node.direction, ratio: node.ratio, rect });
    // split_rect (src/layout.rs): `((size as f32) * ratio).round()`.
    const part = (size: number) =>
      Math.round(Math.fround(Math.fround(size) * Math.fround(node.ratio)));
    if (node.direction === "right") {
      const w = Math.min(rect.width, part(rect.width));
      walk(node.first, { ...rect, width: w }, [...path, false]);
      walk(node.second, { ...rect, x: rect.x + w, width: rect.width - w }, [...path, true]);
    } else {
      const h = Math.min(rect.height, part(rect.height));
      walk(node.first, { ...rect, height: h }, [...path, false]);
      walk(node.second, { ...rect, y: rect.y + h, height: rect.height - h }, [...path, true]);
    }
  };
  walk(tree, area, []);
  return { panes, splits };
}

let terminalCounter = 1;

/** TerminalId::alloc: `term_<hex microseconds><hex counter>`. */
export function allocTerminalId(): string {
  const micros = BigInt(Date.now()) * 1000n + BigInt(Math.floor((performance.now() % 1) * 1000));
  return `term_${micros.toString(16)}${(terminalCounter++).toString(16)}`;
}
