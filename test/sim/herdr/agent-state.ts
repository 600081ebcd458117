// Per-terminal agent identity, as Herdr's TerminalState keeps it (src/terminal/state.rs):
// the process-detected agent, an optional hook authority (custom or full-lifecycle reports), an
// optional persisted session (session-only official reports), per-source report sequences.
// The paths modelled are the ones the grok seat meets: reserved `herdr:grok` session reports,
// custom authorities, clear/release, detection and process exit. The full-lifecycle
// suppression machinery (pi/omp/opencode generations) is not modelled.
import {
  isFullLifecycleSource,
  isIdentityOnlySource,
  isOfficialAgentSource,
  isReservedNativeStateSource,
  parseAgentLabel,
  type SessionRef,
} from "./agents.js";
import type { PaneAgentState } from "./methods.js";

export type HookAuthority = {
  readonly source: string;
  readonly agentLabel: string;
  readonly state: PaneAgentState;
  readonly sessionRef: SessionRef | null;
};
export type PersistedSession = {
  readonly source: string;
  readonly agent: string;
  readonly sessionRef: SessionRef;
};
export type AgentSessionInfo = {
  readonly source: string;
  readonly agent: string;
  readonly kind: "id" | "path";
  readonly value: string;
};

/** What changed, for events (src/app/api.rs emit_pane_state_update). */
export type AgentChange = {
  readonly previousLabel: string | null;
  readonly label: string | null;
  readonly previousState: PaneAgentState;
  readonly state: PaneAgentState;
  readonly released: boolean;
};

const SESSION_REPLACEMENT: Readonly<Record<string, readonly (string | undefined)[]>> = {
  "herdr:claude/claude": ["clear", "resume", "compact"],
  "herdr:codex/codex": ["startup", "clear", "resume", "compact"],
  "herdr:mastracode/mastracode": ["startup"],
  "herdr:hermes/hermes": ["startup", "new", "resume"],
  "herdr:opencode/opencode": ["new"],
  "herdr:pi/pi": ["new", "resume", "fork"],
  "herdr:omp/omp": ["startup", "new", "resume", "fork"],
  "herdr:antigravity_cli/agy": [undefined],
};

function allowsSessionReplacement(source: string, agent: string, start: string | undefined) {
  return SESSION_REPLACEMENT[`${source}/${agent}`]?.includes(start) ?? false;
}

const START_SOURCES = ["startup", "clear", "resume", "compact", "new", "fork"];

/** agent_resume::plan exists for this (source, agent, kind). */
function resumePlanExists(source: string, agent: string, ref: SessionRef): boolean {
  if (!isOfficialAgentSource(source, agent)) return false;
  return ref.kind === "id" || agent === "pi" || agent === "omp";
}

export class TerminalAgentState {
  detectedAgent: string | null = null;
  recentExit: string | null = null;
  hookAuthority: HookAuthority | null = null;
  persisted: PersistedSession | null = null;
  fallbackState: PaneAgentState = "unknown";
  state: PaneAgentState = "unknown";
  /** Set by any `pane.report_agent` on this pane (the 0.9.3 omission switch keys on it). */
  reportAgentSeen = false;
  private readonly sequences = new Map<string, bigint>();

  private authorityEffective(a: HookAuthority): boolean {
    if (!isFullLifecycleSource(a.source, a.agentLabel)) return true;
    const known = parseAgentLabel(a.agentLabel);
    return known === null || (this.detectedAgent === known && this.recentExit === null);
  }

  effectiveLabel(): string | null {
    const a = this.hookAuthority;
    if (a !== null && this.authorityEffective(a)) return a.agentLabel;
    return this.recentExit === null ? this.detectedAgent : null;
  }

  effectiveKnownAgent(): string | null {
    const label = this.effectiveLabel();
    return label === null ? null : parseAgentLabel(label);
  }

  /** creation.rs terminal_agent_session_info. */
  sessionInfo(): AgentSessionInfo | null {
    const a = this.hookAuthority;
    if (a?.sessionRef) return { source: a.source, agent: a.agentLabel, ...a.sessionRef };
    const p = this.persisted;
    return p === null ? null : { source: p.source, agent: p.agent, ...p.sessionRef };
  }

  private acceptReport(source: string, seq: bigint | undefined): boolean {
    const last = this.sequences.get(source);
    if (seq === undefined) return last === undefined;
    if (last !== undefined && seq <= last) return false;
    this.sequences.set(source, seq);
    return true;
  }

  private labelConflictsWithDetected(agentLabel: string): boolean {
    if (this.detectedAgent === null) return false;
    const known = parseAgentLabel(agentLabel);
    return known !== null && known !== this.detectedAgent;
  }

  private ownerConflicts(source: string, agentLabel: string): boolean {
    const s = this.sessionInfo();
    return s !== null && (s.source !== source || s.agent !== agentLabel);
  }

  private foregroundConfirms(source: string, agentLabel: string, ref: SessionRef): boolean {
    return (
      this.detectedAgent !== null &&
      parseAgentLabel(agentLabel) === this.detectedAgent &&
      resumePlanExists(source, agentLabel, ref)
    );
  }

  private sameOwnerConflict(source: string, agent: string, ref: SessionRef, start?: string) {
    const s = this.sessionInfo();
    if (s === null || s.source !== source || s.agent !== agent) return null;
    if (s.kind !== "id" || ref.kind !== "id" || s.value === ref.value) return null;
    if (allowsSessionReplacement(source, agent, start)) return null;
    return { kind: s.kind, value: s.value } satisfies SessionRef;
  }

  private snapshot() {
    return { label: this.effectiveLabel(), state: this.state };
  }

  private recompute(prev: { label: string | null; state: PaneAgentState }, released = false) {
    const a = this.hookAuthority;
    const state = a !== null && this.authorityEffective(a) ? a.state : this.fallbackState;
    const label = this.effectiveLabel();
    this.state = state;
    if (!released && prev.label === label && prev.state === state) return null;
    return {
      previousLabel: prev.label,
      label: released ? prev.label : label,
      previousState: prev.state,
      state,
      released,
    } satisfies AgentChange;
  }

  /** HookStateReported (src/app/actions.rs): reserved pairs only store the session. */
  reportAgent(
    source: string,
    agentLabel: string,
    state: PaneAgentState,
    sessionRef: SessionRef | null,
    seq: bigint | undefined,
  ): AgentChange | null {
    this.reportAgentSeen = true;
    if (isReservedNativeStateSource(source, agentLabel))
      return this.reportSession(source, agentLabel, sessionRef, seq, undefined);
    return this.setHookAuthority(source, agentLabel, state, sessionRef, seq);
  }

  /** set_hook_authority_at, without the full-lifecycle routing. */
  private setHookAuthority(
    source: string,
    agentLabel: string,
    state: PaneAgentState,
    sessionRefIn: SessionRef | null,
    seq: bigint | undefined,
  ): AgentChange | null {
    if (isIdentityOnlySource(source, agentLabel)) return null;
    const known = parseAgentLabel(agentLabel);
    if (!isFullLifecycleSource(source, agentLabel) && known !== null && this.recentExit === known)
      return null;
    if (this.labelConflictsWithDetected(agentLabel)) return null;
    const ownerConflicts = this.ownerConflicts(source, agentLabel);
    const takeover =
      ownerConflicts &&
      sessionRefIn !== null &&
      this.foregroundConfirms(source, agentLabel, sessionRefIn);
    if (ownerConflicts && !takeover) return null;
    const sessionRef =
      sessionRefIn === null
        ? null
        : (this.sameOwnerConflict(source, agentLabel, sessionRefIn) ?? sessionRefIn);
    if (!this.acceptReport(source, seq)) return null;
    const prev = this.snapshot();
    this.persisted = null;
    this.hookAuthority = { source, agentLabel, state, sessionRef };
    return this.recompute(prev);
  }

  /** set_agent_session_ref_for_session_start, non-full-lifecycle path. */
  reportSession(
    source: string,
    agentLabel: string,
    sessionRef: SessionRef | null,
    seq: bigint | undefined,
    sessionStart: string | undefined,
  ): AgentChange | null {
    if (sessionRef === null) return null;
    if (!this.acceptReport(source, seq)) return null;
    if (this.labelConflictsWithDetected(agentLabel)) return null;
    const replacementAllowed = allowsSessionReplacement(source, agentLabel, sessionStart);
    const known = parseAgentLabel(agentLabel);
    const processPresent =
      known !== null && this.detectedAgent === known && this.recentExit === null;
    const current = this.sessionInfo();
    if (
      isIdentityOnlySource(source, agentLabel) &&
      replacementAllowed &&
      !processPresent &&
      current !== null &&
      current.source === source &&
      current.agent === agentLabel &&
      current.kind === "id" &&
      sessionRef.kind === "id" &&
      current.value !== sessionRef.value
    )
      return null;
    const ownerConflicts = this.ownerConflicts(source, agentLabel);
    const takeover =
      ownerConflicts &&
      sessionStart !== undefined &&
      START_SOURCES.includes(sessionStart) &&
      this.foregroundConfirms(source, agentLabel, sessionRef);
    if (ownerConflicts && !takeover) return null;
    if (this.sameOwnerConflict(source, agentLabel, sessionRef, sessionStart) !== null) return null;
    const prev = this.snapshot();
    if (takeover) this.hookAuthority = null;
    this.persisted = { source, agent: agentLabel, sessionRef };
    return this.recompute(prev);
  }

  /** clear_hook_authority_with_mutation. */
  clearAuthority(source: string | undefined, seq: bigint | undefined): AgentChange | null {
    const a = this.hookAuthority;
    if (a === null || (source !== undefined && a.source !== source)) return null;
    if (!this.acceptReport(source ?? a.source, seq)) return null;
    const prev = this.snapshot();
    this.hookAuthority = null;
    this.persisted = null;
    return this.recompute(prev);
  }

  /** release_agent_with_mutation; the caller ignores official pairs first. */
  release(source: string, agentLabel: string, seq: bigint | undefined): AgentChange | null {
    const a = this.hookAuthority;
    if (a !== null && (a.agentLabel !== agentLabel || a.source !== source)) return null;
    const matchesCurrent = this.effectiveLabel() === agentLabel;
    const p = this.persisted;
    const matchesPersisted = p !== null && p.source === source && p.agent === agentLabel;
    if (!matchesCurrent && !matchesPersisted) return null;
    if (!this.acceptReport(source, seq)) return null;
    const preserveForeign = p !== null && (p.source !== source || p.agent !== agentLabel);
    const known = parseAgentLabel(agentLabel);
    const processOwns = known !== null && this.detectedAgent === known && this.recentExit === null;
    const prev = this.snapshot();
    if (!processOwns) {
      this.detectedAgent = null;
      this.fallbackState = "unknown";
    }
    this.hookAuthority = null;
    if (!preserveForeign) this.persisted = null;
    return this.recompute(prev, !processOwns);
  }

  /** Process detection observed `agent` (or nothing) in the foreground, not an exit. */
  observeDetection(agent: string | null, state: PaneAgentState): AgentChange | null {
    const prev = this.snapshot();
    this.detectedAgent = agent;
    this.fallbackState = agent === null ? "unknown" : state;
    if (agent !== null) this.recentExit = null;
    const a = this.hookAuthority;
    const authorityAgent = a === null ? null : parseAgentLabel(a.agentLabel);
    if (a !== null && agent !== null && authorityAgent !== null && authorityAgent !== agent) {
      // A conflicting known-agent authority is dropped; its session stays durable (§5.5).
      if (a.sessionRef !== null)
        this.persisted = { source: a.source, agent: a.agentLabel, sessionRef: a.sessionRef };
      this.hookAuthority = null;
    }
    return this.recompute(prev);
  }

  /** publish_pane_process_exit_if_agent: only an identified agent is released. */
  observeProcessExit(): AgentChange | null {
    const agent = this.effectiveKnownAgent() ?? this.detectedAgent;
    if (agent === null) return null;
    const prev = this.snapshot();
    const released = prev.label !== null;
    this.detectedAgent = agent;
    this.fallbackState = "idle";
    this.recentExit = agent;
    const a = this.hookAuthority;
    if (a !== null && parseAgentLabel(a.agentLabel) === agent) this.hookAuthority = null;
    if (this.persisted !== null && parseAgentLabel(this.persisted.agent) === agent)
      this.persisted = null;
    const change = this.recompute(prev, released);
    return change?.released ? change : null;
  }
}
