// Behaviour switches: which Herdr version the simulator claims to be, how fast process
// detection names an agent, and the fault injections tests need. Set at start (CLI flags,
// HERDR_SIM_* environment variables, or the helper's `switches`) and at runtime with the
// test-only `sim.configure` method (only when started with --test-control).
import * as v from "valibot";
import { PANE_AGENT_STATES } from "./methods.js";

// ServerCapabilities in field order: 0.8 has {live_handoff, detached_server_daemon}; 0.9 adds
// endpoint_protocol_generation, surface_interest, health_check (and ssh_agent_registration by
// 0.9.3). Key order is the wire order.
const capabilities = v.nullable(v.record(v.string(), v.union([v.boolean(), v.number()])));

export const SwitchesSchema = v.strictObject({
  /** `ping`/`session.snapshot` version string (`build_info::version()`). */
  version: v.string(),
  /** `protocol::PROTOCOL_VERSION` (src/protocol/wire.rs): 19 for 0.8.0, 20 at HEAD/0.8.2, 22 for 0.9. */
  protocol: v.pipe(v.number(), v.integer(), v.minValue(0)),
  capabilities,
  /** Which `Method` enum the server deserializes: 0.8's, or 0.9's with the 11 added methods. */
  methodSet: v.picklist(["0.8", "0.9"]),
  /**
   * 0.8: a new lifecycle subscription starts at sequence 0 and first replays the matching
   * retained events, one per poll tick. 0.9 (PR #3134): it starts at the request boundary.
   */
  lifecycleReplay: v.boolean(),
  /**
   * PROPOSAL, not in any release seen (herdrdev/herdr PR #4225 for issue #4178): a lifecycle or
   * agent-status subscription whose next event was evicted from the ring answers one
   * `events_lost` error line with the request id and closes. Off in every preset.
   */
  eventsLost: v.boolean(),
  /**
   * "one": each subscription pushes at most one event per 100 ms tick (every release seen).
   * "batch": PROPOSAL (PR #4225) - a lifecycle or agent-status subscription drains every
   * retained matching event per tick.
   */
  subscriptionDrain: v.picklist(["one", "batch"]),
  /**
   * Size of every pane's terminal while no client has ever attached (estimate_pane_size):
   * 80x24 in 0.8.0/HEAD, `headless_size` 120x40 from 0.8.2 (#2828).
   */
  headlessSize: v.strictObject({
    cols: v.pipe(v.number(), v.integer(), v.minValue(2)),
    rows: v.pipe(v.number(), v.integer(), v.minValue(2)),
  }),
  /** Delay before (and period of) the foreground-process probe; negative disables detection. */
  detectMs: v.number(),
  /** agent_status a detected agent reports (Herdr reads it off the screen; the sim cannot). */
  detectedStatus: v.picklist(PANE_AGENT_STATES),
  /** Herdr 0.9.3 as seen by the ADR: after `pane.report_agent` the top-level agent is omitted. */
  omitTopLevelAgentAfterReport: v.boolean(),
  /** G5: write this top-level `agent` (a label contradicting `agent_session.agent`). */
  agentOverride: v.nullable(v.string()),
  /** G6: write `"agent":null`. */
  agentNull: v.boolean(),
  /** G7a/b/c: break `agent_session`. */
  sessionFault: v.nullable(v.picklist(["missing_source", "missing_value", "id_instead_of_value"])),
  /** Restrict the PaneInfo faults above to one public pane id (null: every pane). */
  faultPane: v.nullable(v.string()),
  /** Close the connection after reading the request, without answering. */
  closeBeforeReply: v.boolean(),
  /** Answer with a valid JSON line padded past this many bytes (0: off). */
  oversizedReplyBytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** Answer with a line that is not JSON. */
  malformedReply: v.boolean(),
  /** Wait this long before answering. */
  replyDelayMs: v.pipe(v.number(), v.minValue(0)),
  /** Connection faults apply only to these methods (null: every Herdr method, never sim.*). */
  faultMethods: v.nullable(v.array(v.string())),
  /** Pushed event key order: "sorted" is what Herdr writes (serde_json::Value), "struct" the doc's. */
  eventKeyOrder: v.picklist(["sorted", "struct"]),
  /** Initial request read deadline (Herdr: 5 s). */
  requestTimeoutMs: v.pipe(v.number(), v.minValue(1)),
});

export type Switches = v.InferOutput<typeof SwitchesSchema>;
export const PartialSwitchesSchema = v.partial(SwitchesSchema);
export type PartialSwitches = v.InferOutput<typeof PartialSwitchesSchema>;

export const DEFAULT_SWITCHES: Switches = {
  version: "0.8.0",
  protocol: 19,
  capabilities: { live_handoff: true, detached_server_daemon: true },
  methodSet: "0.8",
  lifecycleReplay: true,
  eventsLost: false,
  subscriptionDrain: "one",
  headlessSize: { cols: 80, rows: 24 },
  detectMs: 300,
  detectedStatus: "idle",
  omitTopLevelAgentAfterReport: false,
  agentOverride: null,
  agentNull: false,
  sessionFault: null,
  faultPane: null,
  closeBeforeReply: false,
  oversizedReplyBytes: 0,
  malformedReply: false,
  replyDelayMs: 0,
  faultMethods: null,
  eventKeyOrder: "sorted",
  requestTimeoutMs: 5000,
};

/** The presets a test can run the Herdr-facing suite under ("0.8.0" is the default). */
export const VERSION_PRESETS = ["0.8.0", "head", "0.9.3"] as const;
export type VersionPreset = (typeof VERSION_PRESETS)[number];

/**
 * Version presets: what `--version` / the helper's `version` option mean. "0.9.3": protocol 22,
 * the 0.9 method enum, live-start lifecycle subscriptions, 120x40 headless panes, and the pong
 * capabilities a local 0.9.3 server answered (publicly quoted); the top-level `agent` omission
 * after `pane.report_agent` is the ADR's observation, not a path found in public source.
 */
export function versionPreset(version: string): PartialSwitches {
  if (version === "head") return { version: "0.8.0", protocol: 20 };
  if (version === "0.9.3")
    return {
      version: "0.9.3",
      protocol: 22,
      capabilities: {
        live_handoff: true,
        detached_server_daemon: true,
        endpoint_protocol_generation: 1,
        surface_interest: true,
        health_check: true,
        ssh_agent_registration: true,
      },
      methodSet: "0.9",
      lifecycleReplay: false,
      headlessSize: { cols: 120, rows: 40 },
      omitTopLevelAgentAfterReport: true,
    };
  if (version === "0.8.0") return { version: "0.8.0", protocol: 19 };
  return { version };
}

const ENV_KEYS: ReadonlyArray<
  readonly [string, keyof Switches, "number" | "bool" | "string" | "list" | "json"]
> = [
  ["HERDR_SIM_VERSION", "version", "string"],
  ["HERDR_SIM_PROTOCOL", "protocol", "number"],
  ["HERDR_SIM_CAPABILITIES", "capabilities", "json"],
  ["HERDR_SIM_METHOD_SET", "methodSet", "string"],
  ["HERDR_SIM_LIFECYCLE_REPLAY", "lifecycleReplay", "bool"],
  ["HERDR_SIM_EVENTS_LOST", "eventsLost", "bool"],
  ["HERDR_SIM_SUBSCRIPTION_DRAIN", "subscriptionDrain", "string"],
  ["HERDR_SIM_HEADLESS_SIZE", "headlessSize", "json"],
  ["HERDR_SIM_DETECT_MS", "detectMs", "number"],
  ["HERDR_SIM_DETECTED_STATUS", "detectedStatus", "string"],
  ["HERDR_SIM_OMIT_TOP_LEVEL_AGENT", "omitTopLevelAgentAfterReport", "bool"],
  ["HERDR_SIM_AGENT_OVERRIDE", "agentOverride", "string"],
  ["HERDR_SIM_AGENT_NULL", "agentNull", "bool"],
  ["HERDR_SIM_SESSION_FAULT", "sessionFault", "string"],
  ["HERDR_SIM_FAULT_PANE", "faultPane", "string"],
  ["HERDR_SIM_CLOSE_BEFORE_REPLY", "closeBeforeReply", "bool"],
  ["HERDR_SIM_OVERSIZED_REPLY_BYTES", "oversizedReplyBytes", "number"],
  ["HERDR_SIM_MALFORMED_REPLY", "malformedReply", "bool"],
  ["HERDR_SIM_REPLY_DELAY_MS", "replyDelayMs", "number"],
  ["HERDR_SIM_FAULT_METHODS", "faultMethods", "list"],
  ["HERDR_SIM_EVENT_KEY_ORDER", "eventKeyOrder", "string"],
  ["HERDR_SIM_REQUEST_TIMEOUT_MS", "requestTimeoutMs", "number"],
];

/** Read HERDR_SIM_* variables; invalid values throw with the variable's name. */
export function switchesFromEnv(env: NodeJS.ProcessEnv): PartialSwitches {
  const raw: Record<string, unknown> = {};
  for (const [name, key, kind] of ENV_KEYS) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    if (kind === "number") raw[key] = Number(value);
    else if (kind === "bool") raw[key] = value === "1" || value === "true";
    else if (kind === "list")
      raw[key] = value
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
    else if (kind === "json") raw[key] = JSON.parse(value) as unknown;
    else raw[key] = value;
  }
  const parsed = v.safeParse(PartialSwitchesSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue.path?.map((p) => String(p.key)).join(".") ?? "?";
    throw new Error(`invalid HERDR_SIM_* setting for ${path}: ${issue.message}`);
  }
  return parsed.output;
}

export function mergeSwitches(base: Switches, patch: PartialSwitches): Switches {
  const out: Record<string, unknown> = { ...base };
  for (const [k, value] of Object.entries(patch)) if (value !== undefined) out[k] = value;
  return v.parse(SwitchesSchema, out);
}
