/**
 * One valid seat record (lib/seat/seat-record.ts) for tests that need a record without running
 * `hire`: every field has a plain value (in the order `hire` writes them), and each test overrides the parts it
 * is about. The
 * defaults are a seat in /w with its runtime directory /r, TUI pid 10, leader pid 11.
 */
import { SEAT_RECORD_KIND, type SeatRecord } from "../../lib/seat/seat-record.js";

type Pane = SeatRecord["pane"];

export interface SeatRecordParts {
  /** Top-level fields (kind, ids, paths, controller, profile, ...). */
  readonly top?: Partial<Omit<SeatRecord, "versions" | "pane" | "leader" | "socket">>;
  readonly versions?: Partial<SeatRecord["versions"]>;
  /** The pane proof's own fields (binding time, pane ids, launch, native session id). */
  readonly pane?: Partial<Omit<Pane, "process" | "herdr">>;
  readonly process?: Partial<Pane["process"]>;
  readonly herdr?: Partial<Pane["herdr"]>;
  readonly leader?: Partial<SeatRecord["leader"]>;
  readonly socket?: Partial<SeatRecord["socket"]>;
}

const identity = { kind: "linux-pidfs" as const, value: "boot:7" };

export function seatRecord(parts: SeatRecordParts = {}): SeatRecord {
  return {
    kind: SEAT_RECORD_KIND,
    version: 1,
    createdAt: "2026-11-29T00:00:00.000Z",
    sessionId: "0198c2d4-7f3a-7b21-9e55-3c1d2a4b5e6f",
    conversationId: null,
    cwd: "/w",
    runtimeDir: "/r",
    socketPath: "/r/leader.sock",
    lockPath: "/r/leader.lock",
    controller: { pid: 1, identity, epoch: 1 },
    profile: { kind: "grok-home", grokHome: "/h", loginFile: null },
    skills: [],
    grok: { executable: "/bin/grok", versionLine: "grok 1.0.48 (abc1234)" },
    versions: {
      cli: "1.0.48",
      leader: "1.0.48",
      agent: "1.0.48",
      leaderProtocol: 1,
      controlV1: true,
      acpProtocol: 1,
      ...parts.versions,
    },
    pane: {
      version: 1,
      boundAt: "2026-11-29T00:00:00.000Z",
      pane: { paneId: "w1:p1", terminalId: "t1", workspaceId: "w1", tabId: "w1:t1" },
      launch: { argv: ["/bin/grok", "--leader"], cwd: "/w" },
      process: {
        pid: 10,
        identity,
        startTimeUs: 1,
        startTimePrecisionUs: 10_000,
        executable: "/bin/grok",
        cwd: "/w",
        uid: 0,
        tty: "/dev/pts/1",
        ...parts.process,
      },
      herdr: {
        socketPath: "/s",
        sessionName: "default",
        version: "0.8.0",
        protocol: 19,
        capabilities: null,
        socketFile: { device: "1", inode: "2", uid: 0, mode: 0o600 },
        server: { pid: 5, uid: 0, identity: null, method: "SO_PEERCRED" },
        ...parts.herdr,
      },
      nativeSessionId: null,
      expectedAgent: "grok",
      ...parts.pane,
    },
    leader: {
      pid: 11,
      identity,
      startTimeUs: 2,
      startTimePrecisionUs: 10_000,
      executable: "/bin/grok",
      cwd: "/w",
      uid: 0,
      ppid: 10,
      info: { pid: 11 },
      ...parts.leader,
    },
    socket: {
      path: "/r/leader.sock",
      device: "1",
      inode: "3",
      uid: 0,
      mode: 0o755,
      dir: { path: "/r", uid: 0, mode: 0o700 },
      listeners: [11],
      ...parts.socket,
    },
    activeSession: { session_id: "s", pid: 10, cwd: "/w", opened_at: "2026-11-29T00:00:00Z" },
    agent: { ok: true },
    model: null,
    proofs: {},
    release: null,
    ...parts.top,
  };
}
