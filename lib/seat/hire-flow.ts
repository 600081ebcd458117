/**
 * The hire flow behind `hire()` (lib/seat/hire.ts) and `resume()`, from nothing to a ready seat
 * (ADR 0224 (docs/design/adr-0224.md), issue 8): the 22 steps below, each a module under lib/seat/steps/, in the order of `HIRE_STEPS`.
 *
 * Every step is reported (`onProgress`), every refusal is a `SeatRefusal` naming the step, the
 * failed check, a stable code and the owner's next step. Nothing is retried, nothing reconnects,
 * nothing is typed into a pane. A refused hire closes what it opened (connection, admission lock,
 * kernel handles: the steps put them on a `DisposeStack`); the TUI it launched stays in its pane
 * for the owner (the library never stops a TUI), and so does the leader that TUI started (only an
 * observed TUI exit permits stopping it). A new step is one module and one call here (and its
 * name in `HIRE_STEPS`, lib/seat/hire-events.ts).
 */
import { GrokSeatError } from "../errors.js";
import { systemKernel } from "../kernel/index.js";
import { DisposeStack } from "./dispose-stack.js";
import type { HireOptions } from "./hire-options.js";
import { journalDirOf, type LaunchMode } from "./policy.js";
import { BANK_TOKEN_ENV } from "./profile-config.js";
import { SeatRefusal } from "./refusal.js";
import { defaultSeatRegistry, type Seat } from "./seat.js";
import type { SeatRecord } from "./seat-record.js";
import { type LeftForOwner, StepRunner } from "./step-runner.js";
import { acpInitialize } from "./steps/acp-initialize.js";
import { activeSessions } from "./steps/active-sessions.js";
import { admission } from "./steps/admission.js";
import { agent } from "./steps/agent.js";
import { attach } from "./steps/attach.js";
import { catalog } from "./steps/catalog.js";
import { connect } from "./steps/connect.js";
import { launch } from "./steps/launch.js";
import { leaderProof } from "./steps/leader-proof.js";
import { leaderWait } from "./steps/leader-wait.js";
import { bankToolNames, mcpBank as mcpBankStep } from "./steps/mcp-bank.js";
import { model } from "./steps/model.js";
import { paneProof } from "./steps/pane-proof.js";
import { persona as personaStep } from "./steps/persona.js";
import { preflight } from "./steps/preflight.js";
import { ready } from "./steps/ready.js";
import { register } from "./steps/register.js";
import { runtimeDir } from "./steps/runtime-dir.js";
import { sessionId as sessionIdStep } from "./steps/session-id.js";
import { skills as skillsStep } from "./steps/skills.js";
import { socketProof } from "./steps/socket-proof.js";
import { versions } from "./steps/versions.js";

/** The flow for a fresh launch or (from resume.ts) an admitted resume. */
export async function hireWith(options: HireOptions, mode: LaunchMode): Promise<Seat> {
  const t = options.timeouts ?? {};
  const requestMs = t.requestMs ?? 30_000;
  const stack = new DisposeStack();
  const left: LeftForOwner = { runtimeDir: null, paneId: null, tuiPid: null, leaderPid: null };
  const steps = new StepRunner(options.onProgress, {
    kernel: options.kernel ?? systemKernel,
    uid: typeof process.getuid === "function" ? process.getuid() : -1,
    stack,
    left,
    signal: options.signal,
  });
  try {
    const env = { ...process.env, ...(options.env ?? {}) };
    const pre = await steps.run(preflight, { ...options, env });
    const runtime = await steps.run(runtimeDir, {
      base: options.runtimeBase,
      profile: options.profile,
      config: {
        autoApproveBank: options.autoApproveBank === true,
        skillPaths: pre.skills.map((s) => s.realPath),
      },
      bank: pre.bank,
    });
    const proxy = runtime.bankProxy;
    // The proxy's token reaches a temporary profile's Grok through the pane's environment only.
    const paneEnv =
      proxy !== null && runtime.profile.kind === "temporary"
        ? { ...(options.env ?? {}), [BANK_TOKEN_ENV]: proxy.bearerToken }
        : options.env;
    const sessionId = await steps.run(sessionIdStep, mode);
    const launched = await steps.run(launch, {
      herdr: pre.herdr,
      grokExecutable: pre.grokExecutable,
      runtime,
      mode,
      cwd: pre.cwd,
      env: paneEnv,
      label: options.label,
      placement: options.placement,
      persona: mode.kind === "fresh" ? pre.persona : null,
      requestMs,
    });
    const pane = await steps.run(paneProof, {
      herdr: pre.herdr,
      launch: launched,
      descriptor: pre.descriptor,
      sessionId,
      grokExecutable: pre.grokExecutable,
      cwd: pre.cwd,
    });
    const { socketPath, lockPath } = runtime;
    const sighting = await steps.run(leaderWait, {
      socketPath,
      lockPath,
      tui: pane.tui,
      timeoutMs: t.leaderMs,
    });
    const socket = await steps.run(socketProof, { socketPath, lockPid: sighting.lockPid });
    const journalDir = journalDirOf(mode, runtime.dir);
    const controller = await steps.run(admission, { journalDir });
    const connected = await steps.run(connect, { socketPath, socket, tui: pane.boundTui });
    const conn = await steps.run(register, {
      socket: connected,
      cli: pre.cliVersion,
      requestMs,
    });
    const leader = await steps.run(leaderProof, {
      conn,
      socketPath,
      tui: pane.boundTui,
      grokExecutable: pre.grokExecutable,
      requestMs,
    });
    const activeSession = await steps.run(activeSessions, {
      grokHome: runtime.profile.grokHome,
      sessionId,
      tui: pane.tui,
      tuiCwd: pre.cwd,
      paneId: launched.paneId,
      resuming: mode.kind === "resume",
      gates: pre.gates,
      timeoutMs: t.activeSessionMs,
      ownerMs: t.ownerMs,
    });
    const verdict = await steps.run(agent, {
      herdr: pre.herdr,
      record: pane.record,
      tui: pane.tui,
      timeoutMs: t.agentMs,
    });
    const { handshake, init } = await steps.run(acpInitialize, {
      conn,
      sessionId,
      cwd: pre.cwd,
      journal: controller.journal,
      leader: leader.facts,
      pane: pane.record,
      requestMs,
    });
    await steps.run(versions, { cli: pre.cliVersion, registered: conn.registered, init });
    await steps.run(catalog, {
      handshake,
      grokHome: runtime.profile.grokHome,
      cwd: pre.cwd,
      home: env.HOME ?? null,
      env: { ...env, GROK_HOME: runtime.profile.grokHome },
      // The operator bank this seat added: its placeholder row is ours, not an unknown server.
      ownServers:
        proxy !== null && pre.bank !== null
          ? [{ name: pre.bank.name, tools: bankToolNames(proxy, pre.bank.name) }]
          : [],
    });
    const session = await steps.run(attach, handshake);
    let chosen: SeatRecord["model"] = null;
    if (options.model !== undefined) {
      const echo = await steps.run(model, { session, request: options.model });
      chosen = { modelId: echo.modelId, effort: echo.reasoningEffort };
    }
    // A resume applies nothing and proves the recorded persona again.
    const applied = mode.kind === "fresh" ? pre.persona : (mode.record.persona ?? null);
    if (applied !== null) {
      await steps.run(personaStep, {
        grokHome: runtime.profile.grokHome,
        cwd: pre.cwd,
        sessionId,
        persona: applied,
        timeoutMs: t.activeSessionMs,
      });
    }
    const bank =
      proxy === null || pre.bank === null
        ? null
        : await steps.run(mcpBankStep, {
            session,
            name: pre.bank.name,
            proxy,
            scope: runtime.profile.kind === "temporary" ? "profile" : "session",
            agentVersion: init.agentVersion,
            timeoutMs: requestMs,
          });
    // Selected skills are configured (and so provable) only in a temporary profile; with the
    // owner's, they are readable paths named in the persona (steps/preflight.ts).
    let discovered: SeatRecord["skillsDiscovered"] = null;
    if (runtime.profile.kind === "temporary" && pre.skills.length > 0) {
      const found = await steps.run(skillsStep, {
        session,
        manifest: pre.skills,
        agentVersion: init.agentVersion,
      });
      discovered = found.map((f) => ({ ...f, files: [...f.files], names: [...f.names] }));
    }
    return await steps.run(ready, {
      sessionId,
      conversationId: options.conversationId ?? null,
      pre,
      runtime,
      journalDir,
      pane,
      launch: launched,
      socket,
      controller,
      conn,
      leader,
      activeSession,
      agent: verdict,
      init,
      session,
      model: chosen,
      persona:
        applied === null
          ? null
          : { sha256: applied.sha256, bytes: applied.bytes, skillsNote: applied.skillsNote },
      skillsDiscovered: discovered,
      bank,
      closeWithSeat: proxy === null ? [] : [() => proxy.close()],
      profileConfig: runtime.config === null ? null : { ...runtime.config },
      proofs: steps.proofs,
      registry: options.registry ?? defaultSeatRegistry,
    });
  } catch (err) {
    const leftovers = await stack.dispose();
    if (err instanceof SeatRefusal) {
      throw err.withDetails({
        sessionId: mode.sessionId,
        ...left,
        ...(leftovers.length === 0 ? {} : { cleanupFailures: leftovers.map(String) }),
      });
    }
    if (err instanceof GrokSeatError && steps.current !== null) {
      throw steps.refused(steps.current, err);
    }
    throw err;
  }
}
