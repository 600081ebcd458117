/**
 * Which agent occupies a pane, and may we control it? A pure function of the bound facts and
 * one fresh observation (ADR 0224, "Herdr 0.9.3 can omit the top-level agent…"):
 * - accept the nested `agent_session.agent` only when the top-level `agent` is absent;
 * - when both exist they must agree;
 * - a null, a contradiction, a missing `source` or `value` (G7c's `id` is not a `value`), a
 *   changed pid, terminal or native session refuses control, each with its own reason.
 *
 * Generic over the harness: the binding names the agent and the session kind Herdr reports for
 * it (`src/agent_resume.rs` session_ref_from_report: pi and omp an absolute path, every other
 * official agent an id; `harnessBinding` is that table). grok's binding is `{grok, id}`.
 *
 * Why the top-level field can be missing while the nested one is present, and how they can
 * disagree, is traced in docs/design/herdr-socket-api.md §5.3-§5.5; the golden cases G1-G7c are the test
 * table (`test/fixtures/herdr/agent-golden.json`).
 */
import type { JsonValue } from "../json.js";

export interface AgentBinding {
  /** `shell_pid` bound at launch. */
  readonly pid: number;
  readonly terminalId: string;
  /** Terminal device bound at launch (from the kernel, never from Herdr). */
  readonly tty: string | null;
  /** Our native session: its id, or its absolute path for a path-kind harness; null when none was bound yet. */
  readonly nativeSessionId: string | null;
  /** The agent label control requires (e.g. "grok"); null to accept any label. */
  readonly expectedAgent: string | null;
  /**
   * The `agent_session.kind` the expected agent's session must have ("id" for grok, "path" for
   * pi and omp); null accepts either well-formed kind.
   */
  readonly expectedSessionKind: SessionKind | null;
}

/** `AgentSessionRef` kinds (`src/agent_resume.rs`): an id, or an absolute path. */
export type SessionKind = "id" | "path";

/** What a harness's binding names: its Herdr agent label and the session kind Herdr reports. */
export interface HarnessBinding {
  readonly expectedAgent: string;
  readonly expectedSessionKind: SessionKind;
}

/**
 * The binding Herdr's rules give an agent label: pi and omp report an absolute
 * `agent_session_path` as kind "path", every other official source kind "id"
 * (`src/agent_resume.rs` session_ref_from_report).
 */
export function harnessBinding(agent: string): HarnessBinding {
  return {
    expectedAgent: agent,
    expectedSessionKind: agent === "pi" || agent === "omp" ? "path" : "id",
  };
}

export interface AgentObservation {
  /** The raw pane object (`PaneInfo`); only `terminal_id`, `agent`, `agent_session` are read. */
  readonly pane: { readonly terminal_id: string; readonly [key: string]: unknown };
  /** `pane.process_info` `shell_pid`, or null when Herdr gave none. */
  readonly shellPid: number | null;
  /** The kernel's terminal for the bound pid now. */
  readonly tty: string | null;
}

export type AgentRefusal =
  | "pid_changed"
  | "terminal_changed"
  | "agent_null"
  | "agent_malformed"
  | "agent_session_null"
  | "agent_session_malformed"
  | "agent_session_field_null"
  | "agent_session_missing_source"
  | "agent_session_missing_agent"
  | "agent_session_missing_kind"
  | "agent_session_missing_value"
  | "agent_session_not_id"
  | "agent_session_not_path"
  | "agent_session_path_relative"
  | "agent_contradiction"
  | "agent_absent"
  | "agent_unexpected"
  | "native_session_changed";

export type AgentVerdict =
  | {
      readonly ok: true;
      readonly agent: string;
      /** Where the label came from: the top-level field, the nested one (0.9.3 omission), both. */
      readonly agentFrom: "top_level" | "nested" | "both";
      /** `agent_session.value` (an id, or a path for pi/omp); null when Herdr has no session ref yet. */
      readonly nativeSessionId: string | null;
      /** `agent_session.kind`; null when Herdr has no session ref yet. */
      readonly nativeSessionKind: SessionKind | null;
      readonly sessionSource: string | null;
    }
  | {
      readonly ok: false;
      readonly reason: AgentRefusal;
      readonly detail: string;
      /** True only for `agent_absent`: detection or the session hook may still arrive (G1). */
      readonly retryable: boolean;
    };

type Text =
  | { readonly kind: "absent" }
  | { readonly kind: "null" }
  | { readonly kind: "text"; readonly value: string }
  | { readonly kind: "malformed" };

function field(obj: { readonly [key: string]: unknown }, key: string): Text {
  if (!Object.hasOwn(obj, key)) return { kind: "absent" };
  const value = obj[key];
  if (value === null) return { kind: "null" };
  if (typeof value === "string" && value !== "") return { kind: "text", value };
  return { kind: "malformed" };
}

function isRecord(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refuse(reason: AgentRefusal, detail: string): AgentVerdict {
  return { ok: false, reason, detail, retryable: reason === "agent_absent" };
}

type Session =
  | { readonly kind: "absent" }
  | { readonly kind: "refused"; readonly verdict: AgentVerdict }
  | {
      readonly kind: "ok";
      readonly source: string;
      readonly agent: string;
      readonly sessionKind: SessionKind;
      readonly value: string;
    };

/** `AgentSessionInfo {source, agent, kind, value}`, all four required (`agents.rs`). */
function readSession(pane: AgentObservation["pane"]): Session {
  if (!Object.hasOwn(pane, "agent_session")) return { kind: "absent" };
  const raw = pane.agent_session;
  if (raw === null) {
    return { kind: "refused", verdict: refuse("agent_session_null", "agent_session is null") };
  }
  if (!isRecord(raw)) {
    return {
      kind: "refused",
      verdict: refuse("agent_session_malformed", "agent_session is not an object"),
    };
  }
  const obj = raw;
  const missing: Record<string, AgentRefusal> = {
    source: "agent_session_missing_source",
    agent: "agent_session_missing_agent",
    kind: "agent_session_missing_kind",
    value: "agent_session_missing_value",
  };
  const got: Record<string, string> = {};
  for (const key of ["source", "agent", "kind", "value"] as const) {
    const f = field(obj, key);
    if (f.kind === "null") {
      return { kind: "refused", verdict: refuse("agent_session_field_null", `${key} is null`) };
    }
    if (f.kind === "malformed") {
      return {
        kind: "refused",
        verdict: refuse("agent_session_malformed", `${key} is not a non-empty string`),
      };
    }
    if (f.kind === "absent") {
      // G7c: an `id` key is a likely client or server bug, never a session id (§ golden cases).
      const note =
        key === "value" && Object.hasOwn(obj, "id") ? " (an `id` key is not `value`)" : "";
      return {
        kind: "refused",
        verdict: refuse(missing[key] ?? "agent_session_malformed", `${key} is missing${note}`),
      };
    }
    got[key] = f.value;
  }
  const value = got.value ?? "";
  if (got.kind === "path" && !value.startsWith("/")) {
    // Herdr stores a path only when it is absolute (`src/agent_resume.rs` valid_session_path).
    return {
      kind: "refused",
      verdict: refuse("agent_session_path_relative", `session path "${value}" is not absolute`),
    };
  }
  if (got.kind !== "id" && got.kind !== "path") {
    return {
      kind: "refused",
      verdict: refuse("agent_session_malformed", `unknown kind "${got.kind}"`),
    };
  }
  return {
    kind: "ok",
    source: got.source ?? "",
    agent: got.agent ?? "",
    sessionKind: got.kind,
    value,
  };
}

/** The native session Herdr reports (an id or a path), read exactly as `reconcileAgent` reads it. */
export function observedNativeSession(
  pane: AgentObservation["pane"],
):
  | { readonly kind: "absent" }
  | { readonly kind: SessionKind; readonly value: string }
  | { readonly kind: "unreadable"; readonly reason: AgentRefusal } {
  const session = readSession(pane);
  if (session.kind === "absent") return { kind: "absent" };
  if (session.kind === "ok") return { kind: session.sessionKind, value: session.value };
  return {
    kind: "unreadable",
    reason: session.verdict.ok ? "agent_session_malformed" : session.verdict.reason,
  };
}

export function reconcileAgent(binding: AgentBinding, observed: AgentObservation): AgentVerdict {
  if (observed.shellPid !== binding.pid) {
    return refuse("pid_changed", `shell_pid is ${observed.shellPid}, bound ${binding.pid}`);
  }
  if (observed.pane.terminal_id !== binding.terminalId) {
    return refuse(
      "terminal_changed",
      `terminal_id is ${observed.pane.terminal_id}, bound ${binding.terminalId}`,
    );
  }
  if (observed.tty !== binding.tty) {
    return refuse("terminal_changed", `tty is ${observed.tty}, bound ${binding.tty}`);
  }
  const top = field(observed.pane, "agent");
  if (top.kind === "null") return refuse("agent_null", "agent is null (Herdr omits, never nulls)");
  if (top.kind === "malformed") return refuse("agent_malformed", "agent is not a non-empty string");
  const session = readSession(observed.pane);
  if (session.kind === "refused") return session.verdict;

  let agent: string;
  let agentFrom: "top_level" | "nested" | "both";
  if (top.kind === "text" && session.kind === "ok") {
    if (top.value !== session.agent) {
      return refuse(
        "agent_contradiction",
        `agent "${top.value}" contradicts agent_session.agent "${session.agent}"`,
      );
    }
    agent = top.value;
    agentFrom = "both";
  } else if (top.kind === "text") {
    agent = top.value;
    agentFrom = "top_level";
  } else if (session.kind === "ok") {
    agent = session.agent;
    agentFrom = "nested";
  } else {
    return refuse("agent_absent", "neither agent nor agent_session is present");
  }
  if (binding.expectedAgent !== null && agent !== binding.expectedAgent) {
    return refuse("agent_unexpected", `agent "${agent}", expected "${binding.expectedAgent}"`);
  }
  if (
    session.kind === "ok" &&
    binding.expectedSessionKind !== null &&
    session.sessionKind !== binding.expectedSessionKind
  ) {
    return binding.expectedSessionKind === "id"
      ? refuse("agent_session_not_id", `session is a ${session.sessionKind}, not an id`)
      : refuse("agent_session_not_path", `session is a ${session.sessionKind}, not a path`);
  }
  const nativeSessionId = session.kind === "ok" ? session.value : null;
  if (
    nativeSessionId !== null &&
    binding.nativeSessionId !== null &&
    nativeSessionId !== binding.nativeSessionId
  ) {
    return refuse(
      "native_session_changed",
      `agent_session.value ${nativeSessionId}, bound ${binding.nativeSessionId}`,
    );
  }
  return {
    ok: true,
    agent,
    agentFrom,
    nativeSessionId,
    nativeSessionKind: session.kind === "ok" ? session.sessionKind : null,
    sessionSource: session.kind === "ok" ? session.source : null,
  };
}

/** The verdict as JSON for `--json` output and check results. */
export function verdictJson(verdict: AgentVerdict): JsonValue {
  return { ...verdict };
}
