/**
 * Launch and pane proof. The visible pane comes from `layout.apply` with the TUI's argv as the
 * pane command (herdr-socket-api.md §3.1: the only argv launch; no shell, no typing), in the work
 * cwd with GROK_HOME set. The pane is then bound (`bindPane`: Herdr's view, the kernel's view of
 * `shell_pid`, settled exec, terminal) and the binding must show *our* process: the grok
 * executable we resolved, in the work cwd, as our uid. The TUI's kernel handle is taken right
 * after the proof and kept for the seat's life (exit observation, reliability-plan.md §2).
 *
 * No agent is required at bind time: Herdr identifies the agent (and the Grok hook reports its
 * session) some time after launch (golden G1); that is the later `agent` step.
 */
import { type CheckResult, expectEqual, firstFailure } from "../check.js";
import type { HerdrClient } from "../herdr/client.js";
import type { SessionDescriptor } from "../herdr/descriptor.js";
import { type LaunchPaneOptions, type LaunchResult, launchPane } from "../herdr/launch.js";
import type { KernelPort, ProcessHandle } from "../kernel/index.js";
import { bindPane } from "../observe/pane.js";
import type { PaneProofRecord } from "../proof/pane.js";
import { refuseOnCheck, SeatRefusal } from "./refusal.js";
import { outcome, type StepOutcome } from "./step-runner.js";

export type PanePlacement =
  | { readonly kind: "current" }
  | { readonly kind: "workspace"; readonly workspaceId: string }
  | { readonly kind: "new-workspace"; readonly label: string };

export interface LaunchInput {
  readonly herdr: HerdrClient;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly label: string;
  readonly placement: PanePlacement;
}

export async function launchStep(input: LaunchInput): Promise<StepOutcome<LaunchResult>> {
  const p = input.placement;
  const target: LaunchPaneOptions["target"] =
    p.kind === "workspace"
      ? { workspaceId: p.workspaceId }
      : p.kind === "new-workspace"
        ? { newWorkspace: { label: p.label, cwd: input.cwd } }
        : undefined;
  let launch: LaunchResult;
  try {
    launch = await launchPane(input.herdr, {
      argv: input.argv,
      cwd: input.cwd,
      env: input.env,
      label: input.label,
      tabLabel: input.label,
      ...(target === undefined ? {} : { target }),
    });
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    throw new SeatRefusal({
      step: "launch",
      code: "PANE_LAUNCH_FAILED",
      check: "launch.layout_apply",
      reason: `layout.apply failed: ${"code" in err ? String(err.code) : ""} ${err.message}`.trim(),
      cause: err,
    });
  }
  return outcome(
    launch,
    `Herdr opened pane ${launch.paneId} (workspace ${launch.workspaceId}) running ${input.argv.join(" ")}`,
    [
      expectEqual(
        "launch.argv_echo",
        [...input.argv],
        [...launch.argv],
        "Herdr echoed another argv",
      ),
    ],
    {
      paneId: launch.paneId,
      workspaceId: launch.workspaceId,
      tabId: launch.tabId,
      argv: [...launch.argv],
    },
  );
}

export interface PaneProofInput {
  readonly herdr: HerdrClient;
  readonly kernel: KernelPort;
  readonly launch: LaunchResult;
  readonly descriptor: SessionDescriptor;
  readonly sessionId: string;
  readonly grokExecutable: string;
  readonly cwd: string;
  readonly uid: number;
}

export interface ProvenPane {
  readonly record: PaneProofRecord;
  readonly tui: ProcessHandle;
}

function refusalCode(check: string): string {
  return check === "pane.agent" || check === "pane.native_session"
    ? "HERDR_AGENT_REFUSED"
    : "PANE_UNPROVEN";
}

export async function paneProofStep(input: PaneProofInput): Promise<StepOutcome<ProvenPane>> {
  const bound = await bindPane(input.herdr, input.kernel, {
    paneId: input.launch.paneId,
    launch: { argv: input.launch.argv, cwd: input.launch.cwd },
    sessionName: input.descriptor.sessionName,
    descriptor: input.descriptor,
    nativeSessionId: input.sessionId,
    expectedAgent: null,
  });
  const record = bound.record;
  const checks: CheckResult[] = [...bound.checks];
  if (record !== null) {
    // The bound process must be the TUI we asked for, not merely some process in the pane.
    checks.push(
      expectEqual(
        "pane.grok_executable",
        input.grokExecutable,
        record.process.executable,
        "the pane runs another executable than the grok we resolved",
      ),
      expectEqual("pane.cwd", input.cwd, record.process.cwd, "the TUI runs in another directory"),
      expectEqual("pane.uid", input.uid, record.process.uid, "the TUI runs as another user"),
    );
  }
  const failed = firstFailure(checks);
  if (failed !== undefined || record === null) {
    const f = failed ?? checks[checks.length - 1];
    if (f === undefined) {
      throw new SeatRefusal({
        step: "pane_proof",
        code: "PANE_UNPROVEN",
        reason: "the pane could not be bound",
      });
    }
    throw refuseOnCheck("pane_proof", refusalCode(f.check), f, { paneId: input.launch.paneId });
  }
  let tui: ProcessHandle;
  try {
    tui = input.kernel.openProcessHandle(record.process.pid, record.process.identity);
  } catch (err) {
    throw new SeatRefusal({
      step: "pane_proof",
      code: "IDENTITY_UNPROVEN",
      check: "pane.tui_handle",
      reason: `no kernel handle on the TUI pid ${record.process.pid} with its proven identity`,
      cause: err,
    });
  }
  const p = record.process;
  return outcome(
    { record, tui },
    `TUI pid ${p.pid} on ${p.tty}: ${p.executable ?? "?"} in ${p.cwd ?? "?"}, identity ${p.identity.kind}`,
    checks,
    {
      paneId: record.pane.paneId,
      terminalId: record.pane.terminalId,
      pid: p.pid,
      tty: p.tty,
      identity: { kind: p.identity.kind, value: p.identity.value },
      startTimeUs: p.startTimeUs,
      herdr: { version: record.herdr.version, serverPid: record.herdr.server.pid },
    },
  );
}
