/**
 * Caller-created prompt ids (pure; `newPromptId` only draws randomness): a UUID, kept verbatim,
 * never with a reserved prefix. Uniqueness needs every id ever fenced, so the journal's `fence`
 * owns it (PROMPT_ID_DUPLICATE). The rules and their sources: docs/design/decisions.md §7.1.
 */
import { randomUUID } from "node:crypto";
import { UsageError } from "../errors.js";
import type { GrokErrorCode } from "./grok-error.js";

/** `PromptOrigin::from_prompt_id` prefixes, in source order (`session/mod.rs`). */
export const RESERVED_PROMPT_ID_PREFIXES: readonly string[] = Object.freeze([
  "task-completed-",
  "subagent-completed-",
  "workflow-completed-",
  "notifications-",
  "goal-summary-",
  "goal-classifier-nudge-",
  "scheduler-fired-",
  "plan-resume-",
]);

/** RFC 4122 text form: 8-4-4-4-12 hex digits, any version/variant, either case. */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type PromptIdProblem = "PROMPT_ID_RESERVED" | "PROMPT_ID_INVALID";

/** Why `id` cannot be used as a prompt id, or null when it can (uniqueness: the journal). */
export function promptIdProblem(id: unknown): { code: PromptIdProblem; reason: string } | null {
  if (typeof id !== "string") return { code: "PROMPT_ID_INVALID", reason: "not a string" };
  const reserved = RESERVED_PROMPT_ID_PREFIXES.find((p) => id.startsWith(p));
  if (reserved !== undefined) {
    return {
      code: "PROMPT_ID_RESERVED",
      reason: `prefix "${reserved}" marks a synthetic runtime prompt (PromptOrigin::from_prompt_id)`,
    };
  }
  if (!UUID_RE.test(id)) return { code: "PROMPT_ID_INVALID", reason: "not a UUID" };
  return null;
}

/** Return `id` when usable, else throw a UsageError with the problem's code. */
export function assertPromptId(id: unknown): string {
  const problem = promptIdProblem(id);
  if (problem !== null || typeof id !== "string") {
    throw new UsageError<GrokErrorCode>(
      problem?.code ?? "PROMPT_ID_INVALID",
      `prompt id refused: ${problem?.reason}`,
      {
        details: { promptId: typeof id === "string" ? id : String(id) },
      },
    );
  }
  return id;
}

/** A fresh UUIDv4 prompt id (what the TUI itself sends). */
export function newPromptId(): string {
  return randomUUID();
}
