/**
 * The last word on "will the official client accept this": the MCP SDK's own zod schemas
 * (`@modelcontextprotocol/sdk` 1.32.2, `dist/esm/types.js`), the ones `Client.listTools()` and
 * `Client.callTool()` parse with. Using the SDK's schemas instead of a copy of their rules means
 * a future SDK that tightens `Tool` shows up as a reported issue, not as a lost list.
 *
 * These are checks, not parsers: on success the caller keeps the very object it passed in
 * (zod's output would be a copy with unknown keys stripped), so what goes downstream is what
 * came from upstream.
 */
import {
  type CallToolResult,
  CallToolResultSchema,
  type Tool,
  ToolSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ZodError } from "zod";

function describe(error: ZodError): string {
  return error.issues
    .map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`)
    .join("; ");
}

/**
 * True when `Client.listTools()` accepts `tool` (the SDK's `ToolSchema`). On false, the reason
 * (zod paths and messages, one line) is appended to `problems` when given.
 */
export function isSdkTool(tool: unknown, problems?: string[]): tool is Tool {
  const r = ToolSchema.safeParse(tool);
  if (!r.success) problems?.push(describe(r.error));
  return r.success;
}

/** True when `Client.callTool()` accepts `result` (`CallToolResultSchema`); see isSdkTool. */
export function isSdkCallResult(result: unknown, problems?: string[]): result is CallToolResult {
  const r = CallToolResultSchema.safeParse(result);
  if (!r.success) problems?.push(describe(r.error));
  return r.success;
}
