/**
 * Seat policy without the simulators: a fresh launch is always a new UUID with `--session-id`,
 * a resume names the original with `--resume`; the resume checks refuse, by name, every missing
 * condition (profile, UUID, conversation, confirmed prior exit, the TUI gone, and for a worker the
 * live original controller).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkResume, freshSessionId, tuiArgv } from "../../lib/seat/policy.js";
import type { SeatRecord } from "../../lib/seat/seat-record.js";
import { seatRecord } from "../helpers/seat-record.js";

test("fresh launches get new UUIDs and --session-id; resume uses --resume", () => {
  const ids = new Set(Array.from({ length: 100 }, () => freshSessionId()));
  assert.is(ids.size, 100);
  for (const id of ids)
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(tuiArgv("/g", "/r/leader.sock", { kind: "fresh", sessionId: "u" }), [
    "/g",
    "--leader",
    "--leader-socket",
    "/r/leader.sock",
    "--session-id",
    "u",
  ]);
});

function record(
  release: SeatRecord["release"],
  conversationId: string | null = "conv",
): SeatRecord {
  // Only the fields checkResume reads matter; the rest is a minimal valid shape.
  const id = { kind: "linux-pidfs" as const, value: "b:1" };
  const base = { startTimeUs: 0, startTimePrecisionUs: 1, executable: "/g", cwd: "/w", uid: 0 };
  return seatRecord({
    top: {
      createdAt: "",
      sessionId: "s-1",
      conversationId,
      controller: { pid: 1, identity: id, epoch: 1 },
      grok: { executable: "/g", versionLine: "grok 1.0.48" },
      activeSession: { session_id: "s-1", pid: 2, cwd: "/w", opened_at: "" },
      agent: null,
      release,
    },
    pane: {
      boundAt: "",
      pane: { paneId: "w1:p1", terminalId: "t", workspaceId: "w1", tabId: "w1:t1" },
      launch: null,
      nativeSessionId: "s-1",
    },
    process: { pid: 2, identity: id, ...base, tty: "/dev/pts/0" },
    herdr: {
      sessionName: null,
      protocol: null,
      socketFile: { device: "1", inode: "1", uid: 0, mode: 384 },
      server: { pid: 3, uid: 0, identity: null, method: "SO_PEERCRED" },
    },
    leader: { pid: 4, identity: id, ...base, ppid: 2, info: null },
    socket: { inode: "2", listeners: [4] },
  });
}

const exited = {
  at: "t",
  tuiExit: null,
  tuiExitObserved: true,
  leader: { action: "stopped" as const, reasons: [] },
};
const failed = (checks: { check: string; ok: boolean }[]) =>
  checks.filter((c) => !c.ok).map((c) => c.check);
const req = { grokHome: "/h", sessionId: "s-1", conversationId: "conv" };
const gone = { originalControllerLive: false, originalTuiNow: "gone" as const };

test("resume: admitted for the controller after a confirmed exit", () => {
  assert.equal(
    failed(checkResume({ record: record(exited), ...req, requester: "controller" }, gone)),
    [],
  );
});

test("resume: every missing condition is named", () => {
  const r = record(exited);
  assert.equal(
    failed(checkResume({ record: r, ...req, grokHome: "/other", requester: "controller" }, gone)),
    ["resume.profile"],
  );
  assert.equal(
    failed(checkResume({ record: r, ...req, sessionId: "s-2", requester: "controller" }, gone)),
    ["resume.session_id"],
  );
  assert.equal(
    failed(checkResume({ record: r, ...req, conversationId: "x", requester: "controller" }, gone)),
    ["resume.conversation_id"],
  );
  assert.equal(
    failed(checkResume({ record: record(exited, null), ...req, requester: "controller" }, gone)),
    ["resume.conversation_id"],
  );
  assert.equal(
    failed(checkResume({ record: record(null), ...req, requester: "controller" }, gone)),
    ["resume.prior_exit"],
  );
  assert.equal(
    failed(
      checkResume(
        { record: record({ ...exited, tuiExitObserved: false }), ...req, requester: "controller" },
        gone,
      ),
    ),
    ["resume.prior_exit"],
  );
  // The original TUI still running, or not known to be gone, blocks a resume.
  for (const originalTuiNow of ["same_process", "unreadable"] as const) {
    assert.equal(
      failed(
        checkResume({ record: r, ...req, requester: "controller" }, { ...gone, originalTuiNow }),
      ),
      ["resume.tui_gone"],
      originalTuiNow,
    );
  }
});

test("resume by a worker needs the live original controller", () => {
  const r = record(exited);
  assert.equal(failed(checkResume({ record: r, ...req, requester: "worker" }, gone)), [
    "resume.controller_live",
  ]);
  assert.equal(
    failed(
      checkResume(
        { record: r, ...req, requester: "worker" },
        { ...gone, originalControllerLive: true },
      ),
    ),
    [],
  );
});

test.run();
