/**
 * Step `pane_proof`: the launched pane bound to its process (`bindPane`: Herdr's view, the
 * kernel's view of `shell_pid`, settled exec, terminal), and that process must be *our* TUI: the
 * grok executable we resolved, in the work cwd, as our uid. The TUI's kernel handle is taken right
 * after the proof and kept for the seat's life (exit observation, docs/design/reliability-plan.md
 * §2), and the exit watch is armed now, while the TUI is still starting its leader (awaited at
 * `ready`).
 *
 * No agent is required yet: Herdr identifies the agent (and the Grok hook reports its session)
 * some time after launch (golden G1); that is the later `agent` step.
 */
import { type CheckResult, expectEqual, firstFailure } from "../../check.js";
import { isErrorCode } from "../../errors.js";
import type { HerdrClient } from "../../herdr/client.js";
import type { JsonValue } from "../../json.js";
import type { KernelPort, ProcessHandle } from "../../kernel/index.js";
import { bindPane } from "../../observe/pane.js";
import { type PaneExitWatch, watchPaneExit } from "../../observe/pane-exit.js";
import type { HarnessBinding } from "../../proof/agent-reconcile.js";
import type { BoundTui } from "../../proof/leader.js";
import type { PaneProofRecord } from "../../proof/pane.js";
import type { SessionDescriptor } from "../../proof/session-descriptor.js";
import { redactArgv } from "../persona.js";
import { refuseOnCheck, refuseOnThrow, SeatRefusal } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";
import type { LaunchedPane } from "./launch.js";

export interface PaneProofInput {
  readonly herdr: HerdrClient;
  readonly launch: LaunchedPane;
  readonly descriptor: SessionDescriptor;
  readonly sessionId: string;
  readonly grokExecutable: string;
  readonly cwd: string;
}

export interface ProvenPane {
  /** The pane proof with the agent claim control requires (`GROK_BINDING`). */
  readonly record: PaneProofRecord;
  readonly tui: ProcessHandle;
  /** The TUI as the leader proofs bind it. */
  readonly boundTui: BoundTui;
  /** Armed now, kept for the seat's life. */
  readonly exitWatch: Promise<PaneExitWatch>;
}

/** What Herdr must name the seat's pane: grok, with its session as an id (`src/agent_resume.rs`). */
export const GROK_BINDING: HarnessBinding = { expectedAgent: "grok", expectedSessionKind: "id" };

/**
 * `pane.argv`: the argv the kernel holds for the TUI (Linux /proc/<pid>/cmdline, macOS sysctl
 * KERN_PROCARGS2) is the one we launched, not merely the one Herdr echoed. Where the kernel's
 * cannot be read (a platform without either) the check says so and passes on the weaker evidence:
 * the executable, cwd and uid above, and the leader and session the later steps prove through this
 * argv's socket and session id.
 */
function argvCheck(kernel: KernelPort, pid: number, sent: readonly string[]): CheckResult {
  let argv: readonly string[];
  try {
    argv = kernel.processArgv(pid);
  } catch (err) {
    if (isErrorCode(err, "UNSUPPORTED")) {
      const received: JsonValue = { unsupported: `argv is not read on ${process.platform}` };
      return { check: "pane.argv", ok: true, expected: redactArgv(sent), received, reason: null };
    }
    if (!isErrorCode(err)) throw err;
    return expectEqual("pane.argv", redactArgv(sent), { unavailable: err.code }, err.message);
  }
  // Compared on the real argv, in memory; shown and recorded with a persona as its digest.
  const same = argv.length === sent.length && argv.every((a, i) => a === sent[i]);
  return {
    check: "pane.argv",
    ok: same,
    expected: redactArgv(sent),
    received: redactArgv(argv),
    reason: same ? null : "the TUI runs with another argv than the one we launched",
  };
}

function refusalCode(check: string): string {
  return check === "pane.agent" || check === "pane.native_session"
    ? "HERDR_AGENT_REFUSED"
    : "PANE_UNPROVEN";
}

export const paneProof = hireStep("pane_proof", async (input: PaneProofInput, ctx) => {
  const bound = await bindPane(input.herdr, ctx.kernel, {
    paneId: input.launch.paneId,
    // Recorded: the persona's text (if any) appears as its digest only (persona.ts).
    launch: { argv: redactArgv(input.launch.argv), cwd: input.launch.cwd },
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
      expectEqual("pane.uid", ctx.uid, record.process.uid, "the TUI runs as another user"),
      argvCheck(ctx.kernel, record.process.pid, input.launch.sentArgv),
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
  const p = record.process;
  const tui = await refuseOnThrow(
    {
      step: "pane_proof",
      code: "IDENTITY_UNPROVEN",
      check: "pane.tui_handle",
      reason: () => `no kernel handle on the TUI pid ${p.pid} with its proven identity`,
    },
    () => ctx.stack.adopt(ctx.kernel.openProcessHandle(p.pid, p.identity), (h) => h.close()),
  );
  ctx.left.tuiPid = p.pid;
  const claimed: PaneProofRecord = { ...record, ...GROK_BINDING };
  const exitWatch = watchPaneExit(input.herdr, ctx.kernel, claimed, { handle: tui });
  exitWatch.catch(() => {});
  ctx.stack.defer(async () => (await exitWatch.catch(() => null))?.close());
  const value: ProvenPane = {
    record: claimed,
    tui,
    boundTui: { pid: p.pid, identity: p.identity, cwd: input.cwd },
    exitWatch,
  };
  return outcome(
    value,
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
});
