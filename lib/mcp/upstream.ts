/**
 * The upstream side of the proxy: how to reach the operator bank, and how to read its raw tool
 * list past the SDK client's own schema check.
 *
 * `Client.listTools()` parses the result with `ListToolsResultSchema`, so one tool with a root
 * union loses the whole list (docs/design/acp-mcp-toolchain.md §2.1). `client.request()` with a result
 * schema that accepts anything returns the list exactly as sent (§2.3, "raw client.request
 * with permissive schema"); valibot then checks its shape (raw-tool.ts). Pagination follows
 * `nextCursor` until it is absent, refusing a cursor seen before.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import { McpProjectionError } from "./mcp-error.js";
import { parseToolsListPage } from "./raw-tool.js";

/** Where the upstream bank is: a command to spawn (stdio) or a streamable HTTP URL. */
export type UpstreamSpec =
  | {
      readonly kind: "command";
      readonly command: string;
      readonly args: readonly string[];
      readonly cwd?: string;
      readonly env?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: "url";
      readonly url: URL;
      /** Sent with every request to the upstream (its own auth); never shown downstream. */
      readonly headers?: Readonly<Record<string, string>>;
    };

/** A client transport for `spec`. The child's stderr is passed through to ours. */
export function upstreamTransport(spec: UpstreamSpec): Transport {
  if (spec.kind === "url")
    return new StreamableHTTPClientTransport(
      spec.url,
      spec.headers === undefined ? undefined : { requestInit: { headers: { ...spec.headers } } },
    );
  return new StdioClientTransport({
    command: spec.command,
    args: [...spec.args],
    stderr: "inherit",
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    ...(spec.env === undefined ? {} : { env: { ...spec.env } }),
  });
}

/** Accepts any result: the raw value is checked by valibot afterwards, never trusted. */
export const AnyResult = z.unknown();

export interface FetchOptions {
  /** Stop with an error after this many pages (default 10,000). */
  readonly maxPages?: number;
  readonly signal?: AbortSignal;
}

/** Every tool entry of the upstream `tools/list`, across all pages, exactly as sent. */
export async function fetchRawTools(
  client: Client,
  options: FetchOptions = {},
): Promise<unknown[]> {
  const maxPages = options.maxPages ?? 10_000;
  const tools: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages)
      throw new McpProjectionError(
        "MCP_UPSTREAM_BAD_LIST",
        `upstream tools/list has more than ${maxPages} pages`,
      );
    const raw = await client.request(
      cursor === undefined
        ? { method: "tools/list" }
        : { method: "tools/list", params: { cursor } },
      AnyResult,
      options.signal === undefined ? undefined : { signal: options.signal },
    );
    const { tools: entries, nextCursor } = parseToolsListPage(raw);
    tools.push(...entries);
    if (nextCursor === undefined) return tools;
    if (seen.has(nextCursor))
      throw new McpProjectionError(
        "MCP_UPSTREAM_BAD_LIST",
        `upstream tools/list repeated the cursor ${JSON.stringify(nextCursor)}`,
        { details: { cursor: nextCursor, page } },
      );
    seen.add(nextCursor);
    cursor = nextCursor;
  }
}
