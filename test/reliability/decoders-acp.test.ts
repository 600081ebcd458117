/**
 * T7, ACP payloads (docs/design/reliability-plan.md §6 T7, §4 "keep transports usable for subsequent valid
 * messages"): the strings inside leader `acp` frames through `parseAcpPayload` (`lib/acp/json-rpc.ts`)
 * and the raw-frame tap (`AcpTap.observe`, `lib/acp/tap.ts` + `grok-extensions.ts`) exactly as
 * `createAcpStream` (`lib/acp/stream.ts`) runs them, and the stream itself over an in-memory pipe:
 * a malformed payload is a typed tap event and is skipped, the next valid message still arrives.
 */

import type { AnyMessage } from "@agentclientprotocol/sdk";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { GrokEvent } from "../../lib/acp/grok-extensions.js";
import { parseAcpPayload } from "../../lib/acp/json-rpc.js";
import { createAcpStream } from "../../lib/acp/stream.js";
import { AcpTap } from "../../lib/acp/tap.js";
import type { AcpPipe, CloseReason } from "../../lib/acp/transport.js";
import { GrokSeatError } from "../../lib/errors.js";
import { scaled } from "../helpers/claims.js";
import { DecoderRun } from "../helpers/decoder-claim.js";
import { acpCaseArb } from "./lib/acp-messages.js";
import { check, recordedSeed } from "./lib/fuzz.js";
import {
  DEEP,
  deepArray,
  deepObject,
  HUGE_TEXT,
  prototypeClean,
  TWO_POW_64_TEXT,
  UNSAFE_INT_TEXT,
} from "./lib/json-edge.js";
import { collectGarbage, MiB, mib } from "./lib/memory.js";
import { mutate, mutationArb } from "./lib/mutate.js";
import { n } from "./lib/outcomes.js";
import { jsonishArb, textArb } from "./lib/text.js";

const decoderRun = new DecoderRun(
  test,
  "acp payloads",
  ["ACP_MALFORMED_PAYLOAD", "ACP_EXTENSION_MALFORMED"],
  { streams: 0, streamPayloads: 0, deliveredAfterRejection: 0, edgeCases: 0 },
  { deepCases: true },
);
const { tally, memory, counts, test: guarded } = decoderRun;

/**
 * One payload as `createAcpStream`'s pull loop handles it: parse; a parse failure goes to
 * `tap.malformedPayload`; any request or notification is observed by the tap. Returns the tap
 * event (or null for a response) and tallies the outcome; a throw from either step is a violation.
 */
function handle(tap: AcpTap, payload: string): GrokEvent | "response" | "malformed-payload" | null {
  memory.every(tally.inputs);
  let out: GrokEvent | "response" | "malformed-payload" | null = null;
  tally.attempt(
    () => {
      const parsed = parseAcpPayload(payload);
      if (parsed instanceof GrokSeatError) {
        tap.malformedPayload(parsed);
        out = "malformed-payload";
        throw parsed;
      }
      if (parsed.kind === "response") {
        out = "response";
        return;
      }
      const event = tap.observe(parsed);
      out = event;
      if (event.type === "malformed") throw event.error;
    },
    () => JSON.stringify(payload.slice(0, 200)),
  );
  return out;
}

guarded("random text and JSON-ish payloads: a message or a typed malformed event", () => {
  const tap = new AcpTap({ ringSize: 16 });
  check(
    fc.oneof(textArb(200), jsonishArb),
    (payload) => {
      handle(tap, payload);
    },
    scaled(3_000, 300_000),
  );
});

guarded("valid messages are classified (never malformed); mutated ones are typed", () => {
  const tap = new AcpTap({ ringSize: 16 });
  check(
    fc.tuple(acpCaseArb, fc.array(mutationArb, { maxLength: 3 })),
    ([c, mutations]) => {
      const text = JSON.stringify(c.message);
      const valid = handle(tap, text);
      assert.ok(valid !== null && valid !== "malformed-payload", `valid payload refused: ${text}`);
      if (typeof valid === "object")
        assert.ok(valid.type !== "malformed", `valid payload malformed: ${text}`);
      if (mutations.length > 0) {
        // Byte damage, decoded as the frame decoder would never do (U+FFFD for bad bytes):
        // the payload layer must cope with any string at all.
        handle(tap, mutate(Buffer.from(text, "utf8"), mutations).bytes.toString("utf8"));
      }
    },
    scaled(3_000, 300_000),
  );
});

guarded("duplicated keys: JSON.parse's last-wins reading", () => {
  const tap = new AcpTap({ ringSize: 16 });
  check(
    fc.tuple(
      acpCaseArb,
      fc.constantFrom("method", "id", "jsonrpc", "params", "result"),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    ([c, key, extra]) => {
      const text = JSON.stringify(c.message);
      const first = `{${JSON.stringify(key)}:${JSON.stringify(extra)},${text.slice(1)}`;
      // An earlier duplicate never changes the reading when the key is present later.
      if (key in c.message) {
        const a = parseAcpPayload(first);
        const b = parseAcpPayload(text);
        assert.equal(
          a instanceof GrokSeatError ? a.code : a,
          b instanceof GrokSeatError ? b.code : b,
        );
      }
      handle(tap, first);
      handle(tap, `${text.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(extra)}}`);
    },
    scaled(1_000, 100_000),
  );
});

/** An in-memory leader pipe that yields the given payloads, then ends (transport.ts `AcpPipe`). */
function pipeOf(payloads: readonly string[]): AcpPipe {
  async function* messages(): AsyncGenerator<string> {
    yield* payloads;
  }
  const closed = new Promise<CloseReason>(() => {});
  return { sendAcp: async () => {}, acpMessages: () => messages(), closed };
}

async function drain(payloads: readonly string[], tap: AcpTap): Promise<AnyMessage[]> {
  const { readable } = createAcpStream(pipeOf(payloads), tap);
  const reader = readable.getReader();
  const out: AnyMessage[] = [];
  for (;;) {
    const r = await reader.read();
    if (r.done) return out;
    out.push(r.value);
  }
}

guarded(
  "the stream skips rejected payloads and delivers every valid message after them",
  async () => {
    const item = fc.oneof(
      acpCaseArb.map((c) => ({ valid: c })),
      fc.oneof(textArb(40), jsonishArb).map((bad) => ({ bad })),
    );
    const cases = fc.sample(fc.array(item, { minLength: 1, maxLength: 12 }), {
      numRuns: scaled(300, 20_000),
      seed: recordedSeed(),
    });
    for (const items of cases) {
      const tap = new AcpTap({ ringSize: 8 });
      const payloads = items.map((i) => ("valid" in i ? JSON.stringify(i.valid.message) : i.bad));
      let got: AnyMessage[] = [];
      try {
        got = await drain(payloads, tap);
        tally.accept();
      } catch (err) {
        tally.thrown(err, () => JSON.stringify(payloads).slice(0, 300));
      }
      // The valid SDK-bound messages (responses, non-interaction requests) must all arrive, in
      // order, whatever was rejected around them.
      const expected: string[] = [];
      let rejectedBefore = false;
      for (const i of items) {
        if ("valid" in i) {
          if (i.valid.expectSdk) {
            expected.push(JSON.stringify(i.valid.message));
            if (rejectedBefore) counts.deliveredAfterRejection++;
          }
        } else if (parseAcpPayload(i.bad) instanceof GrokSeatError) {
          rejectedBefore = true;
        }
      }
      let next = 0;
      for (const m of got) if (JSON.stringify(m) === expected[next]) next++;
      assert.is(next, expected.length, "every valid SDK-bound message delivered, in order");
      counts.streams++;
      counts.streamPayloads += payloads.length;
      memory.sample();
    }
  },
);

const J = '"jsonrpc":"2.0"';

guarded("the tap's memory stays bounded whatever method names a peer invents", () => {
  // 50,000 notifications, each with its own 1 KiB method name: counters keyed by every distinct
  // name would keep about 50 MB; a bounded tap keeps its ring and a capped table.
  const tap = new AcpTap({ ringSize: 16 });
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const pad = "m".repeat(1024);
  for (let i = 0; i < 50_000; i++)
    handle(tap, `{${J},"method":"x.ai/invented-${i}-${pad}","params":{}}`);
  collectGarbage();
  const kept = process.memoryUsage().heapUsed - before;
  const keys = Object.keys(tap.stats().unknown).length;
  assert.ok(kept < 16 * MiB, `the tap kept ${mib(kept)} MiB for ${n(keys)} distinct keys`);
});

type Expect =
  | { readonly event: (e: ReturnType<typeof handle>) => boolean }
  | { readonly code: string };

/** JSON edge cases (docs/design/reliability-plan.md §4) as payloads, each with its explicit outcome. */
const EDGE: readonly { name: string; payload: string; expect: Expect }[] = [
  {
    name: "duplicate method: last wins",
    payload: `{${J},"method":"a","method":"x.ai/config_changed","params":{}}`,
    expect: { event: (e) => typeof e === "object" && e?.type === "config_changed" },
  },
  {
    name: "__proto__ holding an id: no own id, so a notification",
    payload: `{${J},"method":"m","__proto__":{"id":1}}`,
    expect: {
      event: (e) => typeof e === "object" && e?.type === "unknown" && e.key === "notification:m",
    },
  },
  {
    name: "__proto__ in params of a modelled notification: dropped",
    payload: `{${J},"method":"_x.ai/queue/changed","params":{"sessionId":"s","__proto__":{"polluted":true}}}`,
    expect: { event: (e) => typeof e === "object" && e?.type === "queue_changed" },
  },
  {
    name: "lone surrogate escape in a method name: kept, counted as unknown",
    payload: `{${J},"method":"\\ud800","params":{}}`,
    expect: {
      event: (e) =>
        typeof e === "object" && e?.type === "unknown" && e.key === "notification:\ud800",
    },
  },
  {
    name: "id 1e400 (Infinity)",
    payload: `{${J},"id":${HUGE_TEXT},"result":{}}`,
    expect: { code: "ACP_MALFORMED_PAYLOAD" },
  },
  {
    name: "id 2^64: a response with the double 2^64 (never one of our small SDK ids)",
    payload: `{${J},"id":${TWO_POW_64_TEXT},"result":{}}`,
    expect: { event: (e) => e === "response" },
  },
  {
    name: "id 2^53+1: rounds to 2^53, still a response",
    payload: `{${J},"id":${UNSAFE_INT_TEXT},"result":{}}`,
    expect: { event: (e) => e === "response" },
  },
  {
    name: "both result and error",
    payload: `{${J},"id":1,"result":1,"error":{"code":1,"message":"m"}}`,
    expect: { code: "ACP_MALFORMED_PAYLOAD" },
  },
  {
    name: "a batch (10^6-deep array)",
    payload: deepArray(),
    expect: { code: "ACP_MALFORMED_PAYLOAD" },
  },
  {
    name: "10^6-deep object (no method, id or result)",
    payload: deepObject(),
    expect: { code: "ACP_MALFORMED_PAYLOAD" },
  },
  {
    name: "10^6-deep content in a session/update: kept as a value, never walked",
    payload: `{${J},"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":${deepArray()}}}}`,
    expect: { event: (e) => typeof e === "object" && e?.type === "session_update" },
  },
  {
    name: "10^6-deep params of an unmodelled notification: kept and counted as unknown",
    payload: `{${J},"method":"other/thing","params":${deepArray()}}`,
    expect: { event: (e) => typeof e === "object" && e?.type === "unknown" },
  },
  {
    name: "10^4-deep params of an unmodelled request: kept and counted as unknown",
    payload: `{${J},"id":7,"method":"other/request","params":${deepArray(10_000)}}`,
    expect: { event: (e) => typeof e === "object" && e?.type === "unknown" },
  },
  {
    name: "byte order mark",
    payload: `\ufeff{${J},"method":"m"}`,
    expect: { code: "ACP_MALFORMED_PAYLOAD" },
  },
  {
    name: "NaN literal",
    payload: `{${J},"id":NaN,"result":1}`,
    expect: { code: "ACP_MALFORMED_PAYLOAD" },
  },
];

guarded("JSON edge cases: each has its explicit outcome, and nothing is polluted", () => {
  const probe = decoderRun.deepCasesProbe();
  const wrong: string[] = [];
  for (const e of EDGE) {
    const tap = new AcpTap({ ringSize: 4 });
    const before = tally.violations;
    const event = handle(tap, e.payload);
    probe.sample();
    counts.edgeCases++;
    if (tally.violations !== before) {
      wrong.push(`${e.name}: threw (${tally.examples.at(-1)?.slice(0, 120)})`);
      continue;
    }
    if ("code" in e.expect) {
      const code =
        event === "malformed-payload"
          ? "ACP_MALFORMED_PAYLOAD"
          : typeof event === "object" && event?.type === "malformed"
            ? event.error.code
            : null;
      if (code !== e.expect.code) wrong.push(`${e.name}: ${code} instead of ${e.expect.code}`);
    } else if (!e.expect.event(event)) {
      wrong.push(`${e.name}: ${JSON.stringify(event)?.slice(0, 200)}`);
    }
    if (!prototypeClean()) wrong.push(`${e.name}: Object.prototype polluted`);
  }
  assert.equal(wrong, [], wrong.join("\n"));
});

guarded("a deeply nested unmodelled notification does not end the ACP stream", async () => {
  // What the SDK would see if the leader relayed `{"method":"other/thing","params":<10^4-deep>}`
  // and then the response to our pending request: the response must still arrive.
  const payloads = [
    `{${J},"method":"other/thing","params":${deepArray(10_000)}}`,
    `{${J},"id":1,"result":{"stopReason":"end_turn"}}`,
  ];
  let got: AnyMessage[] = [];
  try {
    got = await drain(payloads, new AcpTap());
    tally.accept();
  } catch (err) {
    tally.thrown(err, () => "createAcpStream: 10^4-deep unmodelled notification, then a response");
  }
  assert.equal(got, [{ jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } }]);
});

decoderRun.claim("T7-acp-payloads", () => ({
  title: "ACP payload decoder and raw-frame tap under hostile payloads",
  sentence: (m) =>
    `${n(tally.inputs)} generated ACP payloads (random text with lone surrogates, JSON-ish text, mutated and ` +
    `duplicated-key JSON-RPC messages incl. Grok extensions, ${EDGE.length} JSON edge cases incl. ${n(DEEP)}-deep ` +
    `nesting): 0 crashes, ${n(tally.violations)} untyped throws, every rejection one of ${tally.rejectionSummary()}; ` +
    `${n(counts.streams)} streams of ${n(counts.streamPayloads)} payloads through createAcpStream: rejected payloads ` +
    `skipped, ${n(counts.deliveredAfterRejection)} valid messages delivered after a rejected one; Object.prototype ` +
    `never polluted; memory ${m.describe}; the ${n(DEEP)}-deep cases peak at heapUsed ` +
    `${m.deepHeapText}.`,
  method:
    "fast-check properties over lib/acp/json-rpc.ts parseAcpPayload + tap.ts AcpTap.observe, and " +
    "lib/acp/stream.ts createAcpStream over an in-memory pipe (test/reliability/decoders-acp.test.ts).",
}));

test.run();
