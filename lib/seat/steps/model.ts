/**
 * Step `model` (only when the caller asked for one): the model and effort exist natively for this
 * session and `model_changed` echoes both (lib/grok/models.ts); never a silent fallback.
 */

import type { AcpSession } from "../../acp/acp-session.js";
import { expectEqual } from "../../check.js";
import type { ModelEcho } from "../../grok/models.js";
import { refuseOnThrow } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";

export interface ModelInput {
  readonly session: AcpSession;
  readonly request: { readonly modelId: string; readonly effort?: string | null };
}

export const model = hireStep("model", async (input: ModelInput) => {
  const echo: ModelEcho = await refuseOnThrow(
    { step: "model", check: "model.selection", reason: (f) => f.message },
    () => input.session.selectModel(input.request),
  );
  return outcome(
    echo,
    `model ${echo.modelId}${echo.reasoningEffort === null ? "" : ` (${echo.reasoningEffort})`} selected and echoed`,
    [expectEqual("model.echo", input.request.modelId, echo.modelId, "another model was echoed")],
    { modelId: echo.modelId, reasoningEffort: echo.reasoningEffort },
  );
});
