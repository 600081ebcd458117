/**
 * grok-seat/mcp: an MCP tool bank projected so the official SDK accepts its list (root `type:
 * "object"`), calls validated against the original schemas before they reach upstream, and the
 * projecting proxy over stdio and loopback streamable HTTP (lib/mcp). This entry loads
 * `@modelcontextprotocol/sdk`; the root entry never does.
 */
export type { CallErrorCode, ProjectionIssue } from "../mcp/issues.js";
export {
  LOOPBACK_HOST,
  type LoopbackHttpOptions,
  type LoopbackHttpServer,
  serveLoopbackHttp,
} from "../mcp/loopback-http.js";
export { type McpErrorCode, McpProjectionError } from "../mcp/mcp-error.js";
export { type ObjectCapability, objectCapability } from "../mcp/object-capable.js";
export {
  type ProjectedTool,
  type ProjectOptions,
  projectSchema,
  projectTools,
  type ToolProjection,
} from "../mcp/project.js";
export { ProjectingProxy, type ProjectingProxyOptions } from "../mcp/proxy.js";
export {
  type FetchOptions,
  fetchRawTools,
  type UpstreamSpec,
  upstreamTransport,
} from "../mcp/upstream.js";
export { type CallVerdict, createToolValidator, type ToolValidator } from "../mcp/validate.js";
