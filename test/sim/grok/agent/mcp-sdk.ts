/**
 * The official MCP SDK client, loaded only when a session connects a server (mcp-connect.ts
 * imports this module lazily): the SDK and zod roughly quadruple the bundle and would otherwise be
 * evaluated by every `grok` invocation, `--version` included.
 *
 * Results are read leniently, the way rmcp deserializes them (xai-grok-mcp servers.rs uses rmcp):
 * a tool's `inputSchema` must be a JSON object but need not have root `type: "object"` (the TS
 * SDK's own listTools/callTool would refuse that), and unknown keys are ignored.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";

const ToolsPage = z.looseObject({
  tools: z.array(
    z.looseObject({
      name: z.string(),
      description: z.string().optional(),
      inputSchema: z.record(z.string(), z.unknown()),
      _meta: z.unknown().optional(),
    }),
  ),
  nextCursor: z.string().optional(),
});
const CallResult = z.looseObject({
  content: z.array(z.unknown()).default([]),
  isError: z.boolean().optional(),
});

export interface ListedTool {
  name: string;
  description: string | undefined;
  meta: unknown;
}

export interface SdkClient {
  /** One `tools/list` page. */
  listTools(cursor: string | undefined): Promise<{ tools: ListedTool[]; nextCursor?: string }>;
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
  ): Promise<{ content: unknown[]; isError: boolean }>;
  close(): Promise<void>;
}

export async function connectClient(opts: {
  url: string;
  sse: boolean;
  headers: Record<string, string>;
  clientName: string;
  version: string;
}): Promise<SdkClient> {
  const url = new URL(opts.url);
  const requestInit = { headers: opts.headers };
  const transport: Transport = opts.sse
    ? new SSEClientTransport(url, { requestInit })
    : new StreamableHTTPClientTransport(url, { requestInit });
  const client = new Client({ name: opts.clientName, version: opts.version }, { capabilities: {} });
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
  return {
    async listTools(cursor) {
      const page = await client.request(
        { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
        ToolsPage,
      );
      return {
        tools: page.tools.map((t) => ({ name: t.name, description: t.description, meta: t._meta })),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      };
    },
    async callTool(name, args) {
      const res = await client.request(
        {
          method: "tools/call",
          params: args === undefined ? { name } : { name, arguments: args },
        },
        CallResult,
      );
      return { content: res.content, isError: res.isError === true };
    },
    close: () => client.close(),
  };
}
