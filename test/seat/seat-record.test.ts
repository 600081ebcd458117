/**
 * Seat records on disk: written 0600 by rename (no temp file left), read back through the schema,
 * refused by name when unreadable (missing, symlink, not JSON) or not a seat record.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import type { JsonValue } from "../../lib/json.js";
import {
  readSeatRecord,
  SEAT_RECORD_KIND,
  type SeatRecord,
  writeSeatRecord,
} from "../../lib/seat/seat-record.js";
import { checkRecordFile } from "../../lib/seat/verify-seat-record.js";

const id = { kind: "linux-pidfs" as const, value: "boot:7" };

function sample(): SeatRecord {
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
    controller: { pid: 1, identity: id, epoch: 1 },
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
    },
    pane: {
      version: 1,
      boundAt: "2026-11-29T00:00:00.000Z",
      pane: { paneId: "w1:p1", terminalId: "t1", workspaceId: "w1", tabId: "w1:t1" },
      launch: { argv: ["/bin/grok", "--leader"], cwd: "/w" },
      process: {
        pid: 10,
        identity: id,
        startTimeUs: 1,
        startTimePrecisionUs: 10000,
        executable: "/bin/grok",
        cwd: "/w",
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
        server: { pid: 5, uid: 0, identity: null, method: "SO_PEERCRED" },
      },
      nativeSessionId: null,
      expectedAgent: "grok",
    },
    leader: {
      pid: 11,
      identity: id,
      startTimeUs: 2,
      startTimePrecisionUs: 10000,
      executable: "/bin/grok",
      cwd: "/w",
      uid: 0,
      ppid: 10,
      info: { pid: 11 },
    },
    socket: {
      path: "/r/leader.sock",
      device: "1",
      inode: "3",
      uid: 0,
      mode: 0o755,
      dir: { path: "/r", uid: 0, mode: 0o700 },
      listeners: [11],
    },
    activeSession: { session_id: "s", pid: 10, cwd: "/w", opened_at: "2026-11-29T00:00:00Z" },
    agent: { ok: true },
    model: null,
    proofs: {
      pane_proof: [
        { check: "pane.present", ok: true, expected: "w1:p1", received: "w1:p1", reason: null },
      ],
    },
    release: null,
  };
}

let dir: string;
test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), "seat-record-"));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof GrokSeatError) return err.code;
    throw err;
  }
  return "NO_ERROR";
}

test("write then read: 0600, nothing else left in the directory, same content", () => {
  const path = join(dir, "seat.json");
  writeSeatRecord(path, sample());
  assert.equal(readdirSync(dir), ["seat.json"]);
  assert.is(lstatSync(path).mode & 0o777, 0o600);
  const { record, file } = readSeatRecord(path);
  assert.equal(record, sample());
  assert.is(checkRecordFile(file).ok, true);
  writeSeatRecord(path, { ...sample(), conversationId: "c" });
  assert.is(readSeatRecord(path).record.conversationId, "c", "replaced atomically");
  assert.equal(readdirSync(dir), ["seat.json"]);
});

test("unreadable and invalid records are refused by code", () => {
  assert.is(
    codeOf(() => readSeatRecord(join(dir, "missing.json"))),
    "RECORD_UNREADABLE",
  );
  const notJson = join(dir, "bad.json");
  writeFileSync(notJson, "{nope");
  assert.is(
    codeOf(() => readSeatRecord(notJson)),
    "RECORD_UNREADABLE",
  );
  const other = join(dir, "other.json");
  writeFileSync(other, JSON.stringify({ ...sample(), kind: "something-else" }));
  assert.is(
    codeOf(() => readSeatRecord(other)),
    "RECORD_INVALID",
  );
  const future = join(dir, "future.json");
  writeFileSync(future, JSON.stringify({ ...sample(), version: 2 }));
  assert.is(
    codeOf(() => readSeatRecord(future)),
    "RECORD_INVALID",
  );
  const real = join(dir, "seat.json");
  writeSeatRecord(real, sample());
  const link = join(dir, "link.json");
  symlinkSync(real, link);
  assert.is(
    codeOf(() => readSeatRecord(link)),
    "RECORD_UNREADABLE",
    "a symlink is not followed",
  );
});

test("writeSeatRecord refuses, before creating a file, a record readSeatRecord would refuse", () => {
  const path = join(dir, "seat.json");
  const base = sample();
  let deep: JsonValue = "leaf";
  for (let i = 0; i < 100; i++) deep = { d: deep };
  const bad: [string, unknown][] = [
    ["a negative pid", { ...base, leader: { ...base.leader, pid: -1 } }],
    ["a fractional epoch", { ...base, controller: { ...base.controller, epoch: 1.5 } }],
    ["a NaN in a fact (written as null)", { ...base, agent: { verdict: Number.NaN } }],
    ["a 100-deep fact", { ...base, agent: deep }],
    ["a bigint", { ...base, agent: { n: 1n } }],
    ["another kind", { ...base, kind: "something-else" }],
  ];
  for (const [what, record] of bad) {
    // The type says SeatRecord; a caller's value may still not be one.
    assert.is(
      codeOf(() => writeSeatRecord(path, record as SeatRecord)),
      "RECORD_INVALID",
      what,
    );
    assert.equal(readdirSync(dir), [], `${what}: no file, no temp file`);
  }
  writeSeatRecord(path, base);
  assert.equal(readSeatRecord(path).record, base);
});

test("a group-readable record fails record.file_private", () => {
  const c = checkRecordFile({ uid: process.geteuid?.() ?? 0, mode: 0o640 });
  assert.is(c.ok, false);
  assert.is(c.check, "record.file_private");
});

test.run();
