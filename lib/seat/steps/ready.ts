/**
 * Step `ready`: the seat record (every proof, lib/seat/seat-record.ts) is written 0600,
 * atomically; the TUI's exit watch armed at `pane_proof` is in place; the `Seat` is made and
 * registered with this process's registry (only seats hired here are ever admitted, registry.ts).
 */
import { join } from "node:path";
import type { AcpSession } from "../../acp/acp-session.js";
import type { InitializeFacts } from "../../acp/handshake.js";
import type { CheckResult } from "../../check.js";
import type { Controller } from "../../delivery/index.js";
import type { ActiveSession } from "../../grok/active-sessions.js";
import { nativeTranscriptPath } from "../../grok/native-transcript.js";
import { readProcess, type SocketFacts } from "../../kernel/index.js";
import type { LeaderConnection } from "../../leader/leader-connection.js";
import type { AgentVerdict } from "../../proof/agent-reconcile.js";
import { redactArgv } from "../persona.js";
import { refuseOnThrow } from "../refusal.js";
import type { SeatRegistry } from "../registry.js";
import { RECORD_NAME } from "../runtime-dir.js";
import { Seat } from "../seat.js";
import { type SeatRecord, writeSeatRecord } from "../seat-record.js";
import { buildSeatRecord } from "../seat-record-build.js";
import { hireStep, outcome } from "../step-runner.js";
import type { LaunchedPane } from "./launch.js";
import type { ProvenLeader } from "./leader-proof.js";
import type { ProvenPane } from "./pane-proof.js";
import type { Preflight } from "./preflight.js";
import type { Runtime } from "./runtime-dir.js";

export interface ReadyInput {
  readonly sessionId: string;
  readonly conversationId: string | null;
  readonly pre: Preflight;
  readonly runtime: Runtime;
  readonly journalDir: string;
  readonly pane: ProvenPane;
  readonly launch: LaunchedPane;
  readonly socket: SocketFacts;
  readonly controller: Controller;
  readonly conn: LeaderConnection;
  readonly leader: ProvenLeader;
  readonly activeSession: ActiveSession;
  readonly agent: AgentVerdict;
  readonly init: InitializeFacts;
  readonly session: AcpSession;
  readonly model: SeatRecord["model"];
  readonly persona: NonNullable<SeatRecord["persona"]> | null;
  readonly skillsDiscovered: NonNullable<SeatRecord["skillsDiscovered"]> | null;
  readonly bank: NonNullable<SeatRecord["bank"]> | null;
  /** Closed when the seat is released (the bank's proxy). */
  readonly closeWithSeat: readonly (() => Promise<void>)[];
  readonly profileConfig: NonNullable<SeatRecord["profileConfig"]> | null;
  /** The passed checks of every step so far. */
  readonly proofs: Readonly<Record<string, readonly CheckResult[]>>;
  readonly registry: SeatRegistry<Seat>;
}

export const ready = hireStep("ready", async (input: ReadyInput, ctx) => {
  const { runtime, pane, pre, sessionId } = input;
  const recordPath = join(runtime.dir, RECORD_NAME);
  const self = readProcess(ctx.kernel, process.pid);
  const record = buildSeatRecord({
    sessionId,
    conversationId: input.conversationId,
    cwd: pre.cwd,
    runtimeDir: runtime.dir,
    journalDir: input.journalDir,
    socketPath: runtime.socketPath,
    lockPath: runtime.lockPath,
    nativeTranscript: nativeTranscriptPath(runtime.profile.grokHome, pre.cwd, sessionId),
    launch: {
      argv: redactArgv(input.launch.argv),
      env: input.launch.seatEnv,
      callerEnv: input.launch.callerEnvNames,
    },
    controller: {
      pid: process.pid,
      identity: self.ok ? self.facts.identity : null,
      epoch: input.controller.epoch,
    },
    profile: runtime.profile,
    skills: pre.skills,
    grokExecutable: pre.grokExecutable,
    cli: pre.cliVersion,
    registered: input.conn.registered,
    init: input.init,
    pane: pane.record,
    leader: input.leader.facts,
    leaderInfo: input.leader.info,
    socket: input.socket,
    activeSession: input.activeSession,
    agent: input.agent,
    model: input.model,
    persona: input.persona,
    skillsDiscovered: input.skillsDiscovered,
    bank: input.bank,
    profileConfig: input.profileConfig,
    proofs: input.proofs,
    now: new Date(),
  });
  await refuseOnThrow(
    {
      step: "ready",
      code: "RECORD_WRITE_FAILED",
      check: "ready.record",
      reason: () => `the seat record could not be written to ${recordPath}`,
    },
    () => writeSeatRecord(recordPath, record),
  );
  const exitWatch = await pane.exitWatch;
  const seat = new Seat({
    herdr: pre.herdr,
    kernel: ctx.kernel,
    conn: input.conn,
    controller: input.controller,
    acp: input.session,
    tui: pane.tui,
    leader: input.leader.handle,
    exitWatch,
    record,
    recordPath,
    registry: input.registry,
    closeWithSeat: input.closeWithSeat,
  });
  input.registry.register(seat);
  return outcome(
    seat,
    `seat ready: session ${sessionId} in pane ${pane.record.pane.paneId}; record ${recordPath} (0600)`,
    [],
    {
      sessionId,
      paneId: pane.record.pane.paneId,
      recordPath,
      exitWatchAnchored: exitWatch.anchored,
    },
  );
});
