/**
 * A session's live MCP clients (xai-grok-mcp servers.rs McpState): one official-SDK client per
 * configured HTTP/SSE server, connected when the session's server list is set (session init,
 * every load/resume's UpdateMcpServers, `x.ai/session/update_mcp_servers`), diffed like
 * `update_configs_diff` (unchanged servers keep their client, changed or removed ones are closed).
 *
 * Each server goes `initializing` → `ready` (handshake and the paginated `tools/list` done) or
 * `unavailable` (handshake, transport or listing failed: `build_mcp_status` reports an
 * init-failed server as Unavailable with no tools). A listed tool is registered as
 * `<server>__<tool>` only if that name has exactly one `__` boundary (overlapping `___` counts
 * twice) with both sides non-empty (`parse_mcp_qualified_name`) and matches
 * `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$` (`validate_tool_name`); tools whose `_meta.ui.visibility`
 * lacks "model" are app-only and not registered (`McpTool::into_registration`).
 *
 * Status changes are pushed to the session's subscribers as `_x.ai/mcp/server_status {sessionId,
 * name, source, status, reason, tools: null}` (xai-grok-shell session/mcp_dispatcher.rs
 * `build_payload`, `flush_window`): a first handshake `ready`/`initialized`, a failed one
 * `unavailable`/`handshake_failed` with the error as `detail`, and, when an attach or
 * `x.ai/session/update_mcp_servers` changes a resident session's set (run_loop.rs
 * `UpdateMcpServers` → `ConfigDiff`), `initializing`/`config_added` and
 * `unavailable`/`config_removed`. The session's first set (its spawn) is no diff. The real
 * dispatcher coalesces pushes in a 50 ms window per (server, kind); the simulator pushes each.
 *
 * The client identifies itself as `grok-shell-<server>` (`make_client_info`). Stand-ins (a config
 * server with `sim_tools`, and stdio servers, which the simulator never spawns) are never
 * connected and report their tools as ready.
 */

import { field, str } from "../json.js";
import { trace } from "../trace.js";
import type { SessionMcpServer } from "./mcp.js";
import type { SdkClient } from "./mcp-sdk.js";

export type McpStatus = "initializing" | "ready" | "unavailable";

/** An McpToolEntry row of `x.ai/mcp/list` (extensions/mcp.rs). */
export interface McpToolEntry {
  name: string;
  description: string;
  meta: unknown;
}

interface Conn {
  server: SessionMcpServer;
  fingerprint: string;
  status: McpStatus;
  tools: McpToolEntry[];
  client: SdkClient | undefined;
  ready: Promise<void>;
  closed: boolean;
}

export type CallOutcome =
  | { kind: "result"; isError: boolean; text: string }
  | { kind: "error"; message: string };

const TOOL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/** parse_mcp_qualified_name + validate_tool_name for `<server>__<tool>`. */
export function validQualifiedName(name: string): boolean {
  let boundaries = 0;
  let at = -1;
  for (let i = 0; i + 1 < name.length; i++) {
    if (name[i] === "_" && name[i + 1] === "_") {
      boundaries++;
      at = i;
    }
  }
  if (boundaries !== 1 || at <= 0 || at + 2 >= name.length) return false;
  return TOOL_NAME_RE.test(name);
}

function modelVisible(meta: unknown): boolean {
  const visibility = field(field(meta, "ui"), "visibility");
  return Array.isArray(visibility) ? visibility.includes("model") : true;
}

function fingerprint(s: SessionMcpServer): string {
  return JSON.stringify([s.key, s.entry, s.standIn]);
}

/** One `x.ai/mcp/server_status` push (mcp_dispatcher.rs `McpServerStatusPayload`, less the ids). */
export interface McpStatusPush {
  name: string;
  status: McpStatus;
  reason: "initialized" | "handshake_failed" | "config_added" | "config_removed";
  detail?: string;
}

export class McpConnections {
  private readonly conns = new Map<string, Conn>();
  private readonly version: string;
  private readonly push: (p: McpStatusPush) => void;
  /** The first set is the session's spawn, not an UpdateMcpServers diff. */
  private spawned = false;

  constructor(version: string, push: (p: McpStatusPush) => void = () => undefined) {
    this.version = version;
    this.push = push;
  }

  /** Replace the server set; resolves when every new handshake has finished (or failed). */
  update(servers: readonly SessionMcpServer[]): Promise<void> {
    const diff = this.spawned;
    this.spawned = true;
    const wanted = new Map(servers.map((s) => [s.name, s]));
    for (const [name, conn] of this.conns) {
      const next = wanted.get(name);
      if (next === undefined || fingerprint(next) !== conn.fingerprint) {
        this.close(conn);
        this.conns.delete(name);
        if (diff) this.push({ name, status: "unavailable", reason: "config_removed" });
      }
    }
    const pending: Promise<void>[] = [];
    for (const server of servers) {
      if (this.conns.has(server.name)) continue;
      if (diff) this.push({ name: server.name, status: "initializing", reason: "config_added" });
      const conn = this.open(server);
      this.conns.set(server.name, conn);
      pending.push(conn.ready);
    }
    return Promise.all(pending).then(() => undefined);
  }

  status(name: string): { status: McpStatus; tools: McpToolEntry[] } | undefined {
    const conn = this.conns.get(name);
    return conn === undefined ? undefined : { status: conn.status, tools: conn.tools };
  }

  /** Every registered `<server>__<tool>` name of the ready servers. */
  has(qualified: string): boolean {
    const [server, tool] = split(qualified);
    const conn = this.conns.get(server);
    return conn?.status === "ready" && conn.tools.some((t) => t.name === tool);
  }

  async call(qualified: string, args: Record<string, unknown> | undefined): Promise<CallOutcome> {
    const [server, tool] = split(qualified);
    const conn = this.conns.get(server);
    if (conn === undefined) return { kind: "error", message: `MCP server '${server}' not found` };
    if (conn.server.standIn !== undefined) {
      // A stand-in answers every call with its arguments (it has nothing behind it).
      return { kind: "result", isError: false, text: JSON.stringify(args ?? {}) };
    }
    if (conn.client === undefined) return { kind: "error", message: "Transport closed" };
    try {
      const res = await conn.client.callTool(tool, args);
      // servers.rs `run`: the text blocks joined by newlines (images and resources, which the
      // real agent also renders, are not simulated).
      const texts: string[] = [];
      for (const c of res.content) {
        const text = str(field(c, "text"));
        if (field(c, "type") === "text" && text !== undefined) texts.push(text);
      }
      return { kind: "result", isError: res.isError === true, text: texts.join("\n") };
    } catch (err) {
      return { kind: "error", message: rmcpError(err) };
    }
  }

  closeAll(): void {
    for (const conn of this.conns.values()) this.close(conn);
    this.conns.clear();
  }

  private open(server: SessionMcpServer): Conn {
    const conn: Conn = {
      server,
      fingerprint: fingerprint(server),
      status: "initializing",
      tools: [],
      client: undefined,
      ready: Promise.resolve(),
      closed: false,
    };
    if (server.standIn !== undefined) {
      conn.status = "ready";
      conn.tools = server.standIn.map((name) => ({ name, description: "", meta: undefined }));
      return conn;
    }
    conn.ready = this.connect(conn).then(
      () => {
        if (!conn.closed) this.push({ name: server.name, status: "ready", reason: "initialized" });
      },
      (err: unknown) => {
        if (conn.closed) return;
        conn.status = "unavailable";
        conn.tools = [];
        trace("mcp_unavailable", { server: server.name, error: String(err) });
        this.push({
          name: server.name,
          status: "unavailable",
          reason: "handshake_failed",
          detail: err instanceof Error ? err.message : String(err),
        });
      },
    );
    return conn;
  }

  private async connect(conn: Conn): Promise<void> {
    const entry = conn.server.entry;
    if (!("url" in entry)) throw new Error("stdio servers are not spawned by the simulator");
    const headers: Record<string, string> = {};
    for (const h of entry.headers) headers[h.name] = h.value;
    const { connectClient } = await import("./mcp-sdk.js");
    const client = await connectClient({
      url: entry.url,
      sse: entry.type === "sse",
      headers,
      clientName: `grok-shell-${conn.server.name}`,
      version: this.version,
    });
    conn.client = client;
    const tools: McpToolEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor);
      for (const t of page.tools) {
        if (!validQualifiedName(`${conn.server.name}__${t.name}`) || !modelVisible(t.meta)) {
          trace("mcp_tool_skipped", { server: conn.server.name, tool: t.name });
          continue;
        }
        tools.push({ name: t.name, description: t.description ?? "", meta: t.meta });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (conn.closed) {
      await client.close();
      return;
    }
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    conn.tools = tools;
    conn.status = "ready";
    trace("mcp_ready", { server: conn.server.name, tools: tools.map((t) => t.name) });
  }

  private close(conn: Conn): void {
    conn.closed = true;
    void conn.client?.close().catch(() => undefined);
  }
}

function split(qualified: string): [string, string] {
  const at = qualified.indexOf("__");
  return at < 0 ? [qualified, ""] : [qualified.slice(0, at), qualified.slice(at + 2)];
}

/**
 * rmcp's text for a failed call: `ServiceError::McpError` displays as `Mcp error: <code>:
 * <message>` plus `(<data JSON>)` when the error has data (rmcp error.rs, service.rs). The TS
 * SDK's McpError prefixes its message with `MCP error <code>: `, which is taken off first.
 */
function rmcpError(err: unknown): string {
  if (err instanceof Error && "code" in err && typeof err.code === "number") {
    const prefix = `MCP error ${err.code}: `;
    const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    const data = "data" in err && err.data !== undefined ? `(${JSON.stringify(err.data)})` : "";
    return `Mcp error: ${err.code}: ${message}${data}`;
  }
  return err instanceof Error ? err.message : String(err);
}
