/**
 * The projecting proxy: an SDK `Client` to the upstream operator bank, and SDK low-level `Server`s
 * for downstream clients that list the projected tools and check every call against the original
 * schema before anything reaches upstream; valid calls and their results pass as the very objects
 * received (docs/design/decisions.md §10.3; docs/design/acp-mcp-toolchain.md §2.3).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import { z } from "zod";
import type { GrokSeatError } from "../errors.js";
import type { ProjectionIssue } from "./issues.js";
import { isJsonObject } from "./json-pointer.js";
import { McpProjectionError } from "./mcp-error.js";
import { type ProjectOptions, projectTools, type ToolProjection } from "./project.js";
import { isSdkCallResult } from "./sdk-guard.js";
import { AnyResult, fetchRawTools } from "./upstream.js";
import { createToolValidator, type ToolValidator } from "./validate.js";

export const PROXY_INFO = { name: "grok-seat-mcp-projection", version: "0.1.0" } as const;

/** The `_meta` key of a refused call's result: `{code, message, details}` of the refusal. */
export const ERROR_META = "grok-seat/error";

export interface ProjectingProxyOptions extends ProjectOptions {
  /** How a call whose arguments fail the original schema is refused (see the file comment). */
  readonly invalidArguments?: "tool-error" | "protocol-error";
  /** Per forwarded call; the timer restarts on upstream progress. Default: the SDK's 60 s. */
  readonly callTimeoutMs?: number;
  /** Tools left out of a freshly fetched list, and why (called once per fetch with issues). */
  readonly onIssues?: (issues: readonly ProjectionIssue[]) => void;
  /** Failures with no caller to report to (a background re-fetch, a failed notification). */
  readonly onError?: (error: Error) => void;
  /** The upstream connection ended without `close()` (a spawned bank exited, say). */
  readonly onUpstreamClose?: () => void;
}

/** One fetched and projected upstream list; replaced whole, never mutated. */
export interface ProxySnapshot {
  readonly projection: ToolProjection;
  readonly validator: ToolValidator;
  /** What `tools/list` serves downstream. */
  readonly listed: readonly Tool[];
  readonly listedNames: ReadonlySet<string>;
  readonly issues: readonly ProjectionIssue[];
  /** Increments on every fetch. */
  readonly generation: number;
}

const CallParams = v.looseObject({ name: v.string(), arguments: v.optional(v.unknown()) });
const ProgressMeta = v.looseObject({
  _meta: v.looseObject({ progressToken: v.union([v.string(), v.number()]) }),
});

/** `tools/call` with `params` passed through by reference (see the file comment). */
const RawToolsCall = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() });

/** An error that `Protocol` sends as `{code, message, data}` exactly (McpError prefixes). */
class RelayedError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

function relay(err: unknown): unknown {
  if (!(err instanceof McpError)) return err;
  const prefix = `MCP error ${err.code}: `;
  const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  return new RelayedError(err.code, message, err.data);
}

function refusal(code: number, error: GrokSeatError): RelayedError {
  return new RelayedError(code, error.message, error.toJSON());
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export class ProjectingProxy {
  readonly #client: Client;
  readonly #options: ProjectingProxyOptions;
  readonly #servers = new Set<Server>();
  #snapshot: ProxySnapshot | undefined;
  #queued: Promise<ProxySnapshot> | undefined;
  #last: Promise<unknown> = Promise.resolve();
  #generation = 0;
  #closed = false;

  private constructor(client: Client, options: ProjectingProxyOptions) {
    this.#client = client;
    this.#options = options;
  }

  /** Connect to the upstream bank and fetch its list once. */
  static async start(
    upstream: Transport,
    options: ProjectingProxyOptions = {},
  ): Promise<ProjectingProxy> {
    const client = new Client({ ...PROXY_INFO }, { capabilities: {} });
    const proxy = new ProjectingProxy(client, options);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      proxy.refresh().catch((err: unknown) => proxy.#report(err));
    });
    client.onclose = () => {
      if (!proxy.#closed) options.onUpstreamClose?.();
    };
    await client.connect(upstream);
    try {
      await proxy.refresh();
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
    return proxy;
  }

  /** The current snapshot (there is always one after `start`). */
  get snapshot(): ProxySnapshot {
    if (this.#snapshot === undefined) throw new Error("ProjectingProxy: not started");
    return this.#snapshot;
  }

  /** The upstream server's `instructions`, passed on to downstream sessions. */
  get instructions(): string | undefined {
    return this.#client.getInstructions();
  }

  /**
   * Re-fetch and re-project the upstream list. Calls while a fetch is running queue exactly
   * one more fetch, so a burst of list_changed notifications costs at most two fetches.
   */
  refresh(): Promise<ProxySnapshot> {
    if (this.#queued !== undefined) return this.#queued;
    const next = this.#last
      .catch(() => {})
      .then(() => {
        this.#queued = undefined;
        return this.#load();
      });
    this.#queued = next;
    this.#last = next;
    return next;
  }

  async #load(): Promise<ProxySnapshot> {
    const raw = await fetchRawTools(this.#client);
    const projection = projectTools(raw, this.#options);
    const validator = createToolValidator(projection.tools.map((t) => t.original));
    const usable = new Set(validator.names);
    const listed = projection.tools.filter((t) => usable.has(t.name)).map((t) => t.listed);
    const snapshot: ProxySnapshot = {
      projection,
      validator,
      listed,
      listedNames: new Set(listed.map((t) => t.name)),
      issues: [...projection.issues, ...validator.issues],
      generation: ++this.#generation,
    };
    const first = this.#snapshot === undefined;
    this.#snapshot = snapshot;
    if (snapshot.issues.length > 0) this.#options.onIssues?.(snapshot.issues);
    if (!first)
      for (const server of this.#servers)
        server.sendToolListChanged().catch((err: unknown) => this.#report(err));
    return snapshot;
  }

  #report(err: unknown): void {
    if (this.#closed) return;
    this.#options.onError?.(err instanceof Error ? err : new Error(String(err)));
  }

  /**
   * A new downstream `Server` serving this proxy's tools; connect it to one transport
   * (`await proxy.createServer().connect(transport)`). One server per downstream session.
   */
  createServer(): Server {
    const instructions = this.instructions;
    const server = new Server(
      { ...PROXY_INFO },
      {
        capabilities: { tools: { listChanged: true } },
        ...(instructions === undefined ? {} : { instructions }),
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      // The whole list fits one page; a cursor can only be one we never issued.
      if (request.params?.cursor !== undefined)
        throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
      return { tools: [...this.snapshot.listed] };
    });
    Protocol.prototype.setRequestHandler.call(server, RawToolsCall, (request, extra) =>
      this.#call(request.params, extra),
    );
    this.#servers.add(server);
    server.onclose = () => {
      this.#servers.delete(server);
    };
    return server;
  }

  async #call(params: unknown, extra: Extra): Promise<CallToolResult> {
    if (!v.is(CallParams, params))
      throw new McpError(ErrorCode.InvalidParams, "tools/call params need a string name");
    const { name } = params;
    const args = params.arguments;
    const snapshot = this.snapshot;
    if (!snapshot.listedNames.has(name))
      throw refusal(
        ErrorCode.InvalidParams,
        new McpProjectionError("MCP_UNKNOWN_TOOL", `Unknown tool ${JSON.stringify(name)}`, {
          details: { tool: name },
        }),
      );
    // Not an object at all: the request itself is malformed (CallToolRequest says
    // `arguments: Record<string, unknown>`), so this is a protocol error in either mode.
    if (args !== undefined && !isJsonObject(args))
      throw refusal(
        ErrorCode.InvalidParams,
        new McpProjectionError(
          "MCP_INVALID_ARGUMENTS",
          `Invalid arguments for tool ${JSON.stringify(name)}: arguments must be a JSON object`,
          { details: { tool: name, errors: [] } },
        ),
      );
    const verdict = snapshot.validator.check(name, args);
    if (!verdict.ok) {
      const { error } = verdict;
      if (
        error.code === "MCP_INVALID_ARGUMENTS" &&
        this.#options.invalidArguments !== "protocol-error"
      )
        return {
          content: [{ type: "text", text: error.message }],
          isError: true,
          _meta: { [ERROR_META]: error.toJSON() },
        };
      throw refusal(
        error.code === "MCP_SCHEMA_UNUSABLE" ? ErrorCode.InternalError : ErrorCode.InvalidParams,
        error,
      );
    }

    const progressToken = v.is(ProgressMeta, params) ? params._meta.progressToken : undefined;
    let result: unknown;
    try {
      result = await this.#client.request({ method: "tools/call", params }, AnyResult, {
        signal: extra.signal,
        resetTimeoutOnProgress: true,
        ...(this.#options.callTimeoutMs === undefined
          ? {}
          : { timeout: this.#options.callTimeoutMs }),
        ...(progressToken === undefined
          ? {}
          : {
              onprogress: (p) => {
                extra
                  .sendNotification({
                    method: "notifications/progress",
                    params: { ...p, progressToken },
                  })
                  .catch((err: unknown) => this.#report(err));
              },
            }),
      });
    } catch (err) {
      throw relay(err);
    }
    const problems: string[] = [];
    if (!isSdkCallResult(result, problems))
      throw new RelayedError(
        ErrorCode.InternalError,
        `Upstream returned a tools/call result the MCP schema rejects: ${problems.join("; ")}`,
        { code: "MCP_UPSTREAM_BAD_RESULT", details: { tool: name } },
      );
    return result;
  }

  /** Close every downstream session and the upstream connection (a spawned bank exits). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const servers = [...this.#servers];
    this.#servers.clear();
    await Promise.allSettled(servers.map((s) => s.close()));
    await this.#client.close();
  }
}
