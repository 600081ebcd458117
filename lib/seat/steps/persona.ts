/**
 * Step `persona` (only when the seat has one; issue 14): Grok applied it. The session's
 * `system_prompt.txt` and the system head of its `chat_history.jsonl` both hold the persona inside
 * `<human_rules>` (lib/grok/persona.ts). Grok writes them when it creates the session, so they are
 * polled for until they exist (bounded); a wrong or missing text refuses PERSONA_NOT_APPLIED.
 * It runs after `model`, because a model switch can rebuild the prompt without the rules
 * (`model_switch.rs`). A resume passes no `--rules` and re-runs this check on the recorded digest.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { firstFailure } from "../../check.js";
import {
  artifactsPending,
  checkPersona,
  type PersonaDigest,
  personaLabel,
} from "../../grok/persona.js";
import { readPromptArtifacts } from "../../grok/session-files.js";
import { refuseOnCheck } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";

export interface PersonaInput {
  readonly grokHome: string;
  readonly cwd: string;
  readonly sessionId: string;
  readonly persona: PersonaDigest;
  /** How long to wait for Grok to write the files (default 15 s). */
  readonly timeoutMs?: number | undefined;
}

const POLL_MS = 25;

export const persona = hireStep("persona", async (input: PersonaInput, ctx) => {
  const deadline = performance.now() + (input.timeoutMs ?? 15_000);
  let artifacts = readPromptArtifacts(input.grokHome, input.cwd, input.sessionId);
  while (artifactsPending(artifacts) && performance.now() < deadline) {
    await sleep(POLL_MS, undefined, ctx.signal === undefined ? {} : { signal: ctx.signal });
    artifacts = readPromptArtifacts(input.grokHome, input.cwd, input.sessionId);
  }
  const checks = checkPersona(artifacts, input.persona);
  const failed = firstFailure(checks);
  if (failed !== undefined) {
    throw refuseOnCheck("persona", "PERSONA_NOT_APPLIED", failed, {
      sessionDir: artifacts.dir,
      persona: { sha256: input.persona.sha256, bytes: input.persona.bytes },
    });
  }
  return outcome(
    null,
    `${personaLabel(input.persona)} is in the session's system prompt and conversation head`,
    checks,
    { sessionDir: artifacts.dir, sha256: input.persona.sha256, bytes: input.persona.bytes },
  );
});
