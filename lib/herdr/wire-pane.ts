/**
 * Valibot schemas for the pane-shaped values in Herdr replies (docs/design/herdr-socket-api.md §3-§4;
 * `src/api/schema/panes.rs`, `workspaces.rs`, `tabs.rs`, `agents.rs`).
 *
 * Optional fields follow the published JSON schema (`docs/next/api/herdr-api.schema.json`): the
 * real server omits them, but the schema types them `["string","null"]` and Herdr's own serde
 * reads `null` as absent, so we accept `null` there too. Two fields are deliberately *not*
 * interpreted here: `agent` and `agent_session` stay `unknown` so that a null, a contradiction or
 * a malformed session (golden cases G5-G7c) reaches the agent reconciler as a named refusal
 * instead of a generic parse error (`agent-reconcile.ts`).
 */
import * as v from "valibot";

const optionalText = v.exactOptional(v.nullable(v.string()));
const uint = v.pipe(v.number(), v.integer(), v.minValue(0));
const optionalUint = v.exactOptional(v.nullable(uint));

/** `AgentStatus` (`src/api/schema/common.rs`). */
export const AgentStatusSchema = v.picklist(["idle", "working", "blocked", "done", "unknown"]);
export type AgentStatus = v.InferOutput<typeof AgentStatusSchema>;

export const PaneScrollSchema = v.looseObject({
  offset_from_bottom: uint,
  max_offset_from_bottom: uint,
  viewport_rows: uint,
});

/**
 * `PaneInfo` as returned by `pane.get`, `pane.list`, `pane.current`. Unknown keys are kept
 * (forward compatibility: newer Herdr versions add fields). No pid and no tty: Herdr has none here.
 */
export const PaneInfoSchema = v.looseObject({
  pane_id: v.string(),
  terminal_id: v.string(),
  workspace_id: v.string(),
  tab_id: v.string(),
  focused: v.boolean(),
  cwd: optionalText,
  foreground_cwd: optionalText,
  label: optionalText,
  /** Raw: the effective agent label, judged by `reconcileAgent`. */
  agent: v.exactOptional(v.unknown()),
  title: optionalText,
  terminal_title: optionalText,
  terminal_title_stripped: optionalText,
  display_agent: optionalText,
  agent_status: AgentStatusSchema,
  state_labels: v.exactOptional(v.nullable(v.record(v.string(), v.string()))),
  tokens: v.exactOptional(v.nullable(v.record(v.string(), v.string()))),
  /** Raw: `{source, agent, kind, value}` when well-formed, judged by `reconcileAgent`. */
  agent_session: v.exactOptional(v.unknown()),
  scroll: v.exactOptional(v.nullable(PaneScrollSchema)),
  revision: uint,
});
export type PaneInfo = v.InferOutput<typeof PaneInfoSchema>;

/** One member of the pane's foreground process group (`PaneProcessInfoProcess`). */
export const PaneProcessSchema = v.looseObject({
  pid: uint,
  name: v.string(),
  argv0: optionalText,
  argv: v.exactOptional(v.nullable(v.array(v.string()))),
  cmdline: optionalText,
  cwd: optionalText,
});

/**
 * `PaneProcessInfo`. `shell_pid` is the PTY child (for a `layout.apply` argv pane, the command
 * itself). `tty` is in the schema but the real server never fills it (`tests/api_ping.rs`); we
 * still accept a string so a future server's value can be compared with the kernel's (§4.2).
 */
export const PaneProcessInfoSchema = v.looseObject({
  pane_id: v.string(),
  shell_pid: optionalUint,
  foreground_process_group_id: optionalUint,
  tty: optionalText,
  foreground_processes: v.exactOptional(v.nullable(v.array(PaneProcessSchema))),
});
export type PaneProcessInfo = v.InferOutput<typeof PaneProcessInfoSchema>;

/** Output pane node of a `LayoutDescription`: never carries `env` (§3.1). */
export const LayoutPaneNodeSchema = v.looseObject({
  type: v.literal("pane"),
  pane_id: optionalText,
  label: optionalText,
  cwd: optionalText,
  command: v.exactOptional(v.nullable(v.array(v.string()))),
});

export interface LayoutSplitNode {
  readonly type: "split";
  readonly direction: "right" | "down";
  readonly ratio: number;
  readonly first: LayoutNodeOut;
  readonly second: LayoutNodeOut;
}
export type LayoutNodeOut = v.InferOutput<typeof LayoutPaneNodeSchema> | LayoutSplitNode;

/**
 * Bounds on a layout tree in a reply. Herdr refuses to build a layout deeper than 16 (the root is
 * depth 1) or with more than 24 panes (`MAX_LAYOUT_DEPTH` / `MAX_LAYOUT_PANES`,
 * `src/app/api/layouts.rs`; docs/design/herdr-socket-api.md `invalid_layout`), so a reply describing one is
 * not from Herdr. The bounds are four times Herdr's, generous on purpose: they exist to keep
 * `LayoutNodeSchema`, which recurses through `v.lazy`, far from the call stack's limit (a reply
 * nested a few thousand splits deep threw RangeError, T7 decoders-herdr).
 */
export const MAX_REPLY_LAYOUT_DEPTH = 64;
export const MAX_REPLY_LAYOUT_PANES = 96;

/**
 * Whether a raw (not yet validated) layout tree stays within the reply bounds. Iterative, and it
 * stops at the first node past a bound, so its work is bounded whatever the value is; a node that
 * is not a split counts as a pane and is left for the schema to judge.
 */
export function layoutWithinBounds(root: unknown): boolean {
  const stack: { node: unknown; depth: number }[] = [{ node: root, depth: 1 }];
  let panes = 0;
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, depth } = item;
    if (depth > MAX_REPLY_LAYOUT_DEPTH) return false;
    if (typeof node === "object" && node !== null && "type" in node && node.type === "split") {
      stack.push({ node: "second" in node ? node.second : undefined, depth: depth + 1 });
      stack.push({ node: "first" in node ? node.first : undefined, depth: depth + 1 });
    } else if (++panes > MAX_REPLY_LAYOUT_PANES) {
      return false;
    }
  }
  return true;
}

export const LayoutNodeSchema: v.GenericSchema<unknown, LayoutNodeOut> = v.variant("type", [
  LayoutPaneNodeSchema,
  v.looseObject({
    type: v.literal("split"),
    direction: v.picklist(["right", "down"]),
    ratio: v.number(),
    first: v.lazy(() => LayoutNodeSchema),
    second: v.lazy(() => LayoutNodeSchema),
  }),
]);

/** `LayoutDescription {workspace_id, tab_id, zoomed, focused_pane_id, root}`. */
export const LayoutDescriptionSchema = v.looseObject({
  workspace_id: v.string(),
  tab_id: v.string(),
  zoomed: v.boolean(),
  focused_pane_id: v.string(),
  // The bounds are checked on the raw value first: LayoutNodeSchema never sees a deep tree.
  root: v.pipe(
    v.unknown(),
    v.check(
      layoutWithinBounds,
      `layout deeper than ${MAX_REPLY_LAYOUT_DEPTH} or with more than ${MAX_REPLY_LAYOUT_PANES} panes`,
    ),
    LayoutNodeSchema,
  ),
});
export type LayoutDescription = v.InferOutput<typeof LayoutDescriptionSchema>;

/** `WorkspaceInfo` (`src/api/schema/workspaces.rs`). */
export const WorkspaceInfoSchema = v.looseObject({
  workspace_id: v.string(),
  number: uint,
  label: v.string(),
  focused: v.boolean(),
  pane_count: uint,
  tab_count: uint,
  active_tab_id: v.string(),
  agent_status: AgentStatusSchema,
});

/** `TabInfo` (`src/api/schema/tabs.rs`). */
export const TabInfoSchema = v.looseObject({
  tab_id: v.string(),
  workspace_id: v.string(),
  number: uint,
  label: v.string(),
  focused: v.boolean(),
  pane_count: uint,
  agent_status: AgentStatusSchema,
});

/** `ServerCapabilities`; `detached_server_daemon` is `#[serde(default)]` (added in 0.8.0). */
export const ServerCapabilitiesSchema = v.looseObject({
  live_handoff: v.boolean(),
  detached_server_daemon: v.optional(v.boolean(), false),
});
