/**
 * The simulated model: a deterministic reply derived from the prompt text, and `[[sim:...]]`
 * directives inside the prompt that script the turn (documented in test/sim/grok/README.md).
 * Pure: the turn runner interprets the returned plan.
 */

export type ToolKind =
  | "read"
  | "edit"
  | "delete"
  | "move"
  | "search"
  | "execute"
  | "think"
  | "fetch"
  | "other";
const TOOL_KINDS: readonly ToolKind[] = [
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "think",
  "fetch",
  "other",
];

export type StopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal";

export interface TurnPlan {
  /** Prompt text without directives, trimmed. */
  text: string;
  reply: string;
  chunks: number;
  sleepMs: number;
  permission: boolean;
  ask: boolean;
  plan: boolean;
  fsRead: boolean;
  tools: ToolKind[];
  error: string | undefined;
  stopReason: StopReason;
}

const DIRECTIVE = /\[\[sim:([a-z_]+)(?:=([^\]]*))?\]\]/g;

export function planTurn(promptText: string): TurnPlan {
  const plan: TurnPlan = {
    text: "",
    reply: "",
    chunks: 3,
    sleepMs: 0,
    permission: false,
    ask: false,
    plan: false,
    fsRead: false,
    tools: [],
    error: undefined,
    stopReason: "end_turn",
  };
  for (const m of promptText.matchAll(DIRECTIVE)) {
    const name = m[1] ?? "";
    const value = m[2];
    switch (name) {
      case "permission":
        plan.permission = true;
        break;
      case "ask":
        plan.ask = true;
        break;
      case "plan":
        plan.plan = true;
        break;
      case "fs":
        plan.fsRead = true;
        break;
      case "sleep":
        plan.sleepMs = boundedInt(value, 0, 600_000) ?? 0;
        break;
      case "chunks":
        plan.chunks = boundedInt(value, 1, 200) ?? plan.chunks;
        break;
      case "tool": {
        const kind = TOOL_KINDS.find((k) => k === value);
        if (kind !== undefined) plan.tools.push(kind);
        break;
      }
      case "error":
        plan.error = value === undefined || value === "" ? "simulated model error" : value;
        break;
      case "stop":
        if (value === "max_tokens" || value === "max_turn_requests" || value === "refusal") {
          plan.stopReason = value;
        }
        break;
    }
  }
  plan.text = promptText.replace(DIRECTIVE, "").replace(/\s+/g, " ").trim();
  plan.reply = replyFor(plan.text);
  return plan;
}

function boundedInt(value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Math.min(max, Math.max(min, Number(value)));
}

/** A deterministic reply: the same prompt text always yields the same words. */
export function replyFor(text: string): string {
  const words = text === "" ? 0 : text.split(" ").length;
  let h = 0;
  for (const ch of text) h = (h * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  const quoted = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  return `Simulated reply to "${quoted}" (${words} words, digest ${h.toString(16).padStart(8, "0")}).`;
}

/** Split text into n near-equal pieces that concatenate back to it. */
export function splitChunks(text: string, n: number): string[] {
  const count = Math.max(1, Math.min(n, text.length));
  const size = Math.ceil(text.length / count);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

/** session/mod.rs PromptOrigin::from_prompt_id: ids with these prefixes are hidden runtime turns. */
export const RESERVED_PROMPT_PREFIXES = [
  "task-completed-",
  "subagent-completed-",
  "workflow-completed-",
  "notifications-",
  "goal-summary-",
  "goal-classifier-nudge-",
  "scheduler-fired-",
  "plan-resume-",
] as const;

export function isSyntheticPromptId(id: string): boolean {
  return RESERVED_PROMPT_PREFIXES.some((p) => id.startsWith(p));
}
