/**
 * Valid seat records (`lib/seat/seat-record.ts`, version 1) with generated field values, for the seat
 * record decoder tests. The shape follows `SeatRecordSchema` field by field; the values are what a
 * hire on Linux writes (pidfs identities, 0600/0700 modes), varied where the schema allows.
 */
import fc from "fast-check";
import type { JsonValue } from "../../../lib/json.js";
import { SEAT_RECORD_KIND, type SeatRecord } from "../../../lib/seat/seat-record.js";
import { textArb } from "./text.js";

const text = textArb(24);
const uint = fc.nat({ max: 2 ** 31 });
const identity = fc.record({
  kind: fc.constantFrom(
    "linux-pidfs" as const,
    "linux-boot-ticks" as const,
    "darwin-uniqueid" as const,
  ),
  value: text,
});
/** fast-check's JSON values as the project's `JsonValue` (rebuilt, so nothing is cast). */
function toJson(x: unknown): JsonValue {
  if (x === null || typeof x === "string" || typeof x === "boolean") return x;
  if (typeof x === "number") return Number.isFinite(x) ? x : null;
  if (Array.isArray(x)) return x.map(toJson);
  if (typeof x === "object") {
    return Object.fromEntries(
      Object.entries(x).map(([k, v]): [string, JsonValue] => [k, toJson(v)]),
    );
  }
  return null;
}
const json = fc.jsonValue({ maxDepth: 3 }).map(toJson);
const check = fc.record({
  check: text,
  ok: fc.boolean(),
  expected: json,
  received: json,
  reason: fc.option(text),
});

export const seatRecordArb: fc.Arbitrary<SeatRecord> = fc
  .record({
    sessionId: fc.uuid(),
    conversationId: fc.option(text),
    cwd: text,
    dir: text,
    controller: fc.record({ pid: uint, identity: fc.option(identity), epoch: uint }),
    identity,
    pids: fc.tuple(uint, uint, uint),
    versionLine: text,
    info: json,
    agent: json,
    // valibot 1.5's v.record drops the keys `__proto__`, `prototype` and `constructor`: proof step
    // names are ours and never those, so they are left out of the round-trip values.
    proofs: fc.dictionary(
      fc
        .string({ maxLength: 12 })
        .filter((k) => !["__proto__", "prototype", "constructor"].includes(k)),
      fc.array(check, { maxLength: 3 }),
      { maxKeys: 3 },
    ),
    released: fc.boolean(),
  })
  .map(
    (g): SeatRecord => ({
      kind: SEAT_RECORD_KIND,
      version: 1,
      createdAt: "2026-11-29T00:00:00.000Z",
      sessionId: g.sessionId,
      conversationId: g.conversationId,
      cwd: g.cwd,
      runtimeDir: g.dir,
      socketPath: `${g.dir}/leader.sock`,
      lockPath: `${g.dir}/leader.lock`,
      controller: g.controller,
      profile: { kind: "grok-home", grokHome: "/h", loginFile: null },
      skills: [{ path: "/s", realPath: "/s", kind: "directory", bytes: null }],
      grok: { executable: "/bin/grok", versionLine: g.versionLine },
      versions: {
        cli: "1.0.48",
        leader: "1.0.48",
        agent: null,
        leaderProtocol: 1,
        controlV1: true,
        acpProtocol: 1,
      },
      pane: {
        version: 1,
        boundAt: "2026-11-29T00:00:00.000Z",
        pane: { paneId: "w1:p1", terminalId: "t1", workspaceId: "w1", tabId: "w1:t1" },
        launch: { argv: ["/bin/grok", "--leader"], cwd: g.cwd },
        process: {
          pid: g.pids[0],
          identity: g.identity,
          startTimeUs: 1,
          startTimePrecisionUs: 10_000,
          executable: "/bin/grok",
          cwd: g.cwd,
          uid: 0,
          tty: "/dev/pts/1",
        },
        herdr: {
          socketPath: "/s",
          sessionName: "default",
          version: "0.8.0",
          protocol: 19,
          capabilities: null,
          socketFile: { device: "1", inode: "2", uid: 0, mode: 0o600 },
          server: { pid: g.pids[2], uid: 0, identity: null, method: "SO_PEERCRED" },
        },
        nativeSessionId: g.sessionId,
        expectedAgent: "grok",
      },
      leader: {
        pid: g.pids[1],
        identity: g.identity,
        startTimeUs: 2,
        startTimePrecisionUs: 10_000,
        executable: "/bin/grok",
        cwd: g.cwd,
        uid: 0,
        ppid: g.pids[0],
        info: g.info,
      },
      socket: {
        path: `${g.dir}/leader.sock`,
        device: "1",
        inode: "3",
        uid: 0,
        mode: 0o755,
        dir: { path: g.dir, uid: 0, mode: 0o700 },
        listeners: [g.pids[1]],
      },
      activeSession: {
        session_id: g.sessionId,
        pid: g.pids[0],
        cwd: g.cwd,
        opened_at: "2026-11-29T00:00:00Z",
      },
      agent: g.agent,
      model: null,
      proofs: g.proofs,
      release: g.released
        ? {
            at: "2026-11-29T01:00:00.000Z",
            tuiExit: { observed: true },
            tuiExitObserved: true,
            leader: { action: "stopped", reasons: [] },
          }
        : null,
    }),
  );
