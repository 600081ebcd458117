/**
 * Step `launch`: the visible pane, from `layout.apply` with the TUI's argv as the pane command
 * (docs/design/herdr-socket-api.md §3.1: the only argv launch; no shell, no typing), in the work
 * cwd with GROK_HOME set. From here on the TUI lives in the runtime directory: a refused hire
 * leaves both to the owner.
 */
import { expectEqual } from "../../check.js";
import type { HerdrClient } from "../../herdr/client.js";
import { type LaunchPaneOptions, type LaunchResult, launchPane } from "../../herdr/launch.js";
import { type LaunchMode, tuiArgv } from "../policy.js";
import { refuseOnCheck, refuseOnThrow } from "../refusal.js";
import { checkHeldDir, letGoDir } from "../runtime-dir.js";
import { hireStep, outcome } from "../step-runner.js";
import type { Runtime } from "./runtime-dir.js";

export type PanePlacement =
  | { readonly kind: "current" }
  | { readonly kind: "workspace"; readonly workspaceId: string }
  | { readonly kind: "new-workspace"; readonly label: string };

export interface LaunchInput {
  readonly herdr: HerdrClient;
  readonly grokExecutable: string;
  readonly runtime: Runtime;
  readonly mode: LaunchMode;
  readonly cwd: string;
  /** The caller's extra environment for the TUI; GROK_HOME is always the profile's. */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** Pane label (default "grok seat"). */
  readonly label?: string | undefined;
  /** Where the pane opens (default: a new workspace of its own, labelled like the pane). */
  readonly placement?: PanePlacement | undefined;
}

/** The pane Herdr opened, and the argv we asked it to run (the kernel's is compared with it). */
export interface Launched extends LaunchResult {
  readonly sentArgv: readonly string[];
}

export const launch = hireStep("launch", async (input: LaunchInput, ctx) => {
  const label = input.label ?? "grok seat";
  const p = input.placement ?? { kind: "new-workspace", label };
  const target: LaunchPaneOptions["target"] =
    p.kind === "workspace"
      ? { workspaceId: p.workspaceId }
      : p.kind === "new-workspace"
        ? { newWorkspace: { label: p.label, cwd: input.cwd } }
        : undefined;
  const argv = tuiArgv(input.grokExecutable, input.runtime.socketPath, input.mode);
  // The directory the TUI will use for its socket and GROK_HOME is still the one we made.
  const held = input.runtime.held;
  const same = checkHeldDir(held);
  if (!same.ok) {
    ctx.stack.release(held);
    letGoDir(held, false); // not ours to remove any more
    throw refuseOnCheck("launch", "RUNTIME_DIR_UNSAFE", same);
  }
  const launched = await refuseOnThrow(
    {
      step: "launch",
      code: "PANE_LAUNCH_FAILED",
      check: "launch.layout_apply",
      reason: (f) => `layout.apply failed: ${f.code} ${f.message}`,
    },
    () =>
      launchPane(input.herdr, {
        argv,
        cwd: input.cwd,
        env: { ...(input.env ?? {}), GROK_HOME: input.runtime.profile.grokHome },
        label,
        tabLabel: label,
        ...(target === undefined ? {} : { target }),
      }),
  );
  // The TUI's socket and lock are in the runtime directory now: it stays for the owner.
  ctx.stack.release(held);
  letGoDir(held, false);
  ctx.left.runtimeDir = input.runtime.dir;
  ctx.left.paneId = launched.paneId;
  const value: Launched = { ...launched, sentArgv: argv };
  return outcome(
    value,
    `Herdr opened pane ${launched.paneId} (workspace ${launched.workspaceId}) running ${argv.join(" ")}`,
    [
      same,
      expectEqual("launch.argv_echo", [...argv], [...launched.argv], "Herdr echoed another argv"),
    ],
    {
      paneId: launched.paneId,
      workspaceId: launched.workspaceId,
      tabId: launched.tabId,
      argv: [...launched.argv],
    },
  );
});
