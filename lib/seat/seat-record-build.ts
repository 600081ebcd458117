/**
 * Assemble the seat record from what the hire established (pure: the proofs in, the record out;
 * `record.ts` writes it). Every kernel number is copied as the proof saw it.
 */
import type { InitializeFacts } from "../acp/handshake.js";
import type { CheckResult } from "../check.js";
import type { ActiveSession } from "../grok/active-sessions.js";
import type { GrokVersion } from "../grok/version.js";
import type { ProcessFacts, ProcessIdentity, SocketFacts } from "../kernel/index.js";
import type { LeaderInfo } from "../leader/control.js";
import type { Registered } from "../leader/messages.js";
import type { AgentVerdict } from "../proof/agent-reconcile.js";
import type { PaneProofRecord } from "../proof/pane.js";
import type { Profile } from "./profile.js";
import { SEAT_RECORD_KIND, SEAT_RECORD_VERSION, type SeatRecord } from "./seat-record.js";
import type { SkillEntry } from "./skills.js";

export interface SeatRecordInput {
  readonly sessionId: string;
  readonly conversationId: string | null;
  readonly cwd: string;
  readonly runtimeDir: string;
  readonly journalDir: string;
  readonly socketPath: string;
  readonly lockPath: string;
  /** Where the session's `updates.jsonl` lives (`nativeTranscriptPath`), or null. */
  readonly nativeTranscript: string | null;
  readonly launch: {
    readonly argv: readonly string[];
    readonly env: Readonly<Record<string, string>>;
    readonly callerEnv: readonly string[];
  };
  readonly controller: {
    readonly pid: number;
    readonly identity: ProcessIdentity | null;
    readonly epoch: number;
  };
  readonly profile: Profile;
  readonly skills: readonly SkillEntry[];
  readonly grokExecutable: string;
  readonly cli: GrokVersion;
  readonly registered: Registered;
  readonly init: InitializeFacts;
  readonly pane: PaneProofRecord;
  readonly leader: ProcessFacts;
  readonly leaderInfo: LeaderInfo;
  readonly socket: SocketFacts;
  readonly activeSession: ActiveSession;
  readonly agent: AgentVerdict;
  readonly model: SeatRecord["model"];
  readonly persona: NonNullable<SeatRecord["persona"]> | null;
  readonly skillsDiscovered: NonNullable<SeatRecord["skillsDiscovered"]> | null;
  readonly bank: NonNullable<SeatRecord["bank"]> | null;
  readonly profileConfig: NonNullable<SeatRecord["profileConfig"]> | null;
  readonly proofs: Readonly<Record<string, readonly CheckResult[]>>;
  readonly now: Date;
}

export function buildSeatRecord(i: SeatRecordInput): SeatRecord {
  const f = i.leader;
  const s = i.socket;
  const reg = i.registered;
  const proofs: SeatRecord["proofs"] = {};
  for (const [step, checks] of Object.entries(i.proofs)) {
    proofs[step] = checks.map((c) => ({ ...c }));
  }
  return {
    kind: SEAT_RECORD_KIND,
    version: SEAT_RECORD_VERSION,
    createdAt: i.now.toISOString(),
    sessionId: i.sessionId,
    conversationId: i.conversationId,
    cwd: i.cwd,
    runtimeDir: i.runtimeDir,
    journalDir: i.journalDir,
    socketPath: i.socketPath,
    lockPath: i.lockPath,
    nativeTranscript: i.nativeTranscript,
    launch: {
      argv: [...i.launch.argv],
      env: { ...i.launch.env },
      callerEnv: [...i.launch.callerEnv],
    },
    controller: { ...i.controller },
    profile: {
      kind: i.profile.kind,
      grokHome: i.profile.grokHome,
      loginFile: i.profile.loginFile === null ? null : { ...i.profile.loginFile },
    },
    skills: i.skills.map((e) => ({ ...e })),
    grok: { executable: i.grokExecutable, versionLine: i.cli.line },
    versions: {
      cli: i.cli.version,
      leader: reg.leader_binary_version,
      agent: i.init.agentVersion,
      leaderProtocol: reg.leader_protocol_version,
      controlV1: reg.leader_capabilities?.control_v1 ?? null,
      acpProtocol: i.init.protocolVersion,
    },
    pane: i.pane,
    leader: {
      pid: f.pid,
      identity: { kind: f.identity.kind, value: f.identity.value },
      startTimeUs: f.startTimeUs,
      startTimePrecisionUs: f.startTimePrecisionUs,
      executable: f.executable,
      cwd: f.cwd,
      uid: f.uid,
      ppid: f.ppid,
      info: {
        pid: i.leaderInfo.pid,
        socket_path: i.leaderInfo.socket_path,
        lock_path: i.leaderInfo.lock_path,
        leader_protocol_version: i.leaderInfo.leader_protocol_version,
        leader_binary_version: i.leaderInfo.leader_binary_version,
      },
    },
    socket: {
      path: s.path,
      device: s.device,
      inode: s.inode,
      uid: s.uid,
      mode: s.mode,
      dir: { path: s.dir.path, uid: s.dir.uid, mode: s.dir.mode },
      listeners: [...s.listeners],
    },
    activeSession: { ...i.activeSession },
    agent: { ...i.agent },
    model: i.model,
    persona: i.persona === null ? null : { ...i.persona },
    skillsDiscovered: i.skillsDiscovered,
    bank: i.bank === null ? null : { ...i.bank, tools: [...i.bank.tools] },
    profileConfig: i.profileConfig === null ? null : { ...i.profileConfig },
    proofs,
    release: null,
  };
}
