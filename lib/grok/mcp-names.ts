/**
 * Grok's naming of MCP tools (xai-grok-mcp `src/servers.rs`): a tool is registered — callable by
 * the model and listed by `x.ai/mcp/list` — only as `<server>__<tool>` with exactly one `__`
 * boundary (byte windows, so an overlapping `___` counts twice: `parse_mcp_qualified_name`), both
 * sides non-empty, the whole matching `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$` (`validate_tool_name`),
 * and not app-only (`_meta.ui.visibility` naming no `"model"`: `into_registration`). A server
 * name that breaks these rules for every tool is refused before anything is started.
 */

const DELIMITER = "__";
const QUALIFIED = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/** Why `name` cannot name a server whose tools Grok registers, or null when it can. */
export function serverNameProblem(name: string): string | null {
  if (name === "") return "the name is empty";
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return "only A-Z, a-z, 0-9, '_' and '-' may appear";
  if (!/^[A-Za-z_]/.test(name)) return "a tool name must start with a letter or '_'";
  if (name.includes(DELIMITER)) return "'__' separates server and tool: the name may not hold it";
  if (name.endsWith("_")) return "a trailing '_' makes '___' before every tool name (ambiguous)";
  // The shortest qualified name is `<name>__x`: 64 characters at most.
  if (name.length > 61) return "at most 61 characters (the qualified tool name is at most 64)";
  return null;
}

/** How many `__` windows a string has, overlapping ones counted (`___` is two). */
function boundaries(s: string): number {
  let n = 0;
  for (let i = 0; i + 1 < s.length; i++) if (s[i] === "_" && s[i + 1] === "_") n++;
  return n;
}

/** Whether `_meta.ui.visibility` keeps a tool from the model (app-only). */
function appOnly(meta: unknown): boolean {
  if (typeof meta !== "object" || meta === null) return false;
  const ui: unknown = Reflect.get(meta, "ui");
  if (typeof ui !== "object" || ui === null) return false;
  const visibility: unknown = Reflect.get(ui, "visibility");
  return Array.isArray(visibility) && !visibility.includes("model");
}

/**
 * The name Grok registers for `tool` of server `server` (`<server>__<tool>`), or null when it
 * skips the tool (ambiguous or invalid qualified name, or app-only).
 */
export function registeredToolName(server: string, tool: string, meta: unknown): string | null {
  if (tool === "") return null;
  const qualified = `${server}${DELIMITER}${tool}`;
  if (boundaries(qualified) !== 1 || !QUALIFIED.test(qualified)) return null;
  return appOnly(meta) ? null : qualified;
}
