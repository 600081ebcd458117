/**
 * Step `launch`: the visible pane, from `layout.apply` with the TUI's argv as the pane command
 * (docs/design/herdr-socket-api.md §3.1: the only argv launch; no shell, no typing), in the work
 * cwd with GROK_HOME and the seat's own variables set (lib/grok/seat-env.ts:
 * `GROK_DISABLE_AUTOUPDATER=1`, which the leader inherits). From here on the TUI lives in the
 * runtime directory: a refused hire leaves both to the owner.
 *
 * `workspace.create` and `layout.apply` change Herdr: given up on too early, they may still open
 * a TUI that no proof covers (Herdr never times a request out, docs/design/herdr-socket-api.md §1.3). So they
 * wait as long as the hire waits for any request (`requestMs`), not the client's read deadline.
 */
import { fail, pass } from "../../check.js";
import { SEAT_PANE_ENV, seatPaneEnv } from "../../grok/seat-env.js";
import type { HerdrClient } from "../../herdr/client.js";
import { type LaunchPaneOptions, type LaunchResult, launchPane } from "../../herdr/launch.js";
import { type Persona, redactArgv, rulesArg } from "../persona.js";
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
  /** The persona of a fresh hire (`--rules=<text>`); its text never leaves memory. */
  readonly persona?: Persona | null | undefined;
  /** Deadline of each Herdr request that creates something (the hire's `requestMs`). */
  readonly requestMs?: number | undefined;
}

/**
 * The launched pane, the argv we asked Herdr to run (the kernel's is compared with it; it holds
 * the persona's text, so it stays in memory) and what the seat put into its environment.
 */
export interface LaunchedPane extends LaunchResult {
  readonly sentArgv: readonly string[];
  /** The variables the seat itself set (GROK_HOME, GROK_DISABLE_AUTOUPDATER). */
  readonly seatEnv: Readonly<Record<string, string>>;
  /** Names of the caller's extra variables (their values are not recorded). */
  readonly callerEnvNames: readonly string[];
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
  const persona = input.persona ?? null;
  const argv = tuiArgv(
    input.grokExecutable,
    input.runtime.socketPath,
    input.mode,
    persona === null ? null : rulesArg(persona),
  );
  // What may be shown or recorded: the persona's text replaced by its digest (persona.ts).
  const shown = redactArgv(argv);
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
        env: seatPaneEnv(input.env, input.runtime.profile.grokHome),
        label,
        tabLabel: label,
        ...(target === undefined ? {} : { target }),
        shownArgv: redactArgv,
        ...(input.requestMs === undefined ? {} : { request: { timeoutMs: input.requestMs } }),
      }),
  );
  // The TUI's socket and lock are in the runtime directory now: it stays for the owner.
  ctx.stack.release(held);
  letGoDir(held, false);
  ctx.left.runtimeDir = input.runtime.dir;
  ctx.left.paneId = launched.paneId;
  const seatEnv = { ...SEAT_PANE_ENV, GROK_HOME: input.runtime.profile.grokHome };
  const callerEnvNames = Object.keys(input.env ?? {})
    .filter((k) => !(k in seatEnv))
    .sort();
  return outcome<LaunchedPane>(
    { ...launched, sentArgv: argv, seatEnv, callerEnvNames },
    `Herdr opened pane ${launched.paneId} (workspace ${launched.workspaceId}) running ${shown.join(" ")}`,
    [
      same,
      // Compared on the real argv, in memory; recorded with the persona as its digest.
      launched.argv.length === argv.length && launched.argv.every((a, i) => a === argv[i])
        ? pass("launch.argv_echo", shown, redactArgv(launched.argv))
        : fail("launch.argv_echo", shown, redactArgv(launched.argv), "Herdr echoed another argv"),
    ],
    {
      paneId: launched.paneId,
      workspaceId: launched.workspaceId,
      tabId: launched.tabId,
      argv: redactArgv(launched.argv),
      seatEnv,
    },
  );
});
