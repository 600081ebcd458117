// The request `Method` enum of Herdr 0.8.0/HEAD and 0.8.2 (src/api/schema.rs, in declaration
// order, without the `#[serde(skip)]` variants), the enum of 0.9.x (the same plus the 11 methods
// 0.9.0 added, at their declaration positions), and typed params for the methods the simulator
// models (src/api/schema/{panes,tabs,workspaces,events,agents,server}.rs).

import {
  anyValue,
  bool,
  type Decoder,
  def,
  f32,
  opt,
  req,
  str,
  stringMap,
  struct,
  taggedEnum,
  u32,
  u64,
  u64Big,
  unitEnum,
  vec,
} from "./serde-content.js";
import type { JsonValue } from "./serde-json-read.js";

/** Every deserializable `Method` variant name of 0.8; unknown-variant messages list these. */
export const METHOD_NAMES: readonly string[] = [
  "ping",
  "server.stop",
  "server.live_handoff",
  "server.reload_config",
  "server.agent_manifests",
  "server.reload_agent_manifests",
  "notification.show",
  "client.window_title.set",
  "client.window_title.clear",
  "session.snapshot",
  "workspace.create",
  "workspace.list",
  "workspace.get",
  "workspace.focus",
  "workspace.rename",
  "workspace.move",
  "workspace.move_block",
  "workspace.report_metadata",
  "workspace.close",
  "worktree.list",
  "worktree.create",
  "worktree.open",
  "worktree.remove",
  "tab.create",
  "tab.list",
  "tab.get",
  "tab.focus",
  "tab.rename",
  "tab.move",
  "tab.close",
  "agent.list",
  "agent.get",
  "agent.read",
  "agent.explain",
  "agent.send_keys",
  "agent.rename",
  "agent.view.set",
  "agent.view.clear",
  "agent.focus",
  "agent.start",
  "agent.prompt",
  "agent.wait",
  "pane.split",
  "pane.swap",
  "pane.move",
  "pane.zoom",
  "pane.layout",
  "pane.process_info",
  "layout.export",
  "layout.apply",
  "layout.set_split_ratio",
  "pane.neighbor",
  "pane.edges",
  "pane.focus_direction",
  "pane.resize",
  "pane.list",
  "pane.current",
  "pane.get",
  "pane.focus",
  "pane.input.set",
  "pane.rename",
  "pane.send_text",
  "pane.send_keys",
  "pane.send_input",
  "pane.read",
  "pane.graphics.set",
  "pane.graphics.clear",
  "pane.graphics.info",
  "pane.graphics.stream",
  "pane.report_agent",
  "pane.report_agent_session",
  "pane.report_metadata",
  "pane.clear_agent_authority",
  "pane.release_agent",
  "pane.close",
  "popup.close",
  "events.subscribe",
  "events.wait",
  "pane.wait_for_output",
  "integration.install",
  "integration.uninstall",
  "plugin.link",
  "plugin.list",
  "plugin.unlink",
  "plugin.enable",
  "plugin.disable",
  "plugin.action.list",
  "plugin.action.invoke",
  "plugin.log.list",
  "plugin.pane.open",
  "plugin.pane.focus",
  "plugin.pane.close",
];

/**
 * The 11 methods Herdr 0.9.0 added (protocol 22), each after the 0.8 variant it follows in the
 * 0.9 declaration order. The names are the published 0.8.2 -> 0.9.0 schema diff (no removals);
 * the positions come from `Method` in src/api/schema.rs and `api_method_name` in
 * src/api/server.rs of later herdrdev/herdr master commits, minus the methods added after 0.9.0.
 */
export const METHODS_ADDED_IN_0_9: ReadonlyArray<
  readonly [after: string, added: readonly string[]]
> = [
  [
    "notification.show",
    ["product_announcement.dismiss", "release_notes.dismiss", "command.invoke"],
  ],
  ["client.window_title.clear", ["client_shell.surface.set"]],
  [
    "pane.resize",
    [
      "pane.scroll",
      "pane.edit_scrollback",
      "pane.selection.read",
      "pane.copy_motion",
      "pane.copy_search",
    ],
  ],
  ["pane.input.set", ["pane.link.activate"]],
  ["pane.wait_for_output", ["integration.list"]],
];

/** The 0.9.x `Method` enum. */
export const METHOD_NAMES_0_9: readonly string[] = METHOD_NAMES.flatMap((name) => [
  name,
  ...(METHODS_ADDED_IN_0_9.find(([after]) => after === name)?.[1] ?? []),
]);

export type MethodSet = "0.8" | "0.9";

export function methodNames(set: MethodSet): readonly string[] {
  return set === "0.9" ? METHOD_NAMES_0_9 : METHOD_NAMES;
}

/** Not part of Herdr: accepted only when the simulator runs with --test-control. */
export const SIM_METHOD_NAMES: readonly string[] = [
  "sim.configure",
  "sim.injection_log",
  "sim.event_ring",
];

export const AGENT_STATUSES = ["idle", "working", "blocked", "done", "unknown"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
export const PANE_AGENT_STATES = ["idle", "working", "blocked", "unknown"] as const;
export type PaneAgentState = (typeof PANE_AGENT_STATES)[number];
export type SplitDirection = "right" | "down";
export type ReadSource = "visible" | "recent" | "recent_unwrapped" | "detection";

const agentStatus = unitEnum(AGENT_STATUSES);
const splitDirection = unitEnum<SplitDirection>(["right", "down"]);
const readSource = unitEnum<ReadSource>(["visible", "recent", "recent_unwrapped", "detection"]);
const emptyMap = () => new Map<string, string>();

export const emptyParams = (name: string) => struct(name, {});
export const paneTarget = struct("PaneTarget", { pane_id: req("pane_id", str) });
export const workspaceTarget = struct("WorkspaceTarget", {
  workspace_id: req("workspace_id", str),
});
export const tabTarget = struct("TabTarget", { tab_id: req("tab_id", str) });

export const workspaceCreateParams = struct("WorkspaceCreateParams", {
  cwd: opt(str),
  focus: def(bool, () => false),
  label: opt(str),
  env: def(stringMap, emptyMap),
});

export const tabCreateParams = struct("TabCreateParams", {
  workspace_id: opt(str),
  cwd: opt(str),
  focus: def(bool, () => false),
  label: opt(str),
  env: def(stringMap, emptyMap),
});

export const tabListParams = struct("TabListParams", { workspace_id: opt(str) });

export type LayoutPaneSpec = {
  readonly pane_id: string | undefined;
  readonly label: string | undefined;
  readonly cwd: string | undefined;
  readonly command: string[] | undefined;
  readonly env: Map<string, string>;
};
export type LayoutNodeSpec =
  | { readonly type: "pane"; readonly pane: LayoutPaneSpec }
  | {
      readonly type: "split";
      readonly direction: SplitDirection;
      readonly ratio: number;
      readonly first: LayoutNodeSpec;
      readonly second: LayoutNodeSpec;
    };

const layoutPane = struct("LayoutPane", {
  pane_id: opt(str),
  label: opt(str),
  cwd: opt(str),
  command: opt(vec(str)),
  env: def(stringMap, emptyMap),
});

export const layoutNode: Decoder<LayoutNodeSpec> = taggedEnum<LayoutNodeSpec>(
  "LayoutNode",
  "type",
  {
    pane: (v) => ({ type: "pane", pane: layoutPane(v) }),
    split: (v) => {
      const s = struct("Split", {
        direction: req("direction", splitDirection),
        ratio: req("ratio", f32),
        first: req("first", (x: JsonValue) => layoutNode(x)),
        second: req("second", (x: JsonValue) => layoutNode(x)),
      })(v);
      return { type: "split", ...s };
    },
  },
);

export const layoutApplyParams = struct("LayoutApplyParams", {
  workspace_id: opt(str),
  tab_id: opt(str),
  tab_label: opt(str),
  focus: def(bool, () => false),
  root: req("root", layoutNode),
});

export const layoutExportParams = struct("LayoutExportParams", {
  tab_id: opt(str),
  pane_id: opt(str),
});

export const paneListParams = struct("PaneListParams", { workspace_id: opt(str) });
export const paneCurrentParams = struct("PaneCurrentParams", { caller_pane_id: opt(str) });
export const paneProcessInfoParams = struct("PaneProcessInfoParams", { pane_id: opt(str) });

export const paneReportAgentParams = struct("PaneReportAgentParams", {
  pane_id: req("pane_id", str),
  source: req("source", str),
  agent: req("agent", str),
  state: req("state", unitEnum(PANE_AGENT_STATES)),
  message: opt(str),
  seq: opt(u64Big),
  agent_session_id: opt(str),
  agent_session_path: opt(str),
});

export const paneReportAgentSessionParams = struct("PaneReportAgentSessionParams", {
  pane_id: req("pane_id", str),
  source: req("source", str),
  agent: req("agent", str),
  seq: opt(u64Big),
  agent_session_id: opt(str),
  agent_session_path: opt(str),
  session_start_source: opt(str),
});

export const paneClearAgentAuthorityParams = struct("PaneClearAgentAuthorityParams", {
  pane_id: req("pane_id", str),
  source: opt(str),
  seq: opt(u64Big),
});

export const paneReleaseAgentParams = struct("PaneReleaseAgentParams", {
  pane_id: req("pane_id", str),
  source: req("source", str),
  agent: req("agent", str),
  seq: opt(u64Big),
});

export const paneSendTextParams = struct("PaneSendTextParams", {
  pane_id: req("pane_id", str),
  text: req("text", str),
});

export const paneSendKeysParams = struct("PaneSendKeysParams", {
  pane_id: req("pane_id", str),
  keys: req("keys", vec(str)),
});

export const paneSendInputParams = struct("PaneSendInputParams", {
  pane_id: req("pane_id", str),
  text: def(str, () => ""),
  keys: def(vec(str), () => []),
});

export const paneReadParams = struct("PaneReadParams", {
  pane_id: req("pane_id", str),
  source: req("source", readSource),
  lines: opt(u32),
  format: def(unitEnum(["text", "ansi"] as const), () => "text" as const),
  strip_ansi: def(bool, () => true),
});

export const agentStartParams = struct("AgentStartParams", {
  name: req("name", str),
  kind: req("kind", str),
  pane_id: req("pane_id", str),
  args: def(vec(str), () => []),
  timeout_ms: opt(u64),
});

const agentPromptWaitOptions = struct("AgentPromptWaitOptions", {
  until: def(vec(agentStatus), () => []),
  timeout_ms: opt(u64),
});

export const agentPromptParams = struct("AgentPromptParams", {
  target: req("target", str),
  text: req("text", str),
  wait: opt(agentPromptWaitOptions),
});

export type OutputMatchSpec = { readonly type: "substring" | "regex"; readonly value: string };
const outputMatch: Decoder<OutputMatchSpec> = taggedEnum<OutputMatchSpec>("OutputMatch", "type", {
  substring: (v) => ({
    type: "substring",
    value: struct("Substring", { value: req("value", str) })(v).value,
  }),
  regex: (v) => ({ type: "regex", value: struct("Regex", { value: req("value", str) })(v).value }),
});

/** Lifecycle subscriptions are `{}` struct variants; three are pane scoped. */
export const LIFECYCLE_SUBSCRIPTIONS = [
  "workspace.created",
  "workspace.updated",
  "workspace.metadata_updated",
  "workspace.renamed",
  "workspace.moved",
  "workspace.reordered",
  "workspace.closed",
  "workspace.focused",
  "worktree.created",
  "worktree.opened",
  "worktree.removed",
  "tab.created",
  "tab.closed",
  "tab.focused",
  "tab.renamed",
  "tab.moved",
  "pane.created",
  "pane.closed",
  "pane.updated",
  "pane.focused",
  "pane.moved",
  "pane.exited",
  "pane.agent_detected",
] as const;

export type SubscriptionSpec =
  | { readonly type: "lifecycle"; readonly name: string }
  | {
      readonly type: "pane.output_matched";
      readonly pane_id: string;
      readonly source: ReadSource;
      readonly lines: number | undefined;
      readonly match: OutputMatchSpec;
      readonly strip_ansi: boolean;
    }
  | {
      readonly type: "pane.agent_status_changed";
      readonly pane_id: string;
      readonly agent_status: AgentStatus | undefined;
    }
  | { readonly type: "pane.scroll_changed"; readonly pane_id: string };

function subscriptionVariants(): Record<string, Decoder<SubscriptionSpec>> {
  const variants: Record<string, Decoder<SubscriptionSpec>> = {};
  const lifecycle =
    (name: string): Decoder<SubscriptionSpec> =>
    (v) => {
      struct(name, {})(v);
      return { type: "lifecycle", name };
    };
  // Declaration order of `Subscription` in src/api/schema/events.rs.
  for (const name of LIFECYCLE_SUBSCRIPTIONS) variants[name] = lifecycle(name);
  variants["pane.output_matched"] = (v) => ({
    type: "pane.output_matched",
    ...struct("PaneOutputMatched", {
      pane_id: req("pane_id", str),
      source: req("source", readSource),
      lines: opt(u32),
      match: req("match", outputMatch),
      strip_ansi: def(bool, () => true),
    })(v),
  });
  variants["pane.agent_status_changed"] = (v) => ({
    type: "pane.agent_status_changed",
    ...struct("PaneAgentStatusChanged", {
      pane_id: req("pane_id", str),
      agent_status: opt(agentStatus),
    })(v),
  });
  variants["pane.scroll_changed"] = (v) => ({
    type: "pane.scroll_changed",
    ...struct("PaneScrollChanged", { pane_id: req("pane_id", str) })(v),
  });
  variants["layout.updated"] = lifecycle("layout.updated");
  return variants;
}

export const eventsSubscribeParams = struct("EventsSubscribeParams", {
  subscriptions: req(
    "subscriptions",
    vec(taggedEnum<SubscriptionSpec>("Subscription", "type", subscriptionVariants())),
  ),
});

export type EventMatchSpec =
  | {
      readonly event: "pane_agent_status_changed";
      readonly pane_id: string;
      readonly agent_status: AgentStatus;
    }
  | { readonly event: "other"; readonly name: string };

function eventMatchVariants(): Record<string, Decoder<EventMatchSpec>> {
  const o = () => opt(str);
  const r = (name: string) => req(name, str);
  const other =
    (name: string, spec: Record<string, ReturnType<typeof r> | ReturnType<typeof o>>) =>
    (v: JsonValue): EventMatchSpec => {
      struct(name, spec)(v);
      return { event: "other", name };
    };
  return {
    workspace_created: other("WorkspaceCreated", { workspace_id: o() }),
    workspace_updated: other("WorkspaceUpdated", { workspace_id: r("workspace_id") }),
    workspace_closed: other("WorkspaceClosed", { workspace_id: r("workspace_id") }),
    workspace_renamed: other("WorkspaceRenamed", {
      workspace_id: r("workspace_id"),
      label: o(),
    }),
    workspace_moved: other("WorkspaceMoved", { workspace_id: r("workspace_id") }),
    workspace_focused: other("WorkspaceFocused", { workspace_id: r("workspace_id") }),
    tab_created: other("TabCreated", { tab_id: o(), workspace_id: o() }),
    tab_closed: other("TabClosed", { tab_id: r("tab_id") }),
    tab_renamed: other("TabRenamed", { tab_id: r("tab_id"), label: o() }),
    tab_moved: other("TabMoved", { tab_id: r("tab_id") }),
    tab_focused: other("TabFocused", { tab_id: r("tab_id") }),
    pane_created: other("PaneCreated", { pane_id: o(), workspace_id: o() }),
    pane_closed: other("PaneClosed", { pane_id: r("pane_id") }),
    pane_focused: other("PaneFocused", { pane_id: r("pane_id") }),
    pane_moved: other("PaneMoved", { pane_id: r("pane_id") }),
    pane_output_changed: (v) => {
      struct("PaneOutputChanged", { pane_id: r("pane_id"), min_revision: opt(u64) })(v);
      return { event: "other", name: "pane_output_changed" };
    },
    pane_exited: other("PaneExited", { pane_id: r("pane_id") }),
    pane_agent_detected: other("PaneAgentDetected", { pane_id: r("pane_id"), agent: o() }),
    pane_agent_status_changed: (v) => ({
      event: "pane_agent_status_changed",
      ...struct("PaneAgentStatusChanged", {
        pane_id: req("pane_id", str),
        agent_status: req("agent_status", agentStatus),
      })(v),
    }),
  };
}

export const eventsWaitParams = struct("EventsWaitParams", {
  match_event: req(
    "match_event",
    taggedEnum<EventMatchSpec>("EventMatch", "event", eventMatchVariants()),
  ),
  timeout_ms: opt(u64),
});

/** Decoders by method; anything not listed is accepted as-is and answered "not simulated". */
export const PARAM_DECODERS: Readonly<Record<string, Decoder<unknown>>> = {
  ping: emptyParams("PingParams"),
  "session.snapshot": emptyParams("EmptyParams"),
  "workspace.create": workspaceCreateParams,
  "workspace.list": emptyParams("EmptyParams"),
  "workspace.get": workspaceTarget,
  "tab.create": tabCreateParams,
  "tab.list": tabListParams,
  "tab.get": tabTarget,
  "layout.apply": layoutApplyParams,
  "layout.export": layoutExportParams,
  "pane.get": paneTarget,
  "pane.focus": paneTarget,
  "pane.close": paneTarget,
  "pane.list": paneListParams,
  "pane.current": paneCurrentParams,
  "pane.process_info": paneProcessInfoParams,
  "pane.read": paneReadParams,
  "pane.report_agent": paneReportAgentParams,
  "pane.report_agent_session": paneReportAgentSessionParams,
  "pane.clear_agent_authority": paneClearAgentAuthorityParams,
  "pane.release_agent": paneReleaseAgentParams,
  "pane.send_text": paneSendTextParams,
  "pane.send_keys": paneSendKeysParams,
  "pane.send_input": paneSendInputParams,
  "agent.start": agentStartParams,
  "agent.prompt": agentPromptParams,
  "events.subscribe": eventsSubscribeParams,
  "events.wait": eventsWaitParams,
  "sim.configure": anyValue,
  "sim.injection_log": anyValue,
};
