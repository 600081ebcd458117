/**
 * The "operator bank": a loopback upstream MCP server built on the official SDK's low-level
 * `Server`, as the seed ADR's Captain service is. It lists its tools exactly as given (tricky
 * schemas included: the SDK `Server` does not check tools/list results) with pagination, sends
 * `notifications/tools/list_changed` when its tools change, and records every `tools/call` it
 * receives and every result it sends, at the transport, before any handler or zod parse.
 *
 * The call log is the oracle the tests use: a refused call must never appear in it, and a
 * forwarded call's arguments must serialize to exactly what the downstream client sent.
 *
 * Handlers are registered with `Protocol.prototype.setRequestHandler`, bypassing the SDK
 * `Server`'s tools/call wrapper, so a result can carry keys the SDK would strip (the vendor key
 * in each content block) and the proxy's "results unchanged" claim is actually exercised.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import { z } from "zod";

export interface BankCall {
  /** 1-based, across all connections. */
  readonly seq: number;
  readonly name: string;
  /** `JSON.stringify(params.arguments)` as received; undefined when absent. */
  readonly argumentsJson: string | undefined;
  /** Filled when the response is sent: the JSON of `result`, or of `error`. */
  resultJson?: string;
  errorJson?: string;
}

/** What a call returns (a result object) or throws (an McpError is sent as a JSON-RPC error). */
export type Behaviour = (
  call: { readonly name: string; readonly arguments: unknown; readonly seq: number },
  extra: {
    readonly progress: (progress: number, total?: number) => Promise<void>;
    /** Aborted when the caller cancels (notifications/cancelled) or the connection closes. */
    readonly signal: AbortSignal;
  },
) => unknown;

export interface BankOptions {
  readonly tools: readonly unknown[];
  /** Tools per tools/list page; default: everything on one page. */
  readonly pageSize?: number;
  readonly behaviour?: Behaviour;
  readonly instructions?: string;
  /** Called when a call is received and again when its response is sent. */
  readonly onCall?: (call: BankCall, phase: "received" | "answered") => void;
}

/** The default behaviour: echo the arguments, with a vendor key the SDK would strip. */
export const echoBehaviour: Behaviour = ({ name, arguments: args, seq }) => {
  const text = JSON.stringify(args ?? {});
  return {
    content: [{ type: "text", text, "x-bank": { seq, tool: name } }],
    ...(name === "report" ? { structuredContent: { ok: true, value: text } } : {}),
    _meta: { "x-bank/seq": seq },
    "x-bank-result": true,
  };
};

/** A tool that appears after the bank's tools change (root oneOf, no root type). */
export const LATE_TOOL = {
  name: "late_union",
  description: "Appears after list_changed: a root oneOf.",
  inputSchema: {
    oneOf: [
      { type: "object", properties: { on: { const: true } }, required: ["on"] },
      { type: "object", properties: { off: { const: true } }, required: ["off"] },
    ],
  },
};

/** The bank after a change: `echo` removed, `late_union` added. */
export function bankVariant(tools: readonly unknown[]): unknown[] {
  return [...tools.filter((t) => !v.is(v.object({ name: v.literal("echo") }), t)), LATE_TOOL];
}

const RawRequest = (method: string) =>
  z.object({ method: z.literal(method), params: z.unknown().optional() });
const ListParams = v.optional(v.looseObject({ cursor: v.optional(v.string()) }));
const CallParams = v.looseObject({
  name: v.string(),
  arguments: v.optional(v.unknown()),
  _meta: v.optional(
    v.looseObject({ progressToken: v.optional(v.union([v.string(), v.number()])) }),
  ),
});
const CallRequestMessage = v.looseObject({
  id: v.union([v.string(), v.number()]),
  method: v.literal("tools/call"),
  params: CallParams,
});
const ResponseMessage = v.looseObject({
  id: v.union([v.string(), v.number()]),
  result: v.optional(v.unknown()),
  error: v.optional(v.unknown()),
});

export class OperatorBank {
  readonly calls: BankCall[] = [];
  readonly #options: BankOptions;
  readonly #servers = new Set<Server>();
  #tools: readonly unknown[];
  #seq = 0;

  constructor(options: BankOptions) {
    this.#options = options;
    this.#tools = options.tools;
  }

  get tools(): readonly unknown[] {
    return this.#tools;
  }

  /** Replace the tools and tell every connected client. */
  async setTools(tools: readonly unknown[]): Promise<void> {
    this.#tools = tools;
    await Promise.allSettled([...this.#servers].map((s) => s.sendToolListChanged()));
  }

  /** A new SDK Server for one connection, with the call log tapped into `transport`. */
  async connect(transport: Transport): Promise<Server> {
    const server = new Server(
      { name: "operator-bank", version: "1.0.0" },
      {
        capabilities: { tools: { listChanged: true } },
        ...(this.#options.instructions === undefined
          ? {}
          : { instructions: this.#options.instructions }),
      },
    );
    Protocol.prototype.setRequestHandler.call(server, RawRequest("tools/list"), (request) =>
      this.#list(request.params),
    );
    // Calls by JSON-RPC id for this connection, filled by the tap before the handler runs.
    const pending = new Map<string | number, BankCall>();
    Protocol.prototype.setRequestHandler.call(server, RawRequest("tools/call"), (request, extra) =>
      this.#call(
        request.params,
        pending.get(extra.requestId)?.seq ?? 0,
        extra.signal,
        (progress, total) =>
          v.is(CallParams, request.params) && request.params._meta?.progressToken !== undefined
            ? extra.sendNotification({
                method: "notifications/progress",
                params: {
                  progressToken: request.params._meta.progressToken,
                  progress,
                  ...(total === undefined ? {} : { total }),
                },
              })
            : Promise.resolve(),
      ),
    );
    this.#servers.add(server);
    server.onclose = () => {
      this.#servers.delete(server);
    };
    await server.connect(transport);
    this.#tap(transport, pending);
    return server;
  }

  /** Record at the transport: what arrived and what went out, before and after the SDK. */
  #tap(transport: Transport, pending: Map<string | number, BankCall>): void {
    const inbound = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (v.is(CallRequestMessage, message)) {
        const args = message.params.arguments;
        const call: BankCall = {
          seq: ++this.#seq,
          name: message.params.name,
          argumentsJson: args === undefined ? undefined : JSON.stringify(args),
        };
        this.calls.push(call);
        pending.set(message.id, call);
        this.#options.onCall?.(call, "received");
      }
      inbound?.(message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      if (v.is(ResponseMessage, message)) {
        const call = pending.get(message.id);
        if (call !== undefined) {
          pending.delete(message.id);
          if (message.result !== undefined) call.resultJson = JSON.stringify(message.result);
          if (message.error !== undefined) call.errorJson = JSON.stringify(message.error);
          this.#options.onCall?.(call, "answered");
        }
      }
      return send(message, options);
    };
  }

  #list(params: unknown): unknown {
    if (!v.is(ListParams, params)) throw new McpError(ErrorCode.InvalidParams, "bad params");
    const tools = this.#tools;
    const size = this.#options.pageSize ?? tools.length;
    let start = 0;
    const cursor = params?.cursor;
    if (cursor !== undefined) {
      const m = /^page:(\d+)$/.exec(cursor);
      if (!m) throw new McpError(ErrorCode.InvalidParams, `unknown cursor ${cursor}`);
      start = Number(m[1]);
    }
    const end = Math.min(tools.length, start + Math.max(1, size));
    return {
      tools: tools.slice(start, end),
      ...(end < tools.length ? { nextCursor: `page:${end}` } : {}),
    };
  }

  async #call(
    params: unknown,
    seq: number,
    signal: AbortSignal,
    progress: (progress: number, total?: number) => Promise<void>,
  ): Promise<unknown> {
    if (!v.is(CallParams, params)) throw new McpError(ErrorCode.InvalidParams, "bad params");
    const behaviour = this.#options.behaviour ?? echoBehaviour;
    return behaviour({ name: params.name, arguments: params.arguments, seq }, { progress, signal });
  }
}
