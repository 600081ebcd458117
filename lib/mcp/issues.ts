/**
 * The stable codes of the MCP projection boundary, and the one issue shape every step reports
 * (valibot's habit: one issue shape for every failed check; docs/design/style.md). An issue is a value;
 * the proxy logs issues and leaves the tool out of the list instead of failing the whole list,
 * which is exactly what the SDK client would otherwise do (docs/design/acp-mcp-toolchain.md §2.1).
 */

/** Codes for a tool that cannot be listed as it is. */
export type ProjectionIssueCode =
  /** The schema can never accept a JSON object (root `type: "string"`, `false`, …). */
  | "MCP_SCHEMA_NEVER_OBJECT"
  /** Not a JSON Schema where the SDK needs one (`null`, `properties: []`, `required: [1]`). */
  | "MCP_SCHEMA_INVALID"
  /** The validator cannot evaluate the original schema (unresolved `$ref`, bad `pattern`). */
  | "MCP_SCHEMA_UNUSABLE"
  /** The tool entry itself is malformed (no string `name`). */
  | "MCP_TOOL_INVALID"
  /** Two or more upstream tools share a name; which one a call reaches is undefined. */
  | "MCP_TOOL_DUPLICATE"
  /** The projected tool still fails the SDK's own `ToolSchema` (e.g. `annotations: "x"`). */
  | "MCP_TOOL_REJECTED_BY_SDK";

/** Codes of errors raised for one `tools/call`. */
export type CallErrorCode =
  | "MCP_INVALID_ARGUMENTS"
  | "MCP_UNKNOWN_TOOL"
  /** The original schema threw while evaluating these arguments; the call is refused. */
  | "MCP_SCHEMA_UNUSABLE";

/** Where in a tool entry an issue was found. */
export type IssueSite = "tool" | "inputSchema" | "outputSchema";

export interface ProjectionIssue {
  readonly code: ProjectionIssueCode;
  /** The tool name, or `#<index>` when the entry has no usable name. */
  readonly tool: string;
  readonly site: IssueSite;
  /** JSON pointer into the site (`""` = its root). */
  readonly pointer: string;
  readonly reason: string;
}

/** One line per issue for logs: `MCP_SCHEMA_NEVER_OBJECT tool "x" inputSchema/type: reason`. */
export function formatIssue(issue: ProjectionIssue): string {
  return `${issue.code} tool ${JSON.stringify(issue.tool)} ${issue.site}${issue.pointer}: ${issue.reason}`;
}
