import { test } from "uvu";
import * as assert from "uvu/assert";
import type { GrokEvent } from "../../lib/acp/grok-extensions.js";
import { AcpTap } from "../../lib/acp/tap.js";
import { GrokSeatError } from "../../lib/errors.js";

const S = "0198b0c2-1111-7222-8333-444455556666";

test("known events reach listeners; unknown and malformed are counted and kept", () => {
  const logs: string[] = [];
  const tap = new AcpTap({ ringSize: 3, log: (l) => logs.push(l), now: () => 42 });
  const seen: GrokEvent[] = [];
  tap.on((e) => seen.push(e));
  tap.observe({
    kind: "notification",
    method: "_x.ai/queue/changed",
    params: { sessionId: S, entries: [] },
  });
  tap.observe({ kind: "notification", method: "_x.ai/new_thing", params: {} });
  tap.observe({ kind: "notification", method: "_x.ai/new_thing", params: {} });
  tap.observe({
    kind: "notification",
    method: "_x.ai/session_notification",
    params: { sessionId: S, update: { sessionUpdate: "goal_updated" } },
  });
  tap.observe({ kind: "notification", method: "_x.ai/queue/changed", params: { nope: 1 } });
  tap.malformedPayload(new GrokSeatError("ACP_MALFORMED_PAYLOAD", "bad"));
  assert.equal(
    seen.map((e) => e.type),
    ["queue_changed", "unknown", "unknown", "grok_update", "malformed", "malformed"],
  );
  const stats = tap.stats();
  assert.equal(stats.unknown, { "notification:x.ai/new_thing": 2, "grok_update:goal_updated": 1 });
  assert.equal(stats.malformed, { "malformed:x.ai/queue/changed": 1, "malformed:payload": 1 });
  // The ring is bounded (3) and keeps the newest.
  assert.equal(
    stats.recent.map((r) => r.key),
    ["grok_update:goal_updated", "malformed:x.ai/queue/changed", "malformed:payload"],
  );
  assert.ok(stats.recent.every((r) => r.atMs === 42));
  assert.is(logs.length, 5);
});

test("a throwing listener is isolated and the others still run", () => {
  const logs: string[] = [];
  const tap = new AcpTap({ log: (l) => logs.push(l) });
  let second = 0;
  tap.on(() => {
    throw new Error("listener bug");
  });
  const off = tap.on(() => second++);
  tap.observe({ kind: "notification", method: "x.ai/config_changed", params: {} });
  assert.is(second, 1);
  assert.ok(logs.some((l) => l.includes("listener failed")));
  off();
  tap.observe({ kind: "notification", method: "x.ai/config_changed", params: {} });
  assert.is(second, 1);
});

test.run();
