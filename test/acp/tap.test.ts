import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { GrokEvent } from "../../lib/acp/grok-extensions.js";
import {
  AcpTap,
  boundedJson,
  MAX_KEY_CHARS,
  MAX_KEYS,
  OVERFLOW_KEY,
  SAMPLE_CHARS,
} from "../../lib/acp/tap.js";
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

/** `[[[…]]]` nested `depth` levels, as the JSON text a peer would send. */
function deepText(depth: number): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

test("boundedJson writes the same text as JSON.stringify, cut to the budget", () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 400 }), (value, max) => {
      const full = JSON.stringify(value);
      const got = boundedJson(value, max);
      // Equal to the prefix, except that a surrogate pair is never split (one unit shorter).
      const ok = got === full.slice(0, max) || (got.length === max - 1 && full.startsWith(got));
      assert.ok(ok, `${max}: ${full} -> ${got}`);
    }),
    { numRuns: 2_000 },
  );
  // Members with no JSON form are left out (objects) or null (arrays), as JSON.stringify does.
  assert.is(boundedJson({ a: undefined, b: [undefined, 1] }), '{"b":[null,1]}');
  // Only what fits of a long string is escaped and kept.
  assert.is(boundedJson({ s: "x".repeat(10_000_000) }, 12), '{"s":"xxxxxx');
});

test("a 10^6-deep unmodelled message is kept as a bounded sample, never a stack overflow", () => {
  // JSON.stringify recurses and threw RangeError here from ~10^4 levels (T7 decoders-acp).
  const params: unknown = JSON.parse(deepText(1_000_000));
  const tap = new AcpTap();
  const event = tap.observe({ kind: "request", id: 7, method: "other/request", params });
  assert.is(event.type, "unknown");
  const [record] = tap.stats().recent;
  assert.is(record?.key, "request:other/request");
  assert.is(record?.sample.length, SAMPLE_CHARS);
  assert.ok(
    record?.sample.startsWith('{"kind":"request","id":7,"method":"other/request","params":[[['),
  );
  assert.equal(tap.stats().unknown, { "request:other/request": 1 });
});

test("counters stay bounded: MAX_KEYS distinct keys, the rest under one overflow key", () => {
  const tap = new AcpTap({ ringSize: 4 });
  const extra = 50;
  for (let i = 0; i < MAX_KEYS + extra; i++) {
    tap.observe({ kind: "notification", method: `x.ai/invented-${i}`, params: {} });
  }
  // A key already counted keeps its own counter after the table is full.
  tap.observe({ kind: "notification", method: "x.ai/invented-0", params: {} });
  const { unknown, recent } = tap.stats();
  assert.is(Object.keys(unknown).length, MAX_KEYS + 1);
  assert.is(unknown[OVERFLOW_KEY], extra);
  assert.is(unknown["notification:x.ai/invented-0"], 2);
  assert.is(
    Object.values(unknown).reduce((a, b) => a + b, 0),
    MAX_KEYS + extra + 1,
  );
  // The ring still names the real (bounded) key of each record.
  assert.is(recent.at(-1)?.key, "notification:x.ai/invented-0");
});

test("a long method name is cut to MAX_KEY_CHARS in counters, ring and log", () => {
  const logs: string[] = [];
  const tap = new AcpTap({ log: (l) => logs.push(l) });
  const method = `x.ai/${"m".repeat(1_000_000)}`;
  tap.observe({ kind: "notification", method, params: {} });
  tap.observe({ kind: "notification", method: `${method}-other`, params: {} });
  const { unknown, recent } = tap.stats();
  const keys = Object.keys(unknown);
  // Both names share their first MAX_KEY_CHARS characters, so they share the cut key.
  assert.is(keys.length, 1);
  assert.is(keys[0]?.length, MAX_KEY_CHARS);
  assert.ok(keys[0]?.endsWith("…"));
  assert.is(unknown[keys[0] ?? ""], 2);
  assert.ok(recent.every((r) => r.key.length <= MAX_KEY_CHARS && r.sample.length <= SAMPLE_CHARS));
  assert.ok(logs.every((l) => l.length < MAX_KEY_CHARS + 100));
});

test("a key is never cut inside a surrogate pair", () => {
  const tap = new AcpTap();
  // "notification:" is 13 units; pad so that the high half of a pair is the last unit kept.
  const pad = "a".repeat(MAX_KEY_CHARS - 1 - 13 - 1);
  tap.observe({ kind: "notification", method: `${pad}\u{1F600}${"b".repeat(100)}`, params: {} });
  const key = Object.keys(tap.stats().unknown)[0] ?? "";
  // A lone surrogate would not survive a UTF-8 round trip (it becomes U+FFFD).
  assert.is(Buffer.from(key, "utf8").toString("utf8"), key, JSON.stringify(key));
  assert.ok(key.endsWith("…"));
});

test("a throwing logger never makes observing throw", () => {
  const tap = new AcpTap({
    log: () => {
      throw new Error("logger bug");
    },
  });
  let seen = 0;
  tap.on(() => {
    seen++;
    throw {
      toString: () => {
        throw new Error("hostile toString");
      },
    };
  });
  const event = tap.observe({ kind: "notification", method: "other/thing", params: [] });
  assert.is(event.type, "unknown");
  assert.is(seen, 1);
  tap.malformedPayload(new GrokSeatError("ACP_MALFORMED_PAYLOAD", "bad"));
  assert.equal(tap.stats().malformed, { "malformed:payload": 1 });
});

test.run();
