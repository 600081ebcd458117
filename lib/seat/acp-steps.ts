/**
 * ACP over the one leader connection (lib/acp/acp-session.ts): initialize, version agreement, catalog,
 * attach to the exact session, then the optional model/effort selection.
 *
 * `AcpSession.attach` runs initialize → residency probe → catalog → `session/resume` in one call;
 * its `onInitialize` hook is where the version agreement runs (CLI = `leader_binary_version` =
 * `_meta.agentVersion`, lib/grok/version.ts), so a refused version never reaches the owner's
 * session. The catalog is judged before the resume on purpose (lib/acp/acp-session.ts: a refused seat,
 * such as one with an enabled direct mcp.linear.app endpoint, never touched the session), so the
 * `catalog` step is reported before `attach`.
 */
import { AcpSession } from "../acp/acp-session.js";
import type { InitializeFacts } from "../acp/handshake.js";
import { expectEqual, firstFailure, pass } from "../check.js";
import type { Journal } from "../delivery/journal.js";
import { GrokSeatError } from "../errors.js";
import type { ModelEcho } from "../grok/models.js";
import { admitVersion, type GrokVersion } from "../grok/version.js";
import type { LeaderConnection } from "../leader/leader-connection.js";
import type { HireStep } from "./hire-events.js";
import { refuseOnCheck, SeatRefusal } from "./refusal.js";
import { outcome, type StepOutcome, type StepRunner } from "./step-runner.js";

export interface AttachInput {
  readonly conn: LeaderConnection;
  readonly cli: GrokVersion;
  readonly sessionId: string;
  readonly cwd: string;
  readonly journal: Journal;
  readonly leaderIdentity: string;
  readonly paneIdentity: string;
  readonly requestTimeoutMs: number;
}

export interface Attached {
  readonly acp: AcpSession;
  readonly init: InitializeFacts;
}

/** Which step an error of `AcpSession.attach` belongs to, by its stable code. */
function stepOf(code: string, fallback: HireStep): HireStep {
  if (code.startsWith("ACP_") && /INITIALIZE|PROTOCOL|LOAD_SESSION|RESUME_UNSUPPORTED/.test(code)) {
    return "acp_initialize";
  }
  if (
    code === "LINEAR_DIRECT_ENABLED" ||
    code === "CATALOG_NOT_SESSION_SCOPED" ||
    code === "CATALOG_NOT_READY" ||
    code === "ACP_MCP_LIST_INVALID"
  ) {
    return "catalog";
  }
  if (
    code === "SESSION_UNKNOWN" ||
    code === "SESSION_CWD_MISMATCH" ||
    code === "ACP_ATTACH_INVALID" ||
    code === "ACP_SESSION_INFO_INVALID"
  ) {
    return "attach";
  }
  return fallback;
}

export async function attachSteps(run: StepRunner, input: AttachInput): Promise<Attached> {
  let init: InitializeFacts | null = null;
  let initAt = run.started("acp_initialize");
  let catalogAt = 0;
  const onInitialize = (facts: InitializeFacts): void => {
    init = facts;
    run.proven(
      "acp_initialize",
      initAt,
      outcome(
        null,
        `ACP initialized: protocol ${facts.protocolVersion}, loadSession, resume; agent ${facts.agentVersion ?? "?"}`,
        [
          pass("acp.protocol", 1, facts.protocolVersion),
          pass("acp.load_session", true, facts.loadSession),
          pass("acp.resume", true, facts.resume),
        ],
        { ...facts },
      ),
    );
    const at = run.started("versions");
    const checks = [
      ...admitVersion({
        cli: input.cli,
        leaderRegistered: input.conn.registered,
        agent: { agentVersion: facts.agentVersion },
      }),
      expectEqual("version.acp_protocol", 1, facts.protocolVersion, "ACP protocol is not 1"),
    ];
    const failed = firstFailure(checks);
    if (failed !== undefined) {
      throw run.refused(
        "versions",
        refuseOnCheck(
          "versions",
          failed.check === "version.floor" ? "VERSION_BELOW_FLOOR" : "VERSION_MISMATCH",
          failed,
        ),
      );
    }
    run.proven(
      "versions",
      at,
      outcome(
        null,
        `one version: grok --version ${input.cli.version} = leader ${input.conn.registered.leader_binary_version ?? "?"} = agent ${facts.agentVersion ?? "?"}`,
        checks,
        {
          cli: input.cli.version,
          leader: input.conn.registered.leader_binary_version,
          agent: facts.agentVersion,
        },
      ),
    );
    catalogAt = run.started("catalog");
  };
  let acp: AcpSession;
  try {
    acp = await AcpSession.attach(input.conn, {
      sessionId: input.sessionId,
      cwd: input.cwd,
      journal: input.journal,
      leaderIdentity: input.leaderIdentity,
      paneIdentity: input.paneIdentity,
      requestTimeoutMs: input.requestTimeoutMs,
      onInitialize,
    });
  } catch (err) {
    if (err instanceof SeatRefusal) throw err;
    const fallback: HireStep = init === null ? "acp_initialize" : "attach";
    const step = err instanceof GrokSeatError ? stepOf(err.code, fallback) : fallback;
    throw run.refused(step, err);
  }
  const finalInit: InitializeFacts | null = init;
  if (finalInit === null) throw new Error("unreachable: attach resolved without initialize");
  const cat = acp.catalog;
  run.proven(
    "catalog",
    catalogAt,
    outcome(
      null,
      `MCP catalog ready for this session${cat.offending.length === 0 ? "; no enabled direct mcp.linear.app endpoint" : ""}`,
      cat.checks,
      { ok: cat.ok },
    ),
  );
  initAt = run.started("attach");
  run.proven(
    "attach",
    initAt,
    outcome(
      null,
      `attached to the live session ${acp.sessionId} (session/resume, no replay, no code restore, mcpServers [])`,
      [pass("attach.session", input.sessionId, acp.attachment.sessionId)],
      {
        sessionId: acp.attachment.sessionId,
        currentModelId: acp.attachment.models?.currentModelId ?? null,
        runningPromptId: acp.attachment.runningPromptId,
      },
    ),
  );
  return { acp, init: finalInit };
}

export async function modelStep(
  acp: AcpSession,
  request: { readonly modelId: string; readonly effort?: string | null },
): Promise<StepOutcome<ModelEcho>> {
  let echo: ModelEcho;
  try {
    echo = await acp.selectModel(request);
  } catch (err) {
    if (!(err instanceof GrokSeatError)) throw err;
    throw new SeatRefusal({
      step: "model",
      code: err.code,
      check: "model.selection",
      reason: err.message,
      details: { ...err.context },
      cause: err,
    });
  }
  return outcome(
    echo,
    `model ${echo.modelId}${echo.reasoningEffort === null ? "" : ` (${echo.reasoningEffort})`} selected and echoed`,
    [expectEqual("model.echo", request.modelId, echo.modelId, "another model was echoed")],
    { modelId: echo.modelId, reasoningEffort: echo.reasoningEffort },
  );
}
