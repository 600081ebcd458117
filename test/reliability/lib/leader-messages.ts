/**
 * Valid leader `ServerMessage` values (docs/design/grok-leader-protocol.md §3; `lib/leader/messages.ts`), as
 * plain JSON objects the way the leader's serde writes them, for round-trip and mutation tests.
 */
import fc from "fast-check";
import { textArb } from "./text.js";

export type JsonObject = { [key: string]: unknown };

/** The codes decoding one leader frame can fail with (frame-codec.ts, messages.ts). */
export const FRAME_DECODE_CODES = [
  "FRAME_TOO_LARGE",
  "INVALID_UTF8",
  "INVALID_JSON",
  "INVALID_MESSAGE",
  "UNKNOWN_MESSAGE_TYPE",
] as const;

const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
const i32 = fc.integer({ min: -0x8000_0000, max: 0x7fff_ffff });
const u64safe = fc.maxSafeNat();

const capabilities = fc.record(
  {
    control_v1: fc.boolean(),
    runtime_cpu_profile: fc.boolean(),
    profile_formats: fc.array(fc.constantFrom("svg", "folded"), { maxLength: 2 }),
    workspace_exposure: fc.boolean(),
    relaunch_v1: fc.boolean(),
  },
  { requiredKeys: [] },
);

export const serverMessageArb: fc.Arbitrary<JsonObject> = fc.oneof(
  fc.constant({ type: "pong" }),
  fc.constant({ type: "shutdown" }),
  fc.constant({ type: "leader_ready" }),
  fc.record(
    {
      type: fc.constant("registered"),
      client_id: u64safe,
      ready: fc.boolean(),
      leader_protocol_version: fc.option(u32),
      leader_binary_version: fc.option(textArb(12)),
      leader_capabilities: fc.option(capabilities),
    },
    { requiredKeys: ["type", "client_id"] },
  ),
  fc.record({ type: fc.constant("acp"), payload: textArb(80) }),
  fc.record({ type: fc.constant("error"), code: i32, message: textArb(30) }),
  fc.record({
    type: fc.constant("shutting_down"),
    reason: fc.constantFrom("auto_update", "idle_timeout", "manual"),
    delay_ms: u64safe,
  }),
  fc.record({
    type: fc.constant("control_result"),
    request_id: textArb(8),
    result: fc.oneof(
      fc.record({ Ok: fc.record({ type: fc.constant("relaunch_declined"), reason: textArb(20) }) }),
      fc.record({
        Err: fc.record(
          { code: textArb(10), message: textArb(20), details: fc.jsonValue({ maxDepth: 2 }) },
          { requiredKeys: ["code", "message"] },
        ),
      }),
    ),
  }),
);

const KNOWN = new Set([
  "registered",
  "acp",
  "control_result",
  "pong",
  "error",
  "shutting_down",
  "shutdown",
  "leader_ready",
]);

/** Well-framed JSON that is not a valid ServerMessage (each fails parseServerMessage, typed). */
export const invalidServerMessageArb: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .jsonValue({ maxDepth: 2 })
    .filter((v) => typeof v !== "object" || v === null || Array.isArray(v)),
  fc.record({ type: fc.string({ maxLength: 12 }).filter((t) => !KNOWN.has(t)) }),
  fc.record({ type: fc.constant("acp"), payload: fc.oneof(fc.integer(), fc.constant(null)) }),
  fc.record({
    type: fc.constant("registered"),
    // Whatever the wire shows must not be a u64 we hold exactly (-0 is written as 0).
    client_id: fc.double().filter((d) => {
      const wire: unknown = JSON.parse(JSON.stringify(d));
      return !(typeof wire === "number" && Number.isSafeInteger(wire) && wire >= 0);
    }),
  }),
  fc.record({ type: fc.constant("shutting_down"), reason: fc.constant("because"), delay_ms: u32 }),
  fc.record({ type: fc.constant("error"), code: fc.constant(2 ** 31), message: fc.string() }),
);
