/**
 * The I/O side of the pane proof: look at a pane through Herdr and the kernel, and bind or
 * re-verify a `PaneProofRecord` (`lib/proof/pane.ts` holds the pure checks). A fact that cannot be
 * read becomes an `Unavailable` value with its code, so the pure checks can name it; nothing here
 * decides whether control is allowed.
 */
import type { CheckResult } from "../check.js";
import { failureOf } from "../errors.js";
import type { HerdrClient, RequestOptions } from "../herdr/client.js";
import type { PaneInfo, PaneProcessInfo } from "../herdr/wire-pane.js";
import type { KernelPort, ProcessFacts } from "../kernel/index.js";
import { onlyAgentRetryable } from "../proof/agent.js";
import { type AgentProcessSighting, detectAgentProcess } from "../proof/agent-process.js";
import type { AgentVerdict, SessionKind } from "../proof/agent-reconcile.js";
import { checkHerdrServer, type HerdrTie } from "../proof/herdr-trust.js";
import {
  bindPaneProof,
  checkPaneProof,
  isUnavailable,
  type Observed,
  type PaneBindResult,
  type PaneObservation,
  type PaneProofRecord,
  paneAgentVerdict,
  type Unavailable,
} from "../proof/pane.js";
import type { TerminalTie } from "../proof/pane-terminal.js";
import type { SessionDescriptor } from "../proof/session-descriptor.js";
import { readSessionDescriptor } from "./herdr-descriptor.js";
import { ourUid, readHerdrTie } from "./herdr-trust.js";
import { observeTerminalTie } from "./pane-terminal.js";

/** An observation made through Herdr: its replies as lib/herdr/wire-pane.ts parses them. */
export type HerdrPaneObservation = PaneObservation<PaneInfo, PaneProcessInfo>;

function unavailable(err: unknown): Unavailable {
  const f = failureOf(err);
  if (f === null) throw err; // a bug, not a fact that could not be read
  return { unavailable: true, code: f.code, message: f.message };
}

async function attempt<T>(fn: () => Promise<T> | T): Promise<Observed<T>> {
  try {
    return await fn();
  } catch (err) {
    return unavailable(err);
  }
}

async function paneGet(
  client: HerdrClient,
  paneId: string,
  o: RequestOptions,
): Promise<Observed<PaneInfo>> {
  return attempt(async () => (await client.request("pane.get", { pane_id: paneId }, o)).pane);
}

async function processInfo(
  client: HerdrClient,
  paneId: string,
  o: RequestOptions,
): Promise<Observed<PaneProcessInfo>> {
  return attempt(
    async () => (await client.request("pane.process_info", { pane_id: paneId }, o)).process_info,
  );
}

function factsOf(kernel: KernelPort, pid: number): Promise<Observed<ProcessFacts>> {
  return attempt(() => kernel.processFacts(pid));
}

export interface BindPaneOptions {
  readonly paneId: string;
  /** argv/cwd echoed by `layout.apply`; null when binding a pane we did not launch. */
  readonly launch: { readonly argv: readonly string[]; readonly cwd: string | null } | null;
  readonly sessionName: string | null;
  /** A descriptor read just before the launch; read afresh when omitted. */
  readonly descriptor?: SessionDescriptor;
  readonly nativeSessionId?: string | null;
  readonly expectedAgent?: string | null;
  /** Default: the kind Herdr reports for `expectedAgent` (`harnessBinding`). */
  readonly expectedSessionKind?: SessionKind | null;
  /** How long to wait for the pane process to finish exec'ing (default 2000 ms). */
  readonly settleTimeoutMs?: number;
  /**
   * With `expectedAgent`, how long to keep re-reading while Herdr has not identified any agent
   * yet (golden G1: detection and the session hook arrive after launch). Default 0: no wait.
   */
  readonly agentTimeoutMs?: number;
  readonly request?: RequestOptions;
}

/** A bind result with the observation it was made from (for reports of a refused bind). */
export interface PaneBinding extends PaneBindResult {
  readonly observation: HerdrPaneObservation;
}

/**
 * Bind a pane to a proof record: the pane (`pane.get`), its process (`process_info.shell_pid`)
 * and that pid's kernel facts, twice, until the process has finished exec'ing: its executable
 * is no longer its parent's (a terminal host forks, then execs) and two reads agree.
 */
export async function bindPane(
  client: HerdrClient,
  kernel: KernelPort,
  options: BindPaneOptions,
): Promise<PaneBinding> {
  const deadline = Date.now() + (options.agentTimeoutMs ?? 0);
  for (;;) {
    const result = await bindOnce(client, kernel, options);
    if (result.record !== null || !onlyAgentRetryable(result.checks) || Date.now() >= deadline)
      return result;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const NOT_ASKED: Unavailable = {
  unavailable: true,
  code: "HERDR_UNTRUSTED",
  message: "not asked: the Herdr server is not ours",
};

/**
 * Who serves the socket, and is it ours: the descriptor (`ping` only), then the trust facts. The
 * pane is asked about only when all three trust checks pass (lib/proof/herdr-trust.ts).
 */
async function server(
  client: HerdrClient,
  kernel: KernelPort,
  sessionName: string | null,
  given: SessionDescriptor | undefined,
  o: RequestOptions,
): Promise<{ descriptor: Observed<SessionDescriptor>; trust: Observed<HerdrTie>; ours: boolean }> {
  const descriptor =
    given ?? (await attempt(() => readSessionDescriptor(client, kernel, sessionName, o)));
  if (isUnavailable(descriptor)) return { descriptor, trust: descriptor, ours: false };
  const trust = await attempt(() => readHerdrTie(descriptor.socketPath, ourUid()));
  const ours = !isUnavailable(trust) && checkHerdrServer(descriptor, trust).every((c) => c.ok);
  return { descriptor, trust, ours };
}

function terminalOf(
  kernel: KernelPort,
  descriptor: Observed<SessionDescriptor>,
  pid: number,
  facts: Observed<ProcessFacts>,
): Promise<Observed<TerminalTie>> {
  if (isUnavailable(descriptor)) return Promise.resolve(descriptor);
  if (isUnavailable(facts)) return Promise.resolve(facts);
  const tty = facts.tty;
  if (tty === null) {
    return Promise.resolve({
      unavailable: true,
      code: "NO_TTY",
      message: "the pane process has no terminal",
    });
  }
  return attempt(() => observeTerminalTie(kernel, descriptor.server.pid, pid, tty));
}

async function bindOnce(
  client: HerdrClient,
  kernel: KernelPort,
  options: BindPaneOptions,
): Promise<PaneBinding> {
  const o = options.request ?? {};
  const { descriptor, trust, ours } = await server(
    client,
    kernel,
    options.sessionName,
    options.descriptor,
    o,
  );
  const [pane, info] = ours
    ? await Promise.all([
        paneGet(client, options.paneId, o),
        processInfo(client, options.paneId, o),
      ])
    : [NOT_ASKED, NOT_ASKED];
  const pid = isUnavailable(info) ? null : (info.shell_pid ?? null);
  let facts: Observed<ProcessFacts> = {
    unavailable: true,
    code: "NO_PID",
    message: "no shell_pid",
  };
  let infoAfter: Observed<PaneProcessInfo> = info;
  let settled = false;
  if (pid !== null) {
    const deadline = Date.now() + (options.settleTimeoutMs ?? 2000);
    let previous = await factsOf(kernel, pid);
    facts = previous;
    for (;;) {
      infoAfter = await processInfo(client, options.paneId, o);
      facts = await factsOf(kernel, pid);
      settled = isSettled(kernel, previous, facts);
      const movedOn = isUnavailable(infoAfter) || infoAfter.shell_pid !== pid;
      if (settled || movedOn || isUnavailable(facts) || Date.now() >= deadline) break;
      previous = facts;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const terminal: Observed<TerminalTie> =
    pid === null
      ? { unavailable: true, code: "NO_PID", message: "no shell_pid" }
      : await terminalOf(kernel, descriptor, pid, facts);
  const observation: HerdrPaneObservation = {
    descriptor,
    pane,
    processInfo: info,
    facts,
    trust,
    terminal,
  };
  const result = bindPaneProof({
    paneId: options.paneId,
    launch: options.launch,
    observation,
    processInfoAfter: infoAfter,
    execSettled: settled,
    nativeSessionId: options.nativeSessionId ?? null,
    expectedAgent: options.expectedAgent ?? null,
    ...(options.expectedSessionKind === undefined
      ? {}
      : { expectedSessionKind: options.expectedSessionKind }),
    now: new Date(),
  });
  return { ...result, observation };
}

function isSettled(
  kernel: KernelPort,
  a: Observed<ProcessFacts>,
  b: Observed<ProcessFacts>,
): boolean {
  if (isUnavailable(a) || isUnavailable(b)) return false;
  if (a.identity.value !== b.identity.value || a.executable !== b.executable) return false;
  let parentExe: string | null = null;
  try {
    parentExe = kernel.processFacts(b.ppid).executable;
  } catch {
    parentExe = null; // unreadable parent (another user): stability alone decides
  }
  return b.executable !== parentExe;
}

/** One fresh look at a bound pane: Herdr's view, then the kernel's for the *bound* pid. */
export async function observeBoundPane(
  client: HerdrClient,
  kernel: KernelPort,
  record: PaneProofRecord,
  options: RequestOptions = {},
): Promise<HerdrPaneObservation> {
  const { descriptor, trust, ours } = await server(
    client,
    kernel,
    record.herdr.sessionName,
    undefined,
    options,
  );
  const [pane, info] = ours
    ? await Promise.all([
        paneGet(client, record.pane.paneId, options),
        processInfo(client, record.pane.paneId, options),
      ])
    : [NOT_ASKED, NOT_ASKED];
  const facts = await factsOf(kernel, record.process.pid);
  const terminal = await terminalOf(kernel, descriptor, record.process.pid, facts);
  return { descriptor, pane, processInfo: info, facts, trust, terminal };
}

export interface PaneVerification {
  readonly observation: HerdrPaneObservation;
  readonly checks: readonly CheckResult[];
  readonly agent: AgentVerdict | null;
  /** Which agent the pane's process is, as Herdr would detect it (`agentProcessCheck`). */
  readonly agentProcess: AgentProcessSighting;
}

/**
 * The agent the pane's process is, from Herdr's foreground job of the pane (`pane.process_info`)
 * and the kernel: only members the kernel places on the bound terminal count, and the bound
 * pid's executable only while it is still the bound identity (lib/proof/agent-process.ts).
 */
export function observeAgentProcess(
  kernel: KernelPort,
  bound: {
    readonly pid: number;
    readonly identity: { readonly kind: string; readonly value: string };
    readonly tty: string | null;
  },
  observation: HerdrPaneObservation,
): AgentProcessSighting {
  const facts = observation.facts;
  const boundStill =
    !isUnavailable(facts) &&
    facts.identity.kind === bound.identity.kind &&
    facts.identity.value === bound.identity.value &&
    facts.tty === bound.tty;
  const info = observation.processInfo;
  const members = isUnavailable(info) ? [] : (info.foreground_processes ?? []);
  const onPaneTerminal = new Set<number>();
  for (const m of members) {
    if (m.pid === bound.pid) {
      if (boundStill) onPaneTerminal.add(m.pid);
      continue;
    }
    try {
      if (kernel.processFacts(m.pid).tty === bound.tty) onPaneTerminal.add(m.pid);
    } catch {
      // gone or unreadable: not evidence
    }
  }
  return detectAgentProcess({
    boundPid: bound.pid,
    boundExecutable: boundStill ? facts.executable : null,
    job: isUnavailable(info)
      ? null
      : { processGroupId: info.foreground_process_group_id ?? null, members },
    onPaneTerminal,
  });
}

/** Re-verify a record before any control: every check, passing or failing, plus the verdict. */
export async function verifyPane(
  client: HerdrClient,
  kernel: KernelPort,
  record: PaneProofRecord,
  options: RequestOptions = {},
): Promise<PaneVerification> {
  const observation = await observeBoundPane(client, kernel, record, options);
  return {
    observation,
    checks: checkPaneProof(record, observation),
    agent: paneAgentVerdict(record, observation),
    agentProcess: observeAgentProcess(kernel, record.process, observation),
  };
}
