/**
 * The system prompt of a session and where `--rules` goes (agent/mvp_agent/mod.rs
 * `build_spawn_system_prompt`, `read_session_or_init_meta_str`): for a session spawned with an
 * empty history, a non-blank `systemPromptOverride` is used verbatim; otherwise the agent's
 * template, followed by `\n\n<human_rules>\n<rules>\n</human_rules>` when `rules` is a string.
 * Each key is read from the session request's `_meta` first, then from the agent's *first*
 * `initialize` `_meta` (acp_agent.rs keeps the first InitializeRequest in a OnceLock; later
 * clients' initialize meta is never read). Rules apply at creation only: an attach syncs only
 * `systemPromptOverride` (`enqueue_replace_system_prompt_override`).
 *
 * The templates stand in for the real harness prompts (xai-grok-agent prompt/template); the
 * simulator's models map to them by `agentType` (catalog.ts).
 */
import { field, str } from "../json.js";

const TEMPLATES: Record<string, string> = {
  "grok-build":
    "You are Grok Build (simulated), an agentic coding assistant working in the user's terminal.\n" +
    "Use the tools available to you to help with software engineering tasks.",
  codex:
    "You are a coding agent (simulated Codex harness). Follow the repository's conventions and " +
    "keep answers short.",
};

/** The agent template of an agent type (an unknown type gets the grok-build template). */
export function agentSystemPrompt(agentType: string): string {
  return TEMPLATES[agentType] ?? TEMPLATES["grok-build"] ?? "";
}

/** `is_strict_harness_agent_type`: built-in agents with a custom prompt or toolset. */
const STRICT_HARNESSES = new Set(["codex", "opencode"]);

/** harnesses_are_compatible (mvp_agent/mod.rs). */
export function harnessesCompatible(active: string, required: string): boolean {
  const a = STRICT_HARNESSES.has(active);
  const b = STRICT_HARNESSES.has(required);
  if (!a && !b) return true;
  return a && b && active === required;
}

export function metaStr(sessionMeta: unknown, initMeta: unknown, key: string): string | undefined {
  return str(field(sessionMeta, key)) ?? str(field(initMeta, key));
}

/** A non-blank `systemPromptOverride` (a blank one never blanks the prompt). */
export function promptOverride(sessionMeta: unknown, initMeta: unknown): string | undefined {
  const value = metaStr(sessionMeta, initMeta, "systemPromptOverride");
  return value !== undefined && value.trim() !== "" ? value : undefined;
}

export function spawnSystemPrompt(
  sessionMeta: unknown,
  initMeta: unknown,
  agentType: string,
): string {
  const override = promptOverride(sessionMeta, initMeta);
  if (override !== undefined) return override;
  const rules = metaStr(sessionMeta, initMeta, "rules");
  const template = agentSystemPrompt(agentType);
  return rules === undefined ? template : `${template}\n\n<human_rules>\n${rules}\n</human_rules>`;
}
