/**
 * Launch a visible pane whose process *is* the argv command (docs/design/herdr-socket-api.md §3.1).
 * `layout.apply` is the only socket method that spawns an arbitrary argv, directly and without a
 * shell, so `pane.process_info.shell_pid` is the command's own pid. Optionally the pane gets a
 * fresh workspace first (`workspace.create`, then `layout.apply` on its tab, replacing the shell).
 *
 * This module can only call what `HerdrClient` allows (`methods.ts`): there is no way from here to
 * type into a pane (`pane.send_*`, `agent.start`, `agent.prompt`; §8).
 */
import { UsageError } from "../errors.js";
import type { HerdrClient, RequestOptions } from "./client.js";
import { HerdrError, type HerdrErrorCode } from "./herdr-error.js";
import type { LayoutApplyParams, LayoutPaneParams } from "./methods.js";
import type { LayoutDescription } from "./wire-pane.js";

export interface LaunchPaneOptions {
  /** The command, spawned directly (no shell); argv[0] is looked up in the pane's PATH. */
  readonly argv: readonly string[];
  /** The pane's manual label (`PaneInfo.label`). */
  readonly label?: string;
  readonly cwd?: string;
  /** Set on the process; Herdr's own HERDR_* variables win on conflict (§1.1). */
  readonly env?: Readonly<Record<string, string>>;
  readonly tabLabel?: string;
  /** Switch the UI to the new tab (default true: the pane is meant to be seen). */
  readonly focus?: boolean;
  /** Where: the active workspace (default), a given one, or a new one with this label. */
  readonly target?:
    | { readonly workspaceId: string }
    | { readonly newWorkspace: { readonly label?: string; readonly cwd?: string } };
  readonly request?: RequestOptions;
  /** How an argv may appear in an error's details (e.g. with a secret-bearing element masked). */
  readonly shownArgv?: (argv: readonly string[]) => string[];
}

export interface LaunchResult {
  readonly paneId: string;
  readonly workspaceId: string;
  readonly tabId: string;
  /** The argv as Herdr echoed it back (`TerminalState.launch_argv`). */
  readonly argv: readonly string[];
  readonly cwd: string | null;
  readonly label: string | null;
  /** The workspace created for this launch, if any. */
  readonly createdWorkspaceId: string | null;
  readonly layout: LayoutDescription;
}

/** Herdr's rules for env entries (`invalid_layout` / `invalid_env`, §1.4): checked before sending. */
function validate(options: LaunchPaneOptions): void {
  if (options.argv.length === 0 || options.argv[0] === "") {
    throw new UsageError<HerdrErrorCode>(
      "LAUNCH_ARGV_EMPTY",
      "the pane command needs a non-empty argv[0]",
    );
  }
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (key === "" || key.includes("=") || key.includes("\0") || value.includes("\0")) {
      throw new UsageError<HerdrErrorCode>(
        "LAUNCH_ENV_INVALID",
        `invalid env entry ${JSON.stringify(key)}`,
        {
          details: { key },
        },
      );
    }
  }
}

export async function launchPane(
  client: HerdrClient,
  options: LaunchPaneOptions,
): Promise<LaunchResult> {
  validate(options);
  const focus = options.focus ?? true;
  const root: LayoutPaneParams = {
    type: "pane",
    command: [...options.argv],
    ...(options.label === undefined ? {} : { label: options.label }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
  };
  const common = {
    focus,
    root,
    ...(options.tabLabel === undefined ? {} : { tab_label: options.tabLabel }),
  };
  let params: LayoutApplyParams = common;
  let createdWorkspaceId: string | null = null;
  const target = options.target;
  if (target !== undefined && "workspaceId" in target) {
    params = { ...common, workspace_id: target.workspaceId };
  } else if (target !== undefined) {
    const ws = target.newWorkspace;
    const created = await client.request(
      "workspace.create",
      {
        focus,
        ...(ws.label === undefined ? {} : { label: ws.label }),
        ...(ws.cwd === undefined ? {} : { cwd: ws.cwd }),
      },
      options.request,
    );
    createdWorkspaceId = created.workspace.workspace_id;
    // Replacing the new workspace's only tab kills its default shell (§3.1 recipe).
    params = { ...common, tab_id: created.tab.tab_id };
  }
  const { layout } = await client.request("layout.apply", params, options.request);
  const node = layout.root;
  if (node.type !== "pane" || typeof node.pane_id !== "string") {
    throw new HerdrError("LAUNCH_REPLY_UNEXPECTED", "layout.apply did not return one pane", {
      details: { root: node.type },
    });
  }
  const echoed = node.command ?? null;
  if (
    echoed === null ||
    echoed.length !== options.argv.length ||
    echoed.some((a, i) => a !== options.argv[i])
  ) {
    throw new HerdrError("LAUNCH_REPLY_UNEXPECTED", "Herdr echoed another command than ours", {
      details: {
        sent: options.shownArgv?.(options.argv) ?? [...options.argv],
        echoed: echoed === null ? null : (options.shownArgv?.(echoed) ?? echoed),
      },
    });
  }
  if (createdWorkspaceId !== null && layout.workspace_id !== createdWorkspaceId) {
    throw new HerdrError("LAUNCH_REPLY_UNEXPECTED", "the pane landed in another workspace", {
      details: { expected: createdWorkspaceId, received: layout.workspace_id },
    });
  }
  return {
    paneId: node.pane_id,
    workspaceId: layout.workspace_id,
    tabId: layout.tab_id,
    argv: echoed,
    cwd: node.cwd ?? null,
    label: node.label ?? null,
    createdWorkspaceId,
    layout,
  };
}
