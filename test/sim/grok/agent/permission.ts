/**
 * `[permission]` rules of `$GROK_HOME/config.toml` as far as MCP tools are concerned
 * (xai-grok-workspace permission/resolution.rs `parse_toml_permission_section`, rules.rs
 * `parse_permission_rule`, policy.rs `tool_filter_matches`):
 *
 * - the compact form `allow = [...]`, `deny = [...]`, `ask = [...]` of rule strings wins when any
 *   of the three keys is an array; otherwise the verbose `rules = [{ action, tool, pattern }]`
 *   (`action` defaults to deny, `tool` to any);
 * - `MCPTool(<glob>)` matches the qualified `<server>__<tool>` name (`MCPTool`, `MCPTool()` and
 *   `MCPTool(*)` match every MCP tool), `mcp__<server>[__<tool>]` / `mcp__*` is the Claude
 *   spelling of the same, a bare `*` matches every tool;
 * - evaluation is by severity, not order: any matching deny, else any ask, else any allow.
 *
 * A call no rule allows asks the owner (an MCP tool is never auto-approved otherwise). Rules
 * are read when a session starts, like the real agent. Globs: `*` any run, `?` one character,
 * `[...]` a class (the qualified name has no `/`, so path-glob subtleties do not arise).
 */
import { isRecord, str } from "../json.js";
import type { SimConfig } from "./config.js";

export type RuleAction = "allow" | "deny" | "ask";

interface Rule {
  action: RuleAction;
  tool: "any" | "mcp" | "other";
  pattern: string | undefined;
}

function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? "";
    if (c === "*") re += ".*";
    else if (c === "?") re += ".";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) re += "\\[";
      else {
        const body = glob
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\");
        re += `[${body}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, "s");
}

function parseRuleString(rule: string, action: RuleAction): Rule | undefined {
  const text = rule.trim();
  const open = text.indexOf("(");
  if (open >= 0) {
    const close = text.lastIndexOf(")");
    if (close < open) return undefined;
    const prefix = text.slice(0, open).trim();
    const content = text.slice(open + 1, close).trim();
    const pattern = content === "" || content === "*" ? undefined : content;
    if (prefix === "MCPTool") return { action, tool: "mcp", pattern };
    return { action, tool: "other", pattern };
  }
  if (text === "MCPTool") return { action, tool: "mcp", pattern: undefined };
  if (text.startsWith("mcp__") && text.length > 5) {
    const rest = text.slice(5);
    if (rest === "*") return { action, tool: "mcp", pattern: undefined };
    return { action, tool: "mcp", pattern: rest.includes("__") ? rest : `${rest}__*` };
  }
  if (["Bash", "Read", "Edit", "Write", "Grep", "Glob", "WebFetch", "WebSearch"].includes(text))
    return { action, tool: "other", pattern: undefined };
  return { action, tool: "any", pattern: text === "" ? undefined : text };
}

export function permissionRules(config: SimConfig): Rule[] {
  const section = config.root.permission;
  if (!isRecord(section)) return [];
  const rules: Rule[] = [];
  let compact = false;
  for (const action of ["deny", "allow", "ask"] as const) {
    const list = section[action];
    if (!Array.isArray(list)) continue;
    compact = true;
    for (const item of list) {
      const rule = typeof item === "string" ? parseRuleString(item, action) : undefined;
      if (rule !== undefined) rules.push(rule);
    }
  }
  if (compact || !Array.isArray(section.rules)) return rules;
  for (const raw of section.rules) {
    if (!isRecord(raw)) continue;
    const a = str(raw.action) ?? "deny";
    const action: RuleAction = a === "allow" || a === "ask" ? a : "deny";
    const t = str(raw.tool) ?? "any";
    rules.push({
      action,
      tool: t === "mcp" ? "mcp" : t === "any" ? "any" : "other",
      pattern: str(raw.pattern),
    });
  }
  return rules;
}

/** The decision for an MCP tool call: the rule action that applies, or undefined (ask). */
export function mcpDecision(rules: readonly Rule[], qualified: string): RuleAction | undefined {
  const matches = (r: Rule): boolean =>
    (r.tool === "mcp" || r.tool === "any") &&
    (r.pattern === undefined || globToRegExp(r.pattern).test(qualified));
  for (const action of ["deny", "ask", "allow"] as const) {
    if (rules.some((r) => r.action === action && matches(r))) return action;
  }
  return undefined;
}
