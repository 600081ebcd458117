/**
 * `x.ai/session/info` (agent/handlers/session.rs `handle_session_info`), always in the
 * ExtMethodResult envelope `{"result":…}`:
 * - params `{sessionId?}` (`Option<String>`; a non-string is invalid params
 *   `invalid params: <serde text>`); without one, the first resident session is described;
 * - no such resident session (unknown id, on disk only, evicted, or none resident):
 *   `{"result":{}}` — never an error;
 * - a resident one: `SessionInfoResponse` = `{sessionId, cwd}` + the flattened SessionInfoData of
 *   session_setup.rs `build_session_info`: agentName, model, modelDisplayName (catalog name),
 *   resolvedModelId (null until a response names a different served model; never here),
 *   modelFingerprint (null), showModelFingerprint (catalog flag: false), apiBackend (Debug name
 *   of the sampling backend), turns (user messages), turnIndex (prompt_index: turns started),
 *   context (ContextInfo, every field; usageCategories omitted when empty).
 * The simulated model has no system prompt and no tool definitions, so those counts are 0.
 */
import { type JsonRecord, str } from "../json.js";
import { findModel } from "./catalog.js";
import { invalidParams, RpcFailure } from "./rpc.js";
import { readString, SerdeError, SerdeStruct } from "./serde.js";
import type { Session } from "./session.js";

/** DEFAULT_AUTO_COMPACT_THRESHOLD_PERCENT (util/config/resolve/compaction.rs). */
const AUTO_COMPACT_THRESHOLD_PERCENT = 85;

/** SessionInfoRequest { session_id: Option<String> }: undefined when absent or null. */
export function sessionInfoRequestId(params: JsonRecord): string | undefined {
  const s = new SerdeStruct(params);
  if (!s.has("sessionId") || s.get("sessionId") === null) return undefined;
  try {
    return readString(s, "sessionId");
  } catch (err) {
    if (err instanceof SerdeError)
      throw new RpcFailure(invalidParams(`invalid params: ${err.message}`));
    throw err;
  }
}

/** usage_percentage_u8: rounded, clamped to 100, 0 for an unknown window. */
function usagePct(used: number, total: number): number {
  if (total === 0) return 0;
  return Math.round(Math.min((used / total) * 100, 100));
}

export function sessionInfo(session: Session | undefined): unknown {
  if (session === undefined) return { result: {} };
  const model = findModel(session.modelId);
  const used = session.emitter.totalTokens;
  const total = model?.contextTokens ?? 0;
  const data: Record<string, unknown> = {
    sessionId: session.id,
    cwd: session.cwd,
    agentName: model?.agentType ?? "grok-build",
    model: session.modelId,
  };
  const displayName = str(model?.name);
  if (displayName !== undefined) data.modelDisplayName = displayName;
  Object.assign(data, {
    resolvedModelId: null,
    modelFingerprint: null,
    showModelFingerprint: false,
    apiBackend: "ChatCompletions",
    turns: session.promptIndex,
    turnIndex: session.promptIndex,
    context: {
      used,
      total,
      systemPromptTokens: 0,
      toolDefinitionsCount: 0,
      toolDefinitionsTokens: 0,
      compactionCount: 0,
      turnCount: session.turns,
      toolCallCount: session.toolCalls,
      messageCount: session.promptIndex + session.turns,
      messageTokens: used,
      freeTokens: Math.max(0, total - used),
      usagePct: usagePct(used, total),
      autoCompactThresholdPercent: AUTO_COMPACT_THRESHOLD_PERCENT,
    },
  });
  return { result: data };
}
