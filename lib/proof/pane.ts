/**
 * The pane proof (ADR 0224: "Bind the original TUI PID, microsecond process birth, canonical
 * executable/cwd, terminal and Herdr session descriptor"). Pure functions of recorded facts:
 * - `bindPaneProof` turns one observation of a freshly launched pane into a versioned,
 *   JSON-serialisable record, or refuses with the failed checks;
 * - `checkPaneProof` re-verifies a record against a new observation before any control.
 * The I/O that gathers observations is `lib/observe/pane.ts`.
 *
 * Herdr never reports a pid in `PaneInfo` nor a tty anywhere (docs/design/herdr-socket-api.md
 * §4.2): the pid is `pane.process_info.shell_pid` and the terminal comes from the kernel for that
 * pid.
 */
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import type { JsonValue } from "../json.js";
import type { ProcessFacts } from "../kernel/index.js";
import { agentCheck, nativeSessionCheck } from "./agent.js";
import {
  type AgentBinding,
  type AgentVerdict,
  harnessBinding,
  reconcileAgent,
  type SessionKind,
} from "./agent-reconcile.js";
import { checkHerdrServer, HERDR_TRUST_CHECKS, type HerdrTie } from "./herdr-trust.js";
import { PANE_PROOF_VERSION, type PaneProofRecord } from "./pane-record.js";
import { checkPaneTerminal, type TerminalTie } from "./pane-terminal.js";
import type { SessionDescriptor } from "./session-descriptor.js";

export {
  BoundProcessSchema,
  PANE_PROOF_VERSION,
  type PaneProofRecord,
  PaneProofRecordSchema,
} from "./pane-record.js";

/**
 * What the pane proof reads of Herdr's `PaneInfo` (lib/herdr/wire-pane.ts parses it): the ids, and
 * `agent` / `agent_session` kept raw for the reconciler. Every other field is carried, unread.
 */
export interface PaneFacts {
  readonly pane_id: string;
  readonly terminal_id: string;
  readonly workspace_id: string;
  readonly tab_id: string;
  readonly [key: string]: unknown;
}

/** What it reads of Herdr's `PaneProcessInfo`: the pane, `shell_pid`, and `tty` if ever filled. */
export interface PaneProcessFacts {
  readonly pane_id: string;
  readonly shell_pid?: number | null | undefined;
  readonly tty?: string | null | undefined;
}

/** A fact that could not be read: a Herdr error code or a kernel failure code. */
export interface Unavailable {
  readonly unavailable: true;
  readonly code: string;
  readonly message: string;
}
export type Observed<T> = T | Unavailable;

export function isUnavailable<T>(x: Observed<T>): x is Unavailable {
  return typeof x === "object" && x !== null && "unavailable" in x && x.unavailable === true;
}

/**
 * Everything one look at the pane gives: Herdr's view, then the kernel's for the bound pid. The
 * Herdr values are its parsed replies (`P`, `I`: lib/observe passes Herdr's own types).
 */
export interface PaneObservation<
  P extends PaneFacts = PaneFacts,
  I extends PaneProcessFacts = PaneProcessFacts,
> {
  readonly descriptor: Observed<SessionDescriptor>;
  readonly pane: Observed<P>;
  readonly processInfo: Observed<I>;
  /** Kernel facts for the pid being bound or verified. */
  readonly facts: Observed<ProcessFacts>;
  /** Our uid and the socket directory's ancestry: is the server ours (lib/proof/herdr-trust.ts). */
  readonly trust: Observed<HerdrTie>;
  /** Who holds the pane's terminal: is the pane this server's (lib/proof/pane-terminal.ts). */
  readonly terminal: Observed<TerminalTie>;
}

export interface PaneBindInput {
  readonly paneId: string;
  readonly launch: { readonly argv: readonly string[]; readonly cwd: string | null } | null;
  readonly observation: PaneObservation;
  /** A second `pane.process_info` read, after the kernel facts: the pid did not move meanwhile. */
  readonly processInfoAfter: Observed<PaneProcessFacts>;
  /** The process finished exec'ing before its facts were taken (two reads agreed). */
  readonly execSettled: boolean;
  readonly nativeSessionId: string | null;
  readonly expectedAgent: string | null;
  /** Default: Herdr's rule for `expectedAgent` (`harnessBinding`); null without an agent. */
  readonly expectedSessionKind?: SessionKind | null;
  readonly now: Date;
}

/** The session kind a record (or bind input) expects: its own, else Herdr's rule for its agent. */
export function expectedSessionKindOf(x: {
  readonly expectedAgent: string | null;
  readonly expectedSessionKind?: SessionKind | null | undefined;
}): SessionKind | null {
  if (x.expectedSessionKind !== undefined) return x.expectedSessionKind;
  return x.expectedAgent === null ? null : harnessBinding(x.expectedAgent).expectedSessionKind;
}

export interface PaneBindResult {
  readonly record: PaneProofRecord | null;
  readonly checks: readonly CheckResult[];
}

function unavailable(check: string, expected: JsonValue, u: Unavailable): CheckResult {
  return fail(check, expected, { unavailable: u.code }, `${u.code}: ${u.message}`);
}

export function bindPaneProof(input: PaneBindInput): PaneBindResult {
  const { observation: obs } = input;
  const checks: CheckResult[] = [];
  const paneUnavailable = (): void => {
    if (isUnavailable(obs.pane)) checks.push(unavailable("pane.present", input.paneId, obs.pane));
    if (isUnavailable(obs.processInfo))
      checks.push(unavailable("pane.shell_pid", "present", obs.processInfo));
  };
  if (isUnavailable(obs.descriptor)) {
    checks.push(unavailable("herdr.descriptor", "readable", obs.descriptor));
    paneUnavailable();
    return { record: null, checks };
  }
  // A server that is not ours is not asked about any pane (and its answers are not looked at).
  const trust = trustChecks(obs.descriptor, obs.trust);
  checks.push(...trust);
  if (!trust.every((c) => c.ok)) return { record: null, checks };
  paneUnavailable();
  if (isUnavailable(obs.pane) || isUnavailable(obs.processInfo)) {
    return { record: null, checks };
  }
  const pane = obs.pane;
  const info = obs.processInfo;
  const pid = info.shell_pid ?? null;
  checks.push(
    expectEqual("pane.present", input.paneId, pane.pane_id, "pane.get returned another pane"),
  );
  checks.push(
    expectEqual(
      "pane.process_info_pane",
      input.paneId,
      info.pane_id,
      "process_info is for another pane",
    ),
  );
  checks.push(
    pid === null
      ? fail("pane.shell_pid", "present", null, "Herdr reports no shell_pid for the pane")
      : pass("pane.shell_pid", "present", pid),
  );
  const after = isUnavailable(input.processInfoAfter)
    ? null
    : (input.processInfoAfter.shell_pid ?? null);
  checks.push(
    expectEqual("pane.shell_pid_stable", pid, after, "shell_pid changed while the proof was read"),
  );
  if (pid === null) return { record: null, checks };
  if (isUnavailable(obs.facts)) {
    checks.push(unavailable("pane.process_facts", "readable", obs.facts));
    return { record: null, checks };
  }
  const facts = obs.facts;
  checks.push(expectEqual("pane.process_pid", pid, facts.pid, "kernel facts are for another pid"));
  checks.push(
    input.execSettled
      ? pass("pane.process_settled", true, true)
      : fail("pane.process_settled", true, false, "the pane process had not finished exec'ing"),
  );
  checks.push(
    facts.tty === null
      ? fail("pane.terminal", "a terminal", null, "the pane process has no controlling terminal")
      : pass("pane.terminal", "a terminal", facts.tty),
  );
  checks.push(herdrTtyCheck(info, facts.tty));
  checks.push(checkPaneTerminal(obs.descriptor.server.pid, obs.terminal));
  checks.push(
    facts.executableDeleted
      ? fail(
          "pane.process_executable",
          "present",
          facts.executable,
          "the executable was deleted or replaced",
        )
      : pass("pane.process_executable", "present", facts.executable),
  );
  const expectedSessionKind = expectedSessionKindOf(input);
  const binding: AgentBinding = {
    pid,
    terminalId: pane.terminal_id,
    tty: facts.tty,
    nativeSessionId: input.nativeSessionId,
    expectedAgent: input.expectedAgent,
    expectedSessionKind,
  };
  const verdict = reconcileAgent(binding, { pane, shellPid: pid, tty: facts.tty });
  checks.push(agentCheck(verdict, input.expectedAgent));
  checks.push(nativeSessionCheck(pane, input.nativeSessionId));
  if (!checks.every((c) => c.ok) || facts.tty === null) return { record: null, checks };
  const record: PaneProofRecord = {
    version: PANE_PROOF_VERSION,
    boundAt: input.now.toISOString(),
    pane: {
      paneId: pane.pane_id,
      terminalId: pane.terminal_id,
      workspaceId: pane.workspace_id,
      tabId: pane.tab_id,
    },
    launch: input.launch === null ? null : { argv: [...input.launch.argv], cwd: input.launch.cwd },
    process: {
      pid,
      identity: { kind: facts.identity.kind, value: facts.identity.value },
      startTimeUs: facts.startTimeUs,
      startTimePrecisionUs: facts.startTimePrecisionUs,
      executable: facts.executable,
      cwd: facts.cwd,
      uid: facts.uid,
      tty: facts.tty,
    },
    herdr: obs.descriptor,
    nativeSessionId: input.nativeSessionId,
    expectedAgent: input.expectedAgent,
    ...(input.expectedSessionKind === undefined ? {} : { expectedSessionKind }),
  };
  return { record, checks };
}

/** Herdr never fills `tty` (§4.2); if a future server does, it must name the kernel's terminal. */
function herdrTtyCheck(info: PaneProcessFacts, kernelTty: string | null): CheckResult {
  const reported = info.tty ?? null;
  if (reported === null) return pass("pane.herdr_tty", "absent or equal", "absent");
  return expectEqual("pane.herdr_tty", kernelTty, reported, "Herdr names another terminal");
}

/**
 * Re-verify a bound pane before control. Every check is returned, passing or not; the caller
 * refuses control on the first failure (`firstFailure`).
 */
export function checkPaneProof(record: PaneProofRecord, obs: PaneObservation): CheckResult[] {
  return [
    ...herdrChecks(record.herdr, obs.descriptor),
    ...(isUnavailable(obs.descriptor)
      ? HERDR_TRUST_CHECKS.map((n) => unavailable(n, "ours", obs.descriptor as Unavailable))
      : trustChecks(obs.descriptor, obs.trust)),
    ...paneChecks(record, obs),
    ...processChecks(record, obs.facts),
    isUnavailable(obs.descriptor)
      ? unavailable("herdr.pane_terminal", "the server's", obs.descriptor)
      : checkPaneTerminal(obs.descriptor.server.pid, obs.terminal),
    ...agentChecks(record, obs),
  ];
}

/** `herdr.socket_owner`, `herdr.socket_dir`, `herdr.server_uid` (lib/proof/herdr-trust.ts). */
function trustChecks(descriptor: SessionDescriptor, tie: Observed<HerdrTie>): CheckResult[] {
  if (isUnavailable(tie)) return HERDR_TRUST_CHECKS.map((n) => unavailable(n, "ours", tie));
  return checkHerdrServer(descriptor, tie);
}

function herdrChecks(bound: SessionDescriptor, now: Observed<SessionDescriptor>): CheckResult[] {
  const names = [
    "herdr.socket_path",
    "herdr.socket_file",
    "herdr.server_pid",
    "herdr.server_identity",
    "herdr.version",
  ];
  if (isUnavailable(now)) return names.map((n) => unavailable(n, "reachable", now));
  const id = (d: SessionDescriptor): JsonValue =>
    d.server.identity === null
      ? null
      : { kind: d.server.identity.kind, value: d.server.identity.value };
  return [
    expectEqual(
      "herdr.socket_path",
      bound.socketPath,
      now.socketPath,
      "another socket path was asked",
    ),
    expectEqual(
      "herdr.socket_file",
      { device: bound.socketFile.device, inode: bound.socketFile.inode },
      { device: now.socketFile.device, inode: now.socketFile.inode },
      "the socket file was re-bound: another server (restart or handoff)",
    ),
    expectEqual(
      "herdr.server_pid",
      bound.server.pid,
      now.server.pid,
      "another process serves the socket",
    ),
    expectEqual("herdr.server_identity", id(bound), id(now), "the server process identity changed"),
    expectEqual(
      "herdr.version",
      { version: bound.version, protocol: bound.protocol },
      { version: now.version, protocol: now.protocol },
      "Herdr version or protocol changed",
    ),
  ];
}

function paneChecks(record: PaneProofRecord, obs: PaneObservation): CheckResult[] {
  const bound = record.pane;
  const out: CheckResult[] = [];
  if (isUnavailable(obs.pane)) {
    out.push(unavailable("pane.present", bound.paneId, obs.pane));
    out.push(unavailable("pane.terminal_id", bound.terminalId, obs.pane));
  } else {
    out.push(
      expectEqual("pane.present", bound.paneId, obs.pane.pane_id, "the pane id resolves elsewhere"),
    );
    out.push(
      expectEqual(
        "pane.terminal_id",
        bound.terminalId,
        obs.pane.terminal_id,
        "the pane's terminal was replaced",
      ),
    );
  }
  if (isUnavailable(obs.processInfo)) {
    out.push(unavailable("pane.shell_pid", record.process.pid, obs.processInfo));
  } else {
    out.push(
      expectEqual(
        "pane.shell_pid",
        record.process.pid,
        obs.processInfo.shell_pid ?? null,
        "the pane runs another process",
      ),
    );
    out.push(herdrTtyCheck(obs.processInfo, record.process.tty));
  }
  return out;
}

function processChecks(record: PaneProofRecord, facts: Observed<ProcessFacts>): CheckResult[] {
  const p = record.process;
  const names = [
    "pane.process_identity",
    "pane.process_birth",
    "pane.process_executable",
    "pane.process_cwd",
    "pane.process_uid",
    "pane.terminal",
  ];
  if (isUnavailable(facts)) return names.map((n) => unavailable(n, p.pid, facts));
  // Birth is compared within the coarser of the two precisions (Linux: one USER_HZ tick,
  // docs/design/kernel-proofs.md §2.1); the identity check above carries the exact per-boot proof.
  const tolerance = Math.max(p.startTimePrecisionUs, facts.startTimePrecisionUs);
  const birthOk = Math.abs(facts.startTimeUs - p.startTimeUs) <= tolerance;
  return [
    expectEqual(
      "pane.process_identity",
      { kind: p.identity.kind, value: p.identity.value },
      { kind: facts.identity.kind, value: facts.identity.value },
      "the pid now belongs to another process",
    ),
    birthOk
      ? pass("pane.process_birth", p.startTimeUs, facts.startTimeUs)
      : fail(
          "pane.process_birth",
          p.startTimeUs,
          facts.startTimeUs,
          "the process was born at another time",
        ),
    expectEqual(
      "pane.process_executable",
      { path: p.executable, deleted: false },
      { path: facts.executable, deleted: facts.executableDeleted },
      "the process runs another executable",
    ),
    expectEqual("pane.process_cwd", p.cwd, facts.cwd, "the process changed directory"),
    expectEqual("pane.process_uid", p.uid, facts.uid, "the process runs as another user"),
    expectEqual("pane.terminal", p.tty, facts.tty, "the process is on another terminal"),
  ];
}

function agentChecks(record: PaneProofRecord, obs: PaneObservation): CheckResult[] {
  if (isUnavailable(obs.pane)) {
    return [
      unavailable("pane.agent", "accepted", obs.pane),
      unavailable("pane.native_session", record.nativeSessionId, obs.pane),
    ];
  }
  const shellPid = isUnavailable(obs.processInfo) ? null : (obs.processInfo.shell_pid ?? null);
  const tty = isUnavailable(obs.facts) ? null : obs.facts.tty;
  const verdict = reconcileAgent(recordBinding(record), { pane: obs.pane, shellPid, tty });
  return [
    agentCheck(verdict, record.expectedAgent),
    nativeSessionCheck(obs.pane, record.nativeSessionId),
  ];
}

/** The agent verdict for a record and an observation (for display next to the checks). */
export function paneAgentVerdict(
  record: PaneProofRecord,
  obs: PaneObservation,
): AgentVerdict | null {
  if (isUnavailable(obs.pane)) return null;
  return reconcileAgent(recordBinding(record), {
    pane: obs.pane,
    shellPid: isUnavailable(obs.processInfo) ? null : (obs.processInfo.shell_pid ?? null),
    tty: isUnavailable(obs.facts) ? null : obs.facts.tty,
  });
}

/** The reconciler's binding from a record. */
function recordBinding(record: PaneProofRecord): AgentBinding {
  return {
    pid: record.process.pid,
    terminalId: record.pane.terminalId,
    tty: record.process.tty,
    nativeSessionId: record.nativeSessionId,
    expectedAgent: record.expectedAgent,
    expectedSessionKind: expectedSessionKindOf(record),
  };
}
