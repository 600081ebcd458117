/**
 * Step `attach`: `session/resume` of the exact session UUID (no replay that would pause the
 * owner's TUI, no code restore; `mcpServers: []` keeps the owner's configured servers; both
 * permission keys off, so the owner's always-approve or auto mode is never re-armed). From here
 * on prompts can be delivered.
 */

import type { AcpHandshake } from "../../acp/acp-handshake.js";
import type { AcpSession } from "../../acp/acp-session.js";
import { pass } from "../../check.js";
import { hireStep, outcome } from "../step-runner.js";

export const attach = hireStep("attach", async (handshake: AcpHandshake) => {
  const session: AcpSession = await handshake.attach();
  const a = session.attachment;
  return outcome(
    session,
    `attached to the live session ${session.sessionId} (session/resume, no replay, no code restore, mcpServers [], yoloMode/autoMode false)`,
    [pass("attach.session", handshake.sessionId, a.sessionId)],
    {
      sessionId: a.sessionId,
      currentModelId: a.models?.currentModelId ?? null,
      runningPromptId: a.runningPromptId,
    },
  );
});
