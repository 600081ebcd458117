/**
 * Valid seat records (`lib/seat/seat-record.ts`, version 1) with generated field values, for the seat
 * record decoder tests. The shape follows `SeatRecordSchema` field by field; the values are what a
 * hire on Linux writes (pidfs identities, 0600/0700 modes), varied where the schema allows.
 */
import fc from "fast-check";
import type { JsonValue } from "../../../lib/json.js";
import type { SeatRecord } from "../../../lib/seat/seat-record.js";
import { seatRecord } from "../../helpers/seat-record.js";
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
    (g): SeatRecord =>
      seatRecord({
        top: {
          sessionId: g.sessionId,
          conversationId: g.conversationId,
          cwd: g.cwd,
          runtimeDir: g.dir,
          socketPath: `${g.dir}/leader.sock`,
          lockPath: `${g.dir}/leader.lock`,
          controller: g.controller,
          skills: [{ path: "/s", realPath: "/s", kind: "directory", bytes: null }],
          grok: { executable: "/bin/grok", versionLine: g.versionLine },
          activeSession: {
            session_id: g.sessionId,
            pid: g.pids[0],
            cwd: g.cwd,
            opened_at: "2026-11-29T00:00:00Z",
          },
          agent: g.agent,
          proofs: g.proofs,
          release: g.released
            ? {
                at: "2026-11-29T01:00:00.000Z",
                tuiExit: { observed: true },
                tuiExitObserved: true,
                leader: { action: "stopped", reasons: [] },
              }
            : null,
        },
        versions: { agent: null },
        pane: {
          launch: { argv: ["/bin/grok", "--leader"], cwd: g.cwd },
          nativeSessionId: g.sessionId,
        },
        process: { pid: g.pids[0], identity: g.identity, cwd: g.cwd },
        herdr: { server: { pid: g.pids[2], uid: 0, identity: null, method: "SO_PEERCRED" } },
        leader: {
          pid: g.pids[1],
          identity: g.identity,
          cwd: g.cwd,
          ppid: g.pids[0],
          info: g.info,
        },
        socket: {
          path: `${g.dir}/leader.sock`,
          dir: { path: g.dir, uid: 0, mode: 0o700 },
          listeners: [g.pids[1]],
        },
      }),
  );
