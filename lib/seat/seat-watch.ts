/**
 * What a ready seat keeps proving after its hire (issue 14), from what Grok tells every
 * subscriber of the session:
 *
 * - A model echo (`model_changed`: our `seat.selectModel` or the owner's switch in the TUI) may
 *   have rebuilt the system prompt without the persona (xai-grok-shell
 *   `agent/handlers/model_switch.rs`, `session/acp_session_impl/model_switch.rs`: a harness
 *   rebuild rewrites `system_prompt.txt` and the conversation head from the new agent's template;
 *   a compatible switch rewrites the head). The persona check of step `persona` runs again on the
 *   session's files; a failure is the `persona-lost` event, and the seat then refuses to deliver
 *   (PERSONA_NOT_APPLIED): the rules cannot be re-applied to a live session (`rules` is read at
 *   creation only, `agent/mvp_agent/mod.rs` `build_spawn_system_prompt`).
 * - An `x.ai/mcp/server_status` for our bank with reason `config_removed`
 *   (`session/mcp_dispatcher.rs`): an attach replaced the session's servers without it — with the
 *   owner's profile the bank was added in memory only (`extensions/session_admin.rs`), and the
 *   TUI's next load of the session (`/minimal`, a reconnect) drops it. The `bank-lost` event says
 *   so; the seat never adds it again by itself.
 */
import type { AcpSessionEvent } from "../acp/acp-session.js";
import { type CheckResult, firstFailure } from "../check.js";
import { checkPersona } from "../grok/persona.js";
import { readPromptArtifacts } from "../grok/session-files.js";
import type { SeatRecord } from "./seat-record.js";

/** Events the seat itself adds to the session's (`seat.on`). */
export type SeatWatchEvent =
  | {
      /** After a model echo, the session's prompt files no longer hold the persona. */
      readonly type: "persona-lost";
      readonly modelId: string;
      readonly reasoningEffort: string | null;
      /** The failed check (`persona.system_prompt` or `persona.chat_head`) with its reason. */
      readonly check: CheckResult;
    }
  | {
      /** Grok dropped the operator's bank from the session (its proxy still runs). */
      readonly type: "bank-lost";
      readonly name: string;
      readonly scope: "profile" | "session";
      readonly status: string;
      readonly reason: string;
    };

/** The failed persona check of a recorded persona now, or null (no persona, or still applied). */
export function personaFailure(record: SeatRecord): CheckResult | null {
  const persona = record.persona ?? null;
  if (persona === null) return null;
  const artifacts = readPromptArtifacts(record.profile.grokHome, record.cwd, record.sessionId);
  return firstFailure(checkPersona(artifacts, persona)) ?? null;
}

/**
 * The seat's own event for one session event, if any. `personaLost` is whether the seat already
 * reported its persona lost (reported once).
 */
export function watchEvent(
  record: SeatRecord,
  event: AcpSessionEvent,
  personaLost: boolean,
): SeatWatchEvent | null {
  if (event.type === "model-changed" && !personaLost) {
    const failed = personaFailure(record);
    if (failed === null) return null;
    return {
      type: "persona-lost",
      modelId: event.echo.modelId,
      reasoningEffort: event.echo.reasoningEffort,
      check: failed,
    };
  }
  const bank = record.bank ?? null;
  if (event.type === "grok" && bank !== null) {
    const e = event.event;
    if (
      e.type === "mcp_server_status" &&
      e.sessionId === record.sessionId &&
      e.name === bank.name &&
      e.reason === "config_removed"
    ) {
      return {
        type: "bank-lost",
        name: bank.name,
        scope: bank.scope,
        status: e.status,
        reason: e.reason,
      };
    }
  }
  return null;
}
