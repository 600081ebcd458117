/**
 * The release rule as a pure function (docs/design/reliability-plan.md T6): stop only when we launched the
 * leader, its handle still proves it, and the original TUI's exit was observed on its bound
 * identity. Every combination of the facts is checked against an independent model.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { ExitVerdict } from "../../lib/observe/pane-exit.js";
import { decideLeaderStop, type LeaderNow } from "../../lib/seat/release-policy.js";

const exited: ExitVerdict = {
  exited: true,
  corroborated: true,
  kernel: {
    kind: "exited",
    pid: 42,
    identity: { kind: "linux-pidfs", value: "boot:1" },
    observedAt: "2026-11-29T00:00:00.000Z",
  },
  herdr: {
    kind: "pane_exited",
    paneId: "w1:p1",
    workspaceId: "w1",
    receivedAt: "2026-11-29T00:00:00.100Z",
  },
  ignored: { beforeAnchor: 0, otherPanes: 0 },
};
const pending: ExitVerdict = {
  exited: false,
  corroborated: false,
  kernel: { kind: "pending", reason: "cancelled" },
  herdr: { kind: "none", reason: "not_received", code: null },
  ignored: { beforeAnchor: 0, otherPanes: 0 },
};
const unavailable: ExitVerdict = {
  ...pending,
  kernel: { kind: "unavailable", code: "NO_SUCH_PROCESS", message: "gone before the watch" },
};

test("all three hold: stop", () => {
  assert.equal(decideLeaderStop({ owned: true, leader: { kind: "proven" }, tuiExit: exited }), {
    stop: true,
    reasons: [],
  });
});

test("each missing condition is named", () => {
  const base = { owned: true, leader: { kind: "proven" } as const, tuiExit: exited };
  assert.equal(decideLeaderStop({ ...base, owned: false }).reasons, ["NOT_OWNED"]);
  assert.equal(decideLeaderStop({ ...base, leader: null }).reasons, ["NOT_OWNED"]);
  assert.equal(
    decideLeaderStop({ ...base, leader: { kind: "exited", socketServedByOther: true } }).reasons,
    ["LEADER_REPLACED"],
  );
  assert.equal(
    decideLeaderStop({ ...base, leader: { kind: "exited", socketServedByOther: false } }).reasons,
    ["LEADER_GONE"],
  );
  assert.equal(
    decideLeaderStop({ ...base, leader: { kind: "unproven", code: "ACCESS_DENIED" } }).reasons,
    ["IDENTITY_UNPROVEN"],
  );
  assert.equal(decideLeaderStop({ ...base, tuiExit: null }).reasons, ["TUI_ALIVE"]);
  assert.equal(decideLeaderStop({ ...base, tuiExit: pending }).reasons, ["TUI_ALIVE"]);
  assert.equal(decideLeaderStop({ ...base, tuiExit: unavailable }).reasons, ["IDENTITY_UNPROVEN"]);
});

test("model check: stop iff owned and proven and exit observed; reasons never empty otherwise", () => {
  const leaders: (LeaderNow | null)[] = [
    null,
    { kind: "proven" },
    { kind: "exited", socketServedByOther: true },
    { kind: "exited", socketServedByOther: false },
    { kind: "unproven", code: "ACCESS_DENIED" },
  ];
  fc.assert(
    fc.property(
      fc.boolean(),
      fc.constantFrom(...leaders),
      fc.constantFrom(null, exited, pending, unavailable),
      (owned, leader, tuiExit) => {
        const d = decideLeaderStop({ owned, leader, tuiExit });
        const model = owned && leader?.kind === "proven" && tuiExit?.exited === true;
        assert.is(d.stop, model);
        assert.is(d.reasons.length === 0, model);
        assert.is(new Set(d.reasons).size, d.reasons.length, "no reason twice");
      },
    ),
    { numRuns: 500 },
  );
});

test.run();
