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
  /** `[[sim:thought]]`: stream a reasoning text (agent_thought_chunk) before the reply. */
  thought: boolean;
  /** `[[sim:todo]]`: a `plan` update (the TodoWrite tool's acp_plan_update). */
  todo: boolean;
  /** `[[sim:title=TEXT]]`: a generated session title (summary.rs notify_client). */
  title: string | undefined;
  /** `[[sim:call]] <server>__<tool> <json>` lines: MCP tool calls, in order. */
  calls: ToolCallLine[];
}

export interface ToolCallLine {
  /** The qualified tool name as the model wrote it. */
  name: string;
  /** The raw arguments text (the model's `function.arguments`). */
  arguments: string;
}

const DIRECTIVE = /\[\[sim:([a-z_]+)(?:=([^\]]*))?\]\]/g;
/** A line `[[sim:call]] <qualified tool name> <JSON arguments>` (the rest of the line). */
const CALL_LINE = /^\s*\[\[sim:call\]\]\s+(\S+)(.*)$/;

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
    thought: false,
    todo: false,
    title: undefined,
    calls: [],
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
        plan.chunks = boundedInt(value, 1, 2000) ?? plan.chunks;
        break;
      case "tool": {
        const kind = TOOL_KINDS.find((k) => k === value);
        if (kind !== undefined) plan.tools.push(kind);
        break;
      }
      case "error":
        plan.error = value === undefined || value === "" ? "simulated model error" : value;
        break;
      case "thought":
        plan.thought = true;
        break;
      case "todo":
        plan.todo = true;
        break;
      case "title":
        if (value !== undefined && value !== "") plan.title = value;
        break;
      case "stop":
        if (value === "max_tokens" || value === "max_turn_requests" || value === "refusal") {
          plan.stopReason = value;
        }
        break;
    }
  }
  for (const line of promptText.split("\n")) {
    const call = CALL_LINE.exec(line);
    if (call !== null) plan.calls.push({ name: call[1] ?? "", arguments: (call[2] ?? "").trim() });
  }
  plan.text = promptText.replace(DIRECTIVE, "").replace(/\s+/g, " ").trim();
  plan.reply = replyFor(plan.text);
  return plan;
}

function boundedInt(value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Math.min(max, Math.max(min, Number(value)));
}

/**
 * A deterministic reply that depends on the whole prompt text: the same text always yields the
 * same words. Lengths count Unicode code points (Rust `char`s), so the quote never cuts a
 * character in two.
 */
export function replyFor(text: string): string {
  const chars = [...text];
  const words = text === "" ? 0 : text.split(" ").length;
  let h = 0;
  for (const ch of chars) h = (h * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  const quoted = chars.length > 80 ? `${chars.slice(0, 77).join("")}...` : text;
  return `Simulated reply to "${quoted}" (${words} words, digest ${h.toString(16).padStart(8, "0")}).`;
}

/** The reasoning text `[[sim:thought]]` streams (agent_thought_chunk) before the reply. */
export function thoughtFor(text: string): string {
  return `Thinking about ${[...text].length} characters of the prompt.`;
}

/**
 * Split text into n near-equal pieces that concatenate back to it. Pieces are Rust `String`s in
 * the real agent (each streamed delta is valid UTF-8), so a boundary falls between two code
 * points, never inside one: a multi-byte character is never split, but a grapheme made of
 * several code points (an emoji with a skin tone, a ZWJ family, a flag) can be.
 */
export function splitChunks(text: string, n: number): string[] {
  const chars = [...text];
  const count = Math.max(1, Math.min(n, chars.length));
  const size = Math.ceil(chars.length / count);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
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
