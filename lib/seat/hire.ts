/**
 * `hire()`: the whole flow, from nothing to a ready seat, in one call (seed ADR 0224, issue 8).
 *
 *   preflight → runtime_dir → session_id → launch → pane_proof → leader_wait → socket_proof →
 *   admission → connect → register → leader_proof → active_sessions → agent → acp_initialize →
 *   versions → catalog → attach → model → ready
 *
 * Every step is reported (`onProgress`), every refusal is a `SeatRefusal` naming the step, the
 * failed check, a stable code and the owner's next step. Nothing is retried, nothing reconnects,
 * nothing is typed into a pane. A refused hire closes what it opened (connection, admission lock,
 * kernel handles); the TUI it launched stays in its pane for the owner (the library never stops a
 * TUI), and so does the leader that TUI started (only an observed TUI exit permits stopping it).
 */

import type net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AcpSession } from "../acp/acp-session.js";
import { firstFailure } from "../check.js";
import type { Controller } from "../delivery/index.js";
import { GrokSeatError } from "../errors.js";
import { lockPathForSocket } from "../grok/paths.js";
import { HerdrClient } from "../herdr/client.js";
import { discoverSocket } from "../herdr/discovery.js";
import {
  type KernelPort,
  type ProcessHandle,
  type ProcessIdentity,
  processFacts,
  systemKernel,
} from "../kernel/index.js";
import type { LeaderConnection } from "../leader/leader-connection.js";
import { type PaneExitWatch, watchPaneExit } from "../observe/pane-exit.js";
import { attachSteps, modelStep } from "./acp-steps.js";
import { activeSessionStep, agentStep } from "./evidence-steps.js";
import type { HireListener } from "./hire-events.js";
import {
  admissionStep,
  connectStep,
  leaderProofStep,
  registerStep,
  socketProofStep,
} from "./leader-steps.js";
import { waitForLeader } from "./leader-wait.js";
import { launchStep, type PanePlacement, paneProofStep } from "./pane-step.js";
import { freshSessionId, type LaunchMode, tuiArgv } from "./policy.js";
import { preflight } from "./preflight.js";
import { materializeProfile, type ProfileSpec } from "./profile.js";
import { buildSeatRecord } from "./record-build.js";
import { refuseOnCheck, SeatRefusal } from "./refusal.js";
import type { SeatRegistry } from "./registry.js";
import { createRuntimeDir, RECORD_NAME, removeRuntimeDir } from "./runtime-dir.js";
import { defaultSeatRegistry, Seat } from "./seat.js";
import { type SeatRecord, writeSeatRecord } from "./seat-record.js";
import { outcome, StepRunner } from "./step-runner.js";

export interface HireTimeouts {
  /** TUI start to a listening leader (default 30 s; grok waits 10 s for its own spawn). */
  readonly leaderMs?: number;
  /** For the TUI's `active_sessions.json` entry (default 15 s). */
  readonly activeSessionMs?: number;
  /** For Herdr to identify the agent (default 10 s). */
  readonly agentMs?: number;
  /** Each leader registration, control and ACP request (default 30 s). */
  readonly requestMs?: number;
}

export interface HireOptions {
  /** The work directory the TUI runs in. */
  readonly cwd: string;
  /** An explicit GROK_HOME, or a temporary profile made from an explicit login file. */
  readonly profile: ProfileSpec;
  /** Which Herdr server: an explicit socket path or session name, else discovery (§1.1). */
  readonly herdr?: {
    readonly socketPath?: string;
    readonly sessionName?: string;
    readonly timeoutMs?: number;
  };
  /** The grok executable (default: `grok` on PATH), resolved to its canonical path. */
  readonly grok?: string;
  /** Where the private runtime directory is created (default: the system temp dir). */
  readonly runtimeBase?: string;
  /** The orchestrator's conversation this seat serves (recorded; resume must name it). */
  readonly conversationId?: string;
  readonly model?: { readonly modelId: string; readonly effort?: string | null };
  /** Skill paths to record as a manifest (checked readable, never installed). */
  readonly skills?: readonly string[];
  /** Extra environment for the TUI (and so its leader); GROK_HOME is always the profile's. */
  readonly env?: Readonly<Record<string, string>>;
  /** Pane label (default "grok seat"). */
  readonly label?: string;
  /** Where the pane opens (default: a new workspace of its own, labelled like the pane). */
  readonly placement?: PanePlacement;
  readonly timeouts?: HireTimeouts;
  readonly onProgress?: HireListener;
  readonly registry?: SeatRegistry<Seat>;
  readonly signal?: AbortSignal;
  /** The kernel port (default: the real one); the bench instruments it. */
  readonly kernel?: KernelPort;
}

/** What a refused hire left behind, for the owner (and for tests that clean up). */
interface Leftovers {
  runtimeDir: string | null;
  launched: boolean;
  paneId: string | null;
  tuiPid: number | null;
  leaderPid: number | null;
  tui: ProcessHandle | null;
  leader: ProcessHandle | null;
  socket: net.Socket | null;
  conn: LeaderConnection | null;
  controller: Controller | null;
  acp: AcpSession | null;
  exitWatch: Promise<PaneExitWatch> | null;
}

function selfIdentity(): ProcessIdentity | null {
  try {
    return processFacts(process.pid).identity;
  } catch {
    return null;
  }
}

/** Hire a fresh seat: a new visible Grok chat with a new session UUID. */
export function hire(options: HireOptions): Promise<Seat> {
  return hireWith(options, { kind: "fresh", sessionId: freshSessionId() });
}

/** The flow for a fresh launch or (from resume.ts) an admitted resume. */
export async function hireWith(options: HireOptions, mode: LaunchMode): Promise<Seat> {
  const run = new StepRunner(options.onProgress, options.signal);
  const kernel = options.kernel ?? systemKernel;
  const t = options.timeouts ?? {};
  const requestMs = t.requestMs ?? 30_000;
  const uid = typeof process.getuid === "function" ? process.getuid() : -1;
  const env = { ...process.env, ...(options.env ?? {}) };
  const left: Leftovers = {
    runtimeDir: null,
    launched: false,
    paneId: null,
    tuiPid: null,
    leaderPid: null,
    tui: null,
    leader: null,
    socket: null,
    conn: null,
    controller: null,
    acp: null,
    exitWatch: null,
  };
  try {
    const pre = await run.run("preflight", async () => {
      let found: ReturnType<typeof discoverSocket>;
      try {
        found = discoverSocket({
          explicitPath: options.herdr?.socketPath,
          explicitSession: options.herdr?.sessionName,
          env: process.env,
          tmpdir: tmpdir(),
          cwd: process.cwd(),
        });
      } catch (err) {
        throw new SeatRefusal({
          step: "preflight",
          code: "HERDR_UNREACHABLE",
          check: "herdr.discovery",
          reason: err instanceof Error ? err.message : String(err),
          cause: err,
        });
      }
      const client = new HerdrClient({
        socketPath: found.socketPath,
        ...(options.herdr?.timeoutMs === undefined ? {} : { timeoutMs: options.herdr.timeoutMs }),
      });
      const probeEnv =
        options.profile.kind === "grok-home"
          ? { ...env, GROK_HOME: options.profile.grokHome }
          : env;
      const p = await preflight({
        grok: options.grok ?? null,
        cwd: options.cwd,
        profile: options.profile,
        skills: options.skills ?? [],
        env: probeEnv,
        herdr: client,
        herdrSessionName: found.sessionName,
        kernel,
      });
      return outcome(
        { ...p, herdr: client },
        `${p.platform}; ${p.cliVersion.line} at ${p.grokExecutable}; Herdr ${p.descriptor.version} at ${p.descriptor.socketPath}`,
        p.checks,
        {
          platform: p.platform,
          grok: p.grokExecutable,
          version: p.cliVersion.version,
          cwd: p.cwd,
          herdr: {
            socketPath: p.descriptor.socketPath,
            version: p.descriptor.version,
            serverPid: p.descriptor.server.pid,
          },
          skills: p.skills.length,
        },
      );
    });

    const rt = await run.run("runtime_dir", () => {
      let dir: ReturnType<typeof createRuntimeDir>;
      try {
        dir = createRuntimeDir(options.runtimeBase ?? tmpdir());
      } catch (err) {
        throw new SeatRefusal({
          step: "runtime_dir",
          code: "RUNTIME_DIR_UNSAFE",
          check: "runtime_dir.create",
          reason: `no private directory could be created: ${err instanceof Error ? err.message : String(err)}`,
          cause: err,
        });
      }
      left.runtimeDir = dir.dir;
      const failed = firstFailure(dir.checks);
      if (failed !== undefined) throw refuseOnCheck("runtime_dir", "RUNTIME_DIR_UNSAFE", failed);
      let profile: ReturnType<typeof materializeProfile>;
      try {
        profile = materializeProfile(options.profile, dir.dir);
      } catch (err) {
        throw new SeatRefusal({
          step: "runtime_dir",
          code: "PROFILE_INVALID",
          check: "profile.materialize",
          reason: `the profile could not be prepared: ${err instanceof Error ? err.message : String(err)}`,
          cause: err,
        });
      }
      const pf = firstFailure(profile.checks);
      if (pf !== undefined) throw refuseOnCheck("runtime_dir", "PROFILE_INVALID", pf);
      return outcome(
        { ...dir, profile: profile.profile },
        `private runtime dir ${dir.dir} (0700, ours); GROK_HOME ${profile.profile.grokHome} (${profile.profile.kind})`,
        [...dir.checks, ...profile.checks],
        {
          dir: dir.dir,
          socketPath: dir.socketPath,
          grokHome: profile.profile.grokHome,
          profile: profile.profile.kind,
        },
      );
    });
    const herdr = pre.herdr;
    const socketPath = rt.socketPath;
    const lockPath = lockPathForSocket(socketPath);

    const sessionId = await run.run("session_id", () =>
      outcome(
        mode.sessionId,
        mode.kind === "fresh"
          ? `fresh chat: new session ${mode.sessionId}`
          : `resume of session ${mode.sessionId}`,
        [],
        { sessionId: mode.sessionId, mode: mode.kind },
      ),
    );

    const argv = tuiArgv(pre.grokExecutable, socketPath, mode);
    const launch = await run.run("launch", () =>
      launchStep({
        herdr,
        argv,
        cwd: pre.cwd,
        env: { ...(options.env ?? {}), GROK_HOME: rt.profile.grokHome },
        label: options.label ?? "grok seat",
        placement: options.placement ?? {
          kind: "new-workspace",
          label: options.label ?? "grok seat",
        },
      }),
    );
    left.launched = true;
    left.paneId = launch.paneId;

    const pane = await run.run("pane_proof", async () => {
      const o = await paneProofStep({
        herdr,
        kernel,
        launch,
        descriptor: pre.descriptor,
        sessionId,
        grokExecutable: pre.grokExecutable,
        cwd: pre.cwd,
        uid,
      });
      left.tui = o.value.tui;
      left.tuiPid = o.value.record.process.pid;
      return o;
    });
    const tui = pane.tui;
    // Arm the TUI's exit watch now (Herdr subscription + anchor), while the simulator or Grok
    // is still starting its leader; it is awaited at ready and kept for the seat's life.
    const paneRecord = { ...pane.record, expectedAgent: "grok" };
    const exitWatchArming = watchPaneExit(herdr, kernel, paneRecord, { handle: tui });
    left.exitWatch = exitWatchArming;
    exitWatchArming.catch(() => {});
    const tuiRecord = {
      pid: pane.record.process.pid,
      identity: pane.record.process.identity,
      cwd: pre.cwd,
    };

    const sighting = await run.run("leader_wait", () =>
      waitForLeader({
        socketPath,
        lockPath,
        tui,
        timeoutMs: t.leaderMs ?? 30_000,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
    );
    left.leaderPid = sighting.lockPid;
    const socketFacts = await run.run("socket_proof", () =>
      socketProofStep(socketPath, sighting.lockPid, uid),
    );
    // A resumed seat continues the original seat's journal (seat-record.ts, journalDir): its receipts
    // stay reconcilable and its prompt ids stay refused as duplicates. The journal refuses a
    // directory that is not ours, 0700 and a real directory, like a fresh one.
    const journalDir =
      mode.kind === "resume" ? (mode.record.journalDir ?? mode.record.runtimeDir) : rt.dir;
    const controller = await run.run("admission", () => {
      const o = admissionStep(journalDir);
      left.controller = o.value;
      return o;
    });
    const socket = await run.run("connect", async () => {
      const o = await connectStep(socketPath, socketFacts, uid, 5_000, { tui: tuiRecord });
      left.socket = o.value;
      return o;
    });
    const conn = await run.run("register", async () => {
      const o = await registerStep({
        socket,
        cli: pre.cliVersion,
        registrationTimeoutMs: Math.min(requestMs, 10_000),
        readyTimeoutMs: requestMs,
        controlTimeoutMs: requestMs,
      });
      left.conn = o.value;
      return o;
    });
    const leader = await run.run("leader_proof", async () => {
      const o = await leaderProofStep(conn, kernel, {
        socketPath,
        tui: tuiRecord,
        grokExecutable: pre.grokExecutable,
        controlTimeoutMs: requestMs,
      });
      left.leader = o.value.handle;
      left.leaderPid = o.value.facts.pid;
      return o;
    });
    const active = await run.run("active_sessions", () =>
      activeSessionStep({
        grokHome: rt.profile.grokHome,
        sessionId,
        tui,
        tuiCwd: pre.cwd,
        timeoutMs: t.activeSessionMs ?? 15_000,
      }),
    );
    const agent = await run.run("agent", () =>
      agentStep({ herdr, kernel, record: paneRecord, tui, timeoutMs: t.agentMs ?? 10_000 }),
    );

    const leaderIdentity = `leader:${leader.facts.pid}:${leader.facts.identity.kind}:${leader.facts.identity.value}`;
    const paneIdentity = `pane:${paneRecord.pane.paneId}:${paneRecord.pane.terminalId}:${paneRecord.process.pid}:${paneRecord.process.identity.value}`;
    const { acp, init } = await attachSteps(run, {
      conn,
      cli: pre.cliVersion,
      sessionId,
      cwd: pre.cwd,
      journal: controller.journal,
      leaderIdentity,
      paneIdentity,
      requestTimeoutMs: requestMs,
    });
    left.acp = acp;

    let model: SeatRecord["model"] = null;
    const wanted = options.model;
    if (wanted !== undefined) {
      const echo = await run.run("model", () => modelStep(acp, wanted));
      model = { modelId: echo.modelId, effort: echo.reasoningEffort };
    }

    const registry = options.registry ?? defaultSeatRegistry;
    const seat = await run.run("ready", async () => {
      const recordPath = join(rt.dir, RECORD_NAME);
      const record = buildSeatRecord({
        sessionId,
        conversationId: options.conversationId ?? null,
        cwd: pre.cwd,
        runtimeDir: rt.dir,
        journalDir,
        socketPath,
        lockPath,
        controller: { pid: process.pid, identity: selfIdentity(), epoch: controller.epoch },
        profile: rt.profile,
        skills: pre.skills,
        grokExecutable: pre.grokExecutable,
        cli: pre.cliVersion,
        registered: conn.registered,
        init,
        pane: paneRecord,
        leader: leader.facts,
        leaderInfo: leader.info,
        socket: socketFacts,
        activeSession: active,
        agent,
        model,
        proofs: run.proofs,
        now: new Date(),
      });
      try {
        writeSeatRecord(recordPath, record);
      } catch (err) {
        throw new SeatRefusal({
          step: "ready",
          code: "RECORD_WRITE_FAILED",
          check: "ready.record",
          reason: `the seat record could not be written to ${recordPath}`,
          cause: err,
        });
      }
      const exitWatch = await exitWatchArming;
      const s = new Seat({
        herdr,
        kernel,
        conn,
        controller,
        acp,
        tui,
        leader: leader.handle,
        exitWatch,
        record,
        recordPath,
        registry,
      });
      registry.register(s);
      return outcome(
        s,
        `seat ready: session ${sessionId} in pane ${paneRecord.pane.paneId}; record ${recordPath} (0600)`,
        [],
        {
          sessionId,
          paneId: paneRecord.pane.paneId,
          recordPath,
          exitWatchAnchored: exitWatch.anchored,
        },
      );
    });
    return seat;
  } catch (err) {
    await abandon(left);
    if (err instanceof SeatRefusal) {
      throw err.withDetails({
        sessionId: mode.sessionId,
        runtimeDir: left.launched ? left.runtimeDir : null,
        paneId: left.paneId,
        tuiPid: left.tuiPid,
        leaderPid: left.leaderPid,
      });
    }
    if (err instanceof GrokSeatError && run.current !== null) throw run.refused(run.current, err);
    throw err;
  }
}

/** Close everything a refused hire opened. The pane (and its leader) stay for the owner. */
async function abandon(left: Leftovers): Promise<void> {
  if (left.exitWatch !== null) {
    const watch = await left.exitWatch.catch(() => null);
    watch?.close();
  }
  left.acp?.close();
  if (left.conn !== null)
    await Promise.race([left.conn.close(), new Promise((r) => setTimeout(r, 2000).unref())]);
  else left.socket?.destroy();
  left.controller?.release();
  left.tui?.close();
  left.leader?.close();
  if (!left.launched && left.runtimeDir !== null) removeRuntimeDir(left.runtimeDir);
}
