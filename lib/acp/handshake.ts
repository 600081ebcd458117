/**
 * The requests that reach the owner's session over ACP and how their answers are read (pure;
 * lib/acp/acp-handshake.ts sends them): `initialize` as the TUI's client type, the residency probe
 * `x.ai/session/info`, then `session/resume` of the exact session with `mcpServers: []` and both
 * permission keys off. Why each of these, from the source: docs/design/decisions.md §1.
 */
import * as v from "valibot";
import {
  type SessionConfig,
  SessionConfigSchema,
  type SessionModelState,
  SessionModelStateSchema,
} from "../grok/models.js";
import { AcpError } from "./acp-error.js";
import type { RpcErrorObject } from "./json-rpc.js";

export const ACP_PROTOCOL_VERSION = 1;
/** `PAGER_CLIENT_TYPE`: keeps the agent's global client type (and permission UI) as the TUI set it. */
export const INITIALIZE_CLIENT_TYPE = "grok-pager";

export function initializeParams(): Record<string, unknown> {
  return {
    protocolVersion: ACP_PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    _meta: { clientType: INITIALIZE_CLIENT_TYPE },
  };
}

const InitializeResultSchema = v.looseObject({
  protocolVersion: v.number(),
  agentCapabilities: v.optional(
    v.looseObject({
      loadSession: v.optional(v.boolean(), false),
      sessionCapabilities: v.optional(
        v.nullable(v.looseObject({ resume: v.optional(v.nullable(v.unknown())) })),
      ),
    }),
    {},
  ),
  _meta: v.optional(
    v.nullable(
      v.looseObject({
        agentVersion: v.optional(v.string()),
        currentWorkingDirectory: v.optional(v.string()),
      }),
    ),
  ),
});

export interface InitializeFacts {
  readonly protocolVersion: number;
  readonly loadSession: boolean;
  readonly resume: boolean;
  /** `_meta.agentVersion`, or null when the agent did not report one (the floor then refuses). */
  readonly agentVersion: string | null;
  /** The leader's launch cwd (`_meta.currentWorkingDirectory`). */
  readonly leaderCwd: string | null;
}

/** Read an initialize result; refuses protocol != 1, no loadSession, no resume. */
export function parseInitializeResult(result: unknown): InitializeFacts {
  const r = v.safeParse(InitializeResultSchema, result);
  if (!r.success) {
    throw new AcpError("ACP_INITIALIZE_INVALID", "initialize result has the wrong shape", {
      details: { issues: r.issues.map((i) => i.message).slice(0, 5) },
    });
  }
  const caps = r.output.agentCapabilities;
  const resume = caps.sessionCapabilities?.resume;
  const facts: InitializeFacts = {
    protocolVersion: r.output.protocolVersion,
    loadSession: caps.loadSession,
    resume: resume !== undefined && resume !== null,
    agentVersion: r.output._meta?.agentVersion ?? null,
    leaderCwd: r.output._meta?.currentWorkingDirectory ?? null,
  };
  if (facts.protocolVersion !== ACP_PROTOCOL_VERSION) {
    throw new AcpError("ACP_PROTOCOL_UNSUPPORTED", `agent speaks ACP ${facts.protocolVersion}`, {
      details: { expected: ACP_PROTOCOL_VERSION, received: facts.protocolVersion },
    });
  }
  if (!facts.loadSession) {
    throw new AcpError("ACP_LOAD_SESSION_UNSUPPORTED", "agent lacks loadSession", {
      details: { ...facts },
    });
  }
  if (!facts.resume) {
    throw new AcpError("ACP_RESUME_UNSUPPORTED", "agent does not offer session/resume", {
      details: { ...facts },
    });
  }
  return facts;
}

export function sessionInfoParams(sessionId: string): Record<string, unknown> {
  return { sessionId };
}

const SessionInfoResultSchema = v.looseObject({
  result: v.optional(
    v.nullable(v.looseObject({ sessionId: v.optional(v.string()), cwd: v.optional(v.string()) })),
  ),
});

/** Residency from `x.ai/session/info`: SESSION_UNKNOWN when not resident, SESSION_CWD_MISMATCH. */
export function checkSessionInfo(result: unknown, sessionId: string, cwd: string): void {
  const r = v.safeParse(SessionInfoResultSchema, result);
  if (!r.success) {
    throw new AcpError("ACP_SESSION_INFO_INVALID", "x.ai/session/info answer has the wrong shape");
  }
  const info = r.output.result;
  if (info?.sessionId === undefined) {
    throw new AcpError("SESSION_UNKNOWN", `session ${sessionId} is not live in this leader`, {
      details: { sessionId },
    });
  }
  if (info.sessionId !== sessionId) {
    throw new AcpError("SESSION_UNKNOWN", "x.ai/session/info answered for another session", {
      details: { sessionId, answered: info.sessionId },
    });
  }
  if (info.cwd !== cwd) {
    throw new AcpError("SESSION_CWD_MISMATCH", "the live session runs in another directory", {
      details: { sessionId, expected: cwd, received: info.cwd ?? null },
    });
  }
}

/**
 * `_meta` of every attach (`session/resume`, and the replaying `session/load` of a reconcile):
 * both permission keys, off. An attach without them falls back to the leader's config-default
 * `permission_mode` and may switch always-approve or auto back on after the owner turned it off;
 * `false` never switches anything off (session_setup.rs `refresh_reconnect_session_state`), so
 * this leaves the owner's mode as it is. docs/design/decisions.md §1.6.
 */
export const ATTACH_PERMISSION_META = Object.freeze({ yoloMode: false, autoMode: false });

export function resumeParams(sessionId: string, cwd: string): Record<string, unknown> {
  return { sessionId, cwd, mcpServers: [], _meta: { ...ATTACH_PERMISSION_META } };
}

const AttachResultSchema = v.looseObject({
  models: v.optional(v.nullable(SessionModelStateSchema)),
  _meta: v.optional(
    v.nullable(
      v.looseObject({
        sessionId: v.optional(v.string()),
        "x.ai/runningPromptId": v.optional(v.nullable(v.string())),
        "x.ai/sessionConfig": v.optional(v.nullable(SessionConfigSchema)),
      }),
    ),
  ),
});

export interface AttachFacts {
  readonly sessionId: string;
  readonly models: SessionModelState | null;
  readonly sessionConfig: SessionConfig | null;
  readonly runningPromptId: string | null;
}

/** Read a resume result; the agent must name our session when it names one. */
export function parseAttachResult(result: unknown, sessionId: string): AttachFacts {
  const r = v.safeParse(AttachResultSchema, result);
  if (!r.success) {
    throw new AcpError("ACP_ATTACH_INVALID", "session/resume answer has the wrong shape", {
      details: { issues: r.issues.map((i) => i.message).slice(0, 5) },
    });
  }
  const meta = r.output._meta;
  if (meta?.sessionId !== undefined && meta.sessionId !== sessionId) {
    throw new AcpError("SESSION_UNKNOWN", "session/resume answered for another session", {
      details: { sessionId, answered: meta.sessionId },
    });
  }
  return {
    sessionId,
    models: r.output.models ?? null,
    sessionConfig: meta?.["x.ai/sessionConfig"] ?? null,
    runningPromptId: meta?.["x.ai/runningPromptId"] ?? null,
  };
}

/** Whether a JSON-RPC error from an attach means "no such session" (not a transport fault). */
export function isUnknownSessionError(error: RpcErrorObject): boolean {
  // "unknown session id" = invalid params (acp_agent.rs, prompt / model_switch.rs); a session not
  // on disk surfaces from `load_light` as internal error with data.code FS_NOT_FOUND
  // (`session/persistence.rs`, `io_error_to_acp`).
  return (
    error.data === "unknown session id" ||
    v.is(v.looseObject({ code: v.literal("FS_NOT_FOUND") }), error.data)
  );
}
