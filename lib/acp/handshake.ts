/**
 * Initialize and attach: the requests we send and how we read the answers (pure; the client
 * sends them). Every choice below is checked against xai-org/grok-build @ 19d42e3.
 *
 * initialize — protocol 1, `_meta.clientType: "grok-pager"`.
 *   Each `initialize` overwrites the agent's process-global `client_type`
 *   (`agent/mvp_agent/acp_agent.rs`, `initialize`), and `client_type` chooses the permission-option
 *   style of every session the agent spawns afterwards (`ClientType` in
 *   `xai-grok-workspace/src/permission/types.rs`: `Generic` = "simple permission options",
 *   `GrokPager` = interactive TUI options; `spawn_and_register_session` reads it). The TUI sends
 *   `"grok-pager"` (`pager/client_identity.rs`, `PAGER_CLIENT_TYPE`). Sending the same value is the
 *   only choice that leaves the owner's permission UI as it was: omitting it (or any unknown value)
 *   resets the agent to `Generic`. We send nothing else in `_meta` or in client capability `_meta`
 *   on purpose: `x.ai/codeNavigation`, `x.ai/folderTrust` and `bufferingSettings` are global too,
 *   and the TUI does not send them either, so leaving them out keeps their values unchanged.
 *   From the answer we need `protocolVersion == 1`, `agentCapabilities.loadSession == true`,
 *   `sessionCapabilities.resume` (absent only in chat mode) and `_meta.agentVersion` (the agent's
 *   only version report, for the version floor in `lib/grok/version.ts`).
 *
 * attach — `session/resume {sessionId, cwd, mcpServers: []}`, after a read-only residency probe.
 *   1. `x.ai/session/info {sessionId}` answers `{"result":{}}` for a session that is not resident
 *      and `{sessionId, cwd, …}` for a live one (`agent/handlers/session.rs`,
 *      `handle_session_info`). An empty answer refuses with SESSION_UNKNOWN *before* any attach:
 *      resume/load of a non-resident session would load it from disk and spawn a second, invisible
 *      session actor — never the owner's live TUI session. A different cwd refuses too. An
 *      agent that answers the probe with the invalid-params error "unknown session id" instead
 *      (as `session/prompt` does) is read the same way (`isUnknownSessionError`).
 *   2. `session/resume` rather than `session/load`: both run `attach_session`, but `Resume` fixes
 *      `no_replay: true, restore_code: false` in `AttachPolicy::resolve` (not spoofable from
 *      `_meta`), so (a) no replay runs, and a replay on a resident session sets
 *      `gateway_enabled = false`, pausing the TUI's live updates; (b) no code restore, which for
 *      `session/load` defaults to the agent's `restore_code` setting and would check the session's
 *      persisted HEAD out into the owner's working tree. `load` + `noReplay` would still need
 *      `x.ai/restore_code:false` to be as quiet.
 *   3. `cwd` = the TUI's cwd: sessions are found under `$GROK_HOME/sessions/<encoded cwd>/<id>`.
 *   4. `mcpServers: []`. On a resident session, attach *always* sends `UpdateMcpServers` with
 *      `resolve_mcp_servers(client list)` and stores the client list as the hot-reload seed —
 *      whether the list was omitted or empty (an omitted resume list deserialises to `[]`). The
 *      merge (`session/managed_mcp.rs`, `merge_managed_mcp_servers_with_policy`) re-reads the same
 *      on-disk sources the TUI passed in `session/new` (config.toml global + project, ~/.claude.json,
 *      .cursor, .mcp.json; `pager/app/effects/mod.rs` passes `util::config::load_mcp_servers`) plus
 *      plugins, with client entries only overriding by key. So `[]` keeps the TUI's configured
 *      servers; any non-empty list of ours would *add or override* servers in the owner's
 *      session. An explicit `[]` (rather than omitting it) makes that intent visible on the wire.
 *   5. No `_meta`: `yoloMode`/`autoMode` there could switch the owner's permission mode on
 *      (`refresh_reconnect_session_state`). The leader injects `clientIdentifier` and
 *      `x.ai/leaderClientId` and overwrites the capability flags itself (§7).
 *   The answer must name the same session (`_meta.sessionId`) and carries the models, the
 *   `x.ai/sessionConfig` options and `x.ai/runningPromptId`.
 *
 * Never `session/new` (a seat attaches to the TUI's session, ADR 0224) and never an agent
 * subprocess (`grok agent stdio` would be a separate invisible worker).
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

export function resumeParams(sessionId: string, cwd: string): Record<string, unknown> {
  return { sessionId, cwd, mcpServers: [] };
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
