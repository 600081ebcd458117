// Per-terminal agent identity, as Herdr's TerminalState keeps it (src/terminal/state.rs): the
// process-detected agent, an optional hook authority (custom or full-lifecycle reports), an
// optional persisted session (session-only official reports, or the session a dropped authority
// leaves behind), per-source report sequences, and the full-lifecycle generation gate:
// - a full-lifecycle report (herdr:pi, omp, mastracode, opencode, kilo, kimi) takes effect only
//   while its process is detected AND a session of the same owner is anchored; otherwise a report
//   with a session ref and a seq is parked (`pending_replacement_report`), everything else is
//   dropped (route_full_lifecycle_hook_report);
// - a full-lifecycle session report with a recognized start source parks its session
//   (`replacement_session_ref`) until the process is present (the session-start branch of
//   set_agent_session_ref_for_session_start); detection of the agent then anchors the session and
//   applies the parked report (clear_full_lifecycle_hook_suppression_for_detected_agent);
// - an observed process exit suppresses the exited generation and forgets its sequences, a
//   clear or release suppresses the source until a new session re-anchors it, and sessions that
//   were replaced become stale and can never re-acquire authority.
// Not modelled: agent names owned by sessions, metadata/presentation, the visible-blocker
// override and managed `agent.start` phases (none change `agent`/`agent_session`/status here).
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
  /** `reported_at`, on the simulator's monotonic clock. */
  readonly reportedAt: number;
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

type SuppressionReason = "hook_clear" | "process_exit";
type Suppressed = {
  agentLabel: string;
  sessionRef: SessionRef | null;
  observedAt: number;
  reason: SuppressionReason;
  replacementSessionRef: SessionRef | null;
  pending: { authority: HookAuthority; seq: bigint } | null;
};
type StaleSession = { readonly agentLabel: string; readonly sessionRef: SessionRef };
type Route = { readonly accept: true; readonly reanchor: boolean } | { readonly accept: false };

// Instant::now(): every observation and report gets a later time than the one before.
let clock = 0;
const now = () => ++clock;

const sameRef = (a: SessionRef | null | undefined, b: SessionRef | null | undefined) =>
  a != null && b != null && a.kind === b.kind && a.value === b.value;

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

/** session_report_allows_session_replacement. */
function allowsSessionReplacement(source: string, agent: string, start: string | undefined) {
  return SESSION_REPLACEMENT[`${source}/${agent}`]?.includes(start) ?? false;
}

const START_SOURCES = ["startup", "clear", "resume", "compact", "new", "fork"];
const startRecognized = (start: string | undefined) =>
  start !== undefined && START_SOURCES.includes(start);

/** agent_resume::plan exists for this (source, agent, kind). */
function resumePlanExists(source: string, agent: string, ref: SessionRef): boolean {
  if (!isOfficialAgentSource(source, agent)) return false;
  return ref.kind === "id" || agent === "pi" || agent === "omp";
}

export class TerminalAgentState {
  detectedAgent: string | null = null;
  fallbackState: PaneAgentState = "unknown";
  hookAuthority: HookAuthority | null = null;
  persisted: PersistedSession | null = null;
  state: PaneAgentState = "unknown";
  recentExit: { readonly agent: string; readonly at: number } | null = null;
  /** Set by any `pane.report_agent` on this pane (the 0.9.3 omission switch keys on it). */
  reportAgentSeen = false;
  private readonly sequences = new Map<string, bigint>();
  private readonly suppressed = new Map<string, Suppressed>();
  private readonly stale = new Map<string, StaleSession[]>();

  // --- effective identity -------------------------------------------------------------------

  /** hook_authority_is_effective: a known full-lifecycle agent counts only while it runs. */
  private effective(a: HookAuthority): boolean {
    if (!isFullLifecycleSource(a.source, a.agentLabel)) return true;
    const known = parseAgentLabel(a.agentLabel);
    return known === null || (this.detectedAgent === known && this.recentExit === null);
  }

  effectiveLabel(): string | null {
    const a = this.hookAuthority;
    if (a !== null && this.effective(a)) return a.agentLabel;
    return this.recentExit === null ? this.detectedAgent : null;
  }

  effectiveKnownAgent(): string | null {
    const label = this.effectiveLabel();
    return label === null ? null : parseAgentLabel(label);
  }

  /** live_full_lifecycle_hook_authority: the process probe is skipped while this holds. */
  liveFullLifecycleAuthority(): boolean {
    const a = this.hookAuthority;
    return a !== null && this.effective(a) && isFullLifecycleSource(a.source, a.agentLabel);
  }

  /** creation.rs terminal_agent_session_info (= current_session_identity_for_persistence). */
  sessionInfo(): AgentSessionInfo | null {
    const a = this.hookAuthority;
    if (a?.sessionRef) return { source: a.source, agent: a.agentLabel, ...a.sessionRef };
    const p = this.persisted;
    return p === null ? null : { source: p.source, agent: p.agent, ...p.sessionRef };
  }

  // --- reports ------------------------------------------------------------------------------

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

  /** set_hook_authority_at. */
  private setHookAuthority(
    source: string,
    agentLabel: string,
    state: PaneAgentState,
    sessionRefIn: SessionRef | null,
    seq: bigint | undefined,
  ): AgentChange | null {
    const at = now();
    if (isIdentityOnlySource(source, agentLabel)) return null;
    const known = parseAgentLabel(agentLabel);
    if (
      !isFullLifecycleSource(source, agentLabel) &&
      known !== null &&
      this.recentExit?.agent === known
    )
      return null;
    const route = this.routeFullLifecycle(source, agentLabel, state, sessionRefIn, seq, at);
    if (!route.accept) return null;
    if (this.labelConflictsWithDetected(agentLabel)) return null;
    const ownerConflicts = this.ownerConflicts(source, agentLabel);
    const takeover =
      ownerConflicts &&
      sessionRefIn !== null &&
      this.foregroundConfirmsOwner(source, agentLabel, sessionRefIn);
    if (ownerConflicts && !takeover) return null;
    const sessionRef =
      sessionRefIn === null
        ? null
        : this.hookReplacesPersistedSession(source, agentLabel, sessionRefIn)
          ? sessionRefIn
          : (this.conflictingSameOwnerRef(source, agentLabel, sessionRefIn, undefined) ??
            sessionRefIn);
    if (this.liveFullLifecycleConflicts(source, agentLabel, sessionRef)) return null;
    if (route.reanchor) this.sequences.delete(source);
    if (!this.acceptReport(source, seq)) return null;
    const prev = this.snapshot();
    if (takeover) this.suppressCurrentFullLifecycle("hook_clear", at);
    if (sessionRef !== null || route.reanchor) {
      const s = this.suppressed.get(source);
      if (s !== undefined) {
        this.suppressed.delete(source);
        if (s.sessionRef !== null) this.rememberStale(source, s.agentLabel, s.sessionRef);
      }
    }
    this.persisted = null;
    this.hookAuthority = { source, agentLabel, state, sessionRef, reportedAt: at };
    return this.recompute(prev);
  }

  /** route_full_lifecycle_hook_report: accept, or park/drop a full-lifecycle report. */
  private routeFullLifecycle(
    source: string,
    agentLabel: string,
    state: PaneAgentState,
    sessionRef: SessionRef | null,
    seq: bigint | undefined,
    at: number,
  ): Route {
    if (!isFullLifecycleSource(source, agentLabel)) return { accept: true, reanchor: false };
    if (this.matchesStaleSession(source, agentLabel, sessionRef)) return { accept: false };
    const known = parseAgentLabel(agentLabel);
    const processPresent =
      known !== null && this.detectedAgent === known && this.recentExit === null;
    const a = this.hookAuthority;
    const p = this.persisted;
    const anchoredRef =
      (a !== null && a.source === source && a.agentLabel === agentLabel ? a.sessionRef : null) ??
      (p !== null && p.source === source && p.agent === agentLabel ? p.sessionRef : null);
    const sessionAnchored =
      anchoredRef !== null && (sessionRef === null || sameRef(sessionRef, anchoredRef));
    const s = this.suppressed.get(source);
    if (s !== undefined) {
      if (s.agentLabel !== agentLabel) return { accept: false };
      if (s.reason === "hook_clear") {
        const reanchor =
          s.sessionRef !== null && sessionRef !== null && !sameRef(s.sessionRef, sessionRef);
        return reanchor ? { accept: true, reanchor: true } : { accept: false };
      }
    }
    if (processPresent && sessionAnchored && s === undefined)
      return {
        accept: true,
        reanchor: this.freshSessionAfterStale(source, agentLabel, sessionRef),
      };
    // Parked: only a report carrying a session ref and a newer seq is kept for later.
    if (sessionRef === null || seq === undefined) return { accept: false };
    const last = this.sequences.get(source);
    if (last !== undefined && seq <= last) return { accept: false };
    let entry = s;
    if (entry === undefined) {
      entry = {
        agentLabel,
        sessionRef:
          p !== null && p.source === source && p.agent === agentLabel ? p.sessionRef : null,
        observedAt: at,
        reason: "process_exit",
        replacementSessionRef: null,
        pending: null,
      };
      this.suppressed.set(source, entry);
    }
    if (entry.pending === null || seq > entry.pending.seq)
      entry.pending = {
        authority: { source, agentLabel, state, sessionRef, reportedAt: at },
        seq,
      };
    return { accept: false };
  }

  /** set_agent_session_ref_for_session_start. */
  reportSession(
    source: string,
    agentLabel: string,
    sessionRef: SessionRef | null,
    seq: bigint | undefined,
    sessionStart: string | undefined,
  ): AgentChange | null {
    if (sessionRef === null) return null;
    const known = parseAgentLabel(agentLabel);
    const processPresent =
      known !== null && this.detectedAgent === known && this.recentExit === null;
    const s = this.suppressed.get(source);
    const generationGated =
      s !== undefined && s.agentLabel === agentLabel && s.reason !== "hook_clear";
    const a = this.hookAuthority;
    const sessionAnchored =
      (a !== null && a.source === source && a.agentLabel === agentLabel && a.sessionRef !== null) ||
      this.persistedMatches(source, agentLabel);
    if (
      isFullLifecycleSource(source, agentLabel) &&
      (!processPresent || generationGated || !sessionAnchored)
    ) {
      // The session-start claim of a full-lifecycle integration: remember the session for the
      // process generation that is about to (or just did) appear.
      if (!startRecognized(sessionStart) || seq === undefined) return null;
      const last = this.sequences.get(source);
      if (last !== undefined && seq <= last) return null;
      const at = now();
      const prev = this.snapshot();
      let entry = s;
      if (entry === undefined) {
        entry = {
          agentLabel,
          sessionRef: null,
          observedAt: at,
          reason: "process_exit",
          replacementSessionRef: null,
          pending: null,
        };
        this.suppressed.set(source, entry);
      }
      if (!sameRef(entry.replacementSessionRef, sessionRef)) {
        if (entry.pending !== null && !sameRef(entry.pending.authority.sessionRef, sessionRef))
          entry.pending = null;
        entry.replacementSessionRef = sessionRef;
      }
      this.sequences.set(source, seq);
      if (!processPresent) return null;
      this.clearSuppressionForDetected(null, known);
      return this.recompute(prev);
    }
    if (!this.acceptReport(source, seq)) return null;
    if (this.labelConflictsWithDetected(agentLabel)) return null;
    const replacementAllowed = allowsSessionReplacement(source, agentLabel, sessionStart);
    const current = this.sessionInfo();
    const replacingIdentityOnly =
      isIdentityOnlySource(source, agentLabel) &&
      replacementAllowed &&
      current !== null &&
      current.source === source &&
      current.agent === agentLabel &&
      current.kind === "id" &&
      sessionRef.kind === "id" &&
      current.value !== sessionRef.value;
    if (replacingIdentityOnly && !processPresent) return null;
    const ownerConflicts = this.ownerConflicts(source, agentLabel);
    const takeover =
      ownerConflicts &&
      startRecognized(sessionStart) &&
      this.foregroundConfirmsOwner(source, agentLabel, sessionRef);
    if (ownerConflicts && !takeover) return null;
    if (this.conflictingSameOwnerRef(source, agentLabel, sessionRef, sessionStart) !== null)
      return null;
    const replacedHookSession = this.sameOwnerFullLifecycleRef(source, agentLabel, sessionRef);
    if (replacedHookSession !== null && !replacementAllowed) return null;
    const prev = this.snapshot();
    if (replacementAllowed || takeover) this.forgetStale(source, agentLabel, sessionRef);
    if (replacedHookSession !== null) {
      this.rememberStale(source, agentLabel, replacedHookSession);
      this.hookAuthority = null;
    } else if (takeover) {
      this.suppressCurrentFullLifecycle("hook_clear", now());
      this.hookAuthority = null;
    }
    this.persisted = { source, agent: agentLabel, sessionRef };
    return this.recompute(prev);
  }

  /** clear_hook_authority_with_mutation. */
  clearAuthority(source: string | undefined, seq: bigint | undefined): AgentChange | null {
    const a = this.hookAuthority;
    if (a === null || (source !== undefined && a.source !== source)) return null;
    if (!this.acceptReport(source ?? a.source, seq)) return null;
    const prev = this.snapshot();
    this.suppressCurrentFullLifecycle("hook_clear", now());
    this.hookAuthority = null;
    this.persisted = null;
    return this.recompute(prev);
  }

  /** release_agent_with_mutation; the caller ignores official pairs first. */
  release(source: string, agentLabel: string, seq: bigint | undefined): AgentChange | null {
    const a = this.hookAuthority;
    if (a !== null && (a.agentLabel !== agentLabel || a.source !== source)) return null;
    const matchesCurrent = this.effectiveLabel() === agentLabel;
    if (!matchesCurrent && !this.persistedMatches(source, agentLabel)) return null;
    if (!this.acceptReport(source, seq)) return null;
    const p = this.persisted;
    const preserveForeign = p !== null && (p.source !== source || p.agent !== agentLabel);
    const known = parseAgentLabel(agentLabel);
    const processOwns = known !== null && this.detectedAgent === known && this.recentExit === null;
    const prev = this.snapshot();
    if (isFullLifecycleSource(source, agentLabel))
      this.suppressWithRef(source, agentLabel, a?.sessionRef ?? null, "hook_clear", now());
    if (!processOwns) {
      this.detectedAgent = null;
      this.fallbackState = "unknown";
    }
    this.hookAuthority = null;
    if (!preserveForeign) this.persisted = null;
    return this.recompute(prev, !processOwns);
  }

  // --- process detection --------------------------------------------------------------------

  /** The probe saw `agent` (or nothing) in the foreground; `processExited` reports an exit. */
  observeDetection(
    agent: string | null,
    state: PaneAgentState,
    processExited = false,
  ): AgentChange | null {
    return this.setDetectedState(agent, state, processExited, now());
  }

  /** publish_pane_process_exit_if_agent (the pane's process died): only releases count. */
  observeProcessExit(): AgentChange | null {
    const agent = this.effectiveKnownAgent() ?? this.detectedAgent;
    if (agent === null && !this.liveFullLifecycleAuthority()) return null;
    const change = this.setDetectedState(agent, "idle", true, now());
    return change?.released ? change : null;
  }

  /** set_detected_state_with_screen_signals_at (without screen signals and metadata). */
  private setDetectedState(
    agent: string | null,
    fallbackState: PaneAgentState,
    processExited: boolean,
    at: number,
  ): AgentChange | null {
    const prev = this.snapshot();
    const previousDetected = this.detectedAgent;
    const a0 = this.hookAuthority;
    const newerCustomAuthority =
      processExited &&
      a0 !== null &&
      parseAgentLabel(a0.agentLabel) === agent &&
      !isOfficialAgentSource(a0.source, a0.agentLabel) &&
      a0.reportedAt > at;
    const released = processExited && !newerCustomAuthority && prev.label !== null;
    if (this.liveFullLifecycleAuthority() && !processExited && !this.authorityConflicts(agent)) {
      // A live full-lifecycle authority owns the state; detection only confirms its agent.
      if (a0 !== null && parseAgentLabel(a0.agentLabel) === agent) this.detectedAgent = agent;
      return this.recompute(prev);
    }
    const replacementProcess =
      !processExited &&
      agent !== null &&
      this.recentExit !== null &&
      this.recentExit.agent === agent &&
      this.recentExit.at < at;
    if (!processExited && this.observedBeforeReleaseSuppression(agent, at))
      return this.recompute(prev);
    this.detectedAgent = agent;
    if (!processExited)
      this.clearSuppressionForDetected(replacementProcess ? null : previousDetected, agent);
    this.fallbackState = fallbackState;
    if (processExited) {
      if (agent !== null) this.recentExit = { agent, at };
    } else if (agent !== null) this.recentExit = null;
    if (processExited) this.forgetExitedGeneration(agent, newerCustomAuthority, at);
    const a = this.hookAuthority;
    if (
      a !== null &&
      a.reportedAt <= at &&
      (this.authorityConflicts(agent) ||
        (previousDetected !== null &&
          agent !== previousDetected &&
          parseAgentLabel(a.agentLabel) === previousDetected))
    ) {
      // A conflicting known-agent authority is dropped; its session stays durable.
      const durable =
        a.sessionRef === null
          ? null
          : { source: a.source, agent: a.agentLabel, sessionRef: a.sessionRef };
      this.suppressCurrentFullLifecycle("hook_clear", at);
      this.hookAuthority = null;
      this.persisted = durable;
    }
    return this.recompute(prev, released);
  }

  /** The process_exited branch: the exited generation's reports and sessions are retired. */
  private forgetExitedGeneration(agent: string | null, newerCustom: boolean, at: number): void {
    const resetSources: string[] = [];
    for (const [source, s] of this.suppressed) {
      if (parseAgentLabel(s.agentLabel) !== agent || s.reason === "hook_clear") continue;
      const exitedRef =
        s.replacementSessionRef ?? s.pending?.authority.sessionRef ?? s.sessionRef ?? null;
      s.replacementSessionRef = null;
      if (s.sessionRef !== null && exitedRef !== null && !sameRef(s.sessionRef, exitedRef))
        this.rememberStale(source, s.agentLabel, s.sessionRef);
      s.sessionRef = exitedRef;
      s.pending = null;
      s.observedAt = at;
      resetSources.push(source);
    }
    for (const source of resetSources) this.sequences.delete(source);
    const a = this.hookAuthority;
    const p = this.persisted;
    let official: { source: string; label: string; ref: SessionRef | null } | null = null;
    if (
      a !== null &&
      isOfficialAgentSource(a.source, a.agentLabel) &&
      parseAgentLabel(a.agentLabel) === agent
    )
      official = { source: a.source, label: a.agentLabel, ref: a.sessionRef };
    else if (
      p !== null &&
      isOfficialAgentSource(p.source, p.agent) &&
      parseAgentLabel(p.agent) === agent
    )
      official = { source: p.source, label: p.agent, ref: p.sessionRef };
    if (official !== null) {
      this.sequences.delete(official.source);
      this.suppressWithRef(official.source, official.label, official.ref, "process_exit", at);
    }
    if (a !== null && parseAgentLabel(a.agentLabel) === agent && !newerCustom) {
      this.sequences.delete(a.source);
      this.hookAuthority = null;
    }
    if (!newerCustom && p !== null && parseAgentLabel(p.agent) === agent) this.persisted = null;
  }

  /** clear_full_lifecycle_hook_suppression_for_detected_agent: a new process anchors. */
  private clearSuppressionForDetected(previous: string | null, detected: string | null): void {
    if (detected === null || previous === detected) return;
    const stale: Array<[string, StaleSession]> = [];
    const validated: Array<{
      source: string;
      agentLabel: string;
      ref: SessionRef;
      pending: { authority: HookAuthority; seq: bigint } | null;
    }> = [];
    for (const [source, s] of [...this.suppressed]) {
      if (parseAgentLabel(s.agentLabel) !== detected) continue;
      if (s.reason === "process_exit") {
        const ref = s.replacementSessionRef;
        if (ref === null) continue;
        s.replacementSessionRef = null;
        if (s.sessionRef !== null && !sameRef(s.sessionRef, ref))
          stale.push([source, { agentLabel: s.agentLabel, sessionRef: s.sessionRef }]);
        const startSeq = this.sequences.get(source);
        const pending = s.pending;
        s.pending = null;
        validated.push({
          source,
          agentLabel: s.agentLabel,
          ref,
          pending:
            pending !== null &&
            sameRef(pending.authority.sessionRef, ref) &&
            (startSeq === undefined || pending.seq > startSeq)
              ? pending
              : null,
        });
        this.suppressed.delete(source);
        continue;
      }
      if (s.sessionRef !== null)
        stale.push([source, { agentLabel: s.agentLabel, sessionRef: s.sessionRef }]);
      this.suppressed.delete(source);
    }
    for (const [source, st] of stale) this.rememberStale(source, st.agentLabel, st.sessionRef);
    for (const source of [...this.sequences.keys()]) {
      if (validated.some((v) => v.source === source)) continue;
      if (isFullLifecycleSource(source, detected)) this.sequences.delete(source);
    }
    for (const v of validated) {
      this.forgetStale(v.source, v.agentLabel, v.ref);
      this.persisted = { source: v.source, agent: v.agentLabel, sessionRef: v.ref };
      if (v.pending !== null) {
        this.sequences.set(v.source, v.pending.seq);
        this.hookAuthority = v.pending.authority;
      }
    }
  }

  // --- helpers ------------------------------------------------------------------------------

  private acceptReport(source: string, seq: bigint | undefined): boolean {
    const last = this.sequences.get(source);
    if (seq === undefined) return last === undefined;
    if (last !== undefined && seq <= last) return false;
    this.sequences.set(source, seq);
    return true;
  }

  private persistedMatches(source: string, agent: string): boolean {
    const p = this.persisted;
    return p !== null && p.source === source && p.agent === agent;
  }

  private labelConflictsWithDetected(agentLabel: string): boolean {
    if (this.detectedAgent === null) return false;
    const known = parseAgentLabel(agentLabel);
    return known !== null && known !== this.detectedAgent;
  }

  /** hook_authority_conflicts_with_detected_agent. */
  private authorityConflicts(detected: string | null): boolean {
    const a = this.hookAuthority;
    if (detected === null || a === null) return false;
    const known = parseAgentLabel(a.agentLabel);
    return known !== null && known !== detected;
  }

  private ownerConflicts(source: string, agentLabel: string): boolean {
    const s = this.sessionInfo();
    return s !== null && (s.source !== source || s.agent !== agentLabel);
  }

  private foregroundConfirmsOwner(source: string, agentLabel: string, ref: SessionRef): boolean {
    return (
      this.detectedAgent !== null &&
      parseAgentLabel(agentLabel) === this.detectedAgent &&
      resumePlanExists(source, agentLabel, ref)
    );
  }

  /** conflicting_same_owner_session_ref: the first id of an owner sticks. */
  private conflictingSameOwnerRef(
    source: string,
    agent: string,
    ref: SessionRef,
    start: string | undefined,
  ): SessionRef | null {
    const s = this.sessionInfo();
    if (s === null || s.source !== source || s.agent !== agent) return null;
    if (s.kind !== "id" || ref.kind !== "id" || s.value === ref.value) return null;
    if (allowsSessionReplacement(source, agent, start)) return null;
    return { kind: s.kind, value: s.value };
  }

  /** lifecycle_hook_report_replaces_persisted_session (MastraCode only). */
  private hookReplacesPersistedSession(source: string, agent: string, ref: SessionRef): boolean {
    const p = this.persisted;
    return (
      this.hookAuthority === null &&
      source === "herdr:mastracode" &&
      agent === "mastracode" &&
      p !== null &&
      p.source === source &&
      p.agent === agent &&
      p.sessionRef.kind === "id" &&
      ref.kind === "id" &&
      p.sessionRef.value !== ref.value
    );
  }

  private liveFullLifecycleConflicts(source: string, agent: string, ref: SessionRef | null) {
    const a = this.hookAuthority;
    return (
      a !== null &&
      isFullLifecycleSource(a.source, a.agentLabel) &&
      a.source === source &&
      a.agentLabel === agent &&
      a.sessionRef !== null &&
      ref !== null &&
      !sameRef(a.sessionRef, ref)
    );
  }

  private sameOwnerFullLifecycleRef(source: string, agent: string, ref: SessionRef) {
    const a = this.hookAuthority;
    if (a === null || !isFullLifecycleSource(a.source, a.agentLabel)) return null;
    if (a.source !== source || a.agentLabel !== agent || a.sessionRef === null) return null;
    return sameRef(a.sessionRef, ref) ? null : a.sessionRef;
  }

  private suppressCurrentFullLifecycle(reason: SuppressionReason, at: number): void {
    const a = this.hookAuthority;
    if (a !== null && isFullLifecycleSource(a.source, a.agentLabel))
      this.suppressWithRef(a.source, a.agentLabel, a.sessionRef, reason, at);
  }

  private suppressWithRef(
    source: string,
    agentLabel: string,
    sessionRef: SessionRef | null,
    reason: SuppressionReason,
    at: number,
  ): void {
    this.suppressed.set(source, {
      agentLabel,
      sessionRef,
      observedAt: at,
      reason,
      replacementSessionRef: null,
      pending: null,
    });
  }

  private observedBeforeReleaseSuppression(agent: string | null, at: number): boolean {
    if (agent === null) return false;
    for (const s of this.suppressed.values())
      if (parseAgentLabel(s.agentLabel) === agent && at <= s.observedAt) return true;
    return false;
  }

  private matchesStaleSession(source: string, agent: string, ref: SessionRef | null): boolean {
    if (!isFullLifecycleSource(source, agent) || ref === null) return false;
    return (this.stale.get(source) ?? []).some(
      (st) => st.agentLabel === agent && sameRef(st.sessionRef, ref),
    );
  }

  private freshSessionAfterStale(source: string, agent: string, ref: SessionRef | null): boolean {
    if (!isFullLifecycleSource(source, agent) || ref === null) return false;
    const list = (this.stale.get(source) ?? []).filter((st) => st.agentLabel === agent);
    return list.length > 0 && list.every((st) => !sameRef(st.sessionRef, ref));
  }

  private rememberStale(source: string, agentLabel: string, sessionRef: SessionRef): void {
    const list = this.stale.get(source) ?? [];
    if (!list.some((st) => st.agentLabel === agentLabel && sameRef(st.sessionRef, sessionRef)))
      list.push({ agentLabel, sessionRef });
    this.stale.set(source, list);
  }

  private forgetStale(source: string, agentLabel: string, sessionRef: SessionRef): void {
    const list = this.stale.get(source);
    if (list === undefined) return;
    const kept = list.filter(
      (st) => st.agentLabel !== agentLabel || !sameRef(st.sessionRef, sessionRef),
    );
    if (kept.length === 0) this.stale.delete(source);
    else this.stale.set(source, kept);
  }

  private snapshot() {
    return { label: this.effectiveLabel(), state: this.state };
  }

  /** recompute_effective_state: hook state when effective, else the detected fallback. */
  private recompute(prev: { label: string | null; state: PaneAgentState }, released = false) {
    const a = this.hookAuthority;
    const state = a !== null && this.effective(a) ? a.state : this.fallbackState;
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
}
