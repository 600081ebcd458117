/**
 * The operator's MCP bank as a seat serves it to Grok (issue 14): the projecting proxy
 * (proxy.ts: root `type: "object"` on every listed schema, every call checked against the
 * original bank before it goes upstream) connected to the bank's streamable HTTP URL with the
 * orchestrator's own headers, and served on loopback behind a fresh bearer token
 * (loopback-http.ts). Grok connects to this proxy, never to the bank: the bank's headers stay
 * here, and Grok holds only the proxy's token.
 *
 * The seat loads this module with a dynamic `import()` only for a hire with a bank
 * (docs/design/layers.md §3), so nothing else pays for the MCP SDK.
 */
import { createHash } from "node:crypto";
import { failureOf } from "../errors.js";
import { formatIssue } from "./issues.js";
import { serveLoopbackHttp } from "./loopback-http.js";
import { McpProjectionError } from "./mcp-error.js";
import { ProjectingProxy } from "./proxy.js";
import { upstreamTransport } from "./upstream.js";

export interface BankProxyOptions {
  /** The bank's streamable HTTP endpoint. */
  readonly url: URL;
  /** Sent upstream with every request (the orchestrator's auth); never shown to Grok. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Bound on connecting to the bank and listing its tools (default 30 s). */
  readonly timeoutMs?: number;
  /** Failures with no caller (a background re-list, a failed notification). */
  readonly onError?: (error: Error) => void;
  /** The bank's connection ended without `close()`. */
  readonly onUpstreamClose?: () => void;
}

/** One tool as the proxy lists it downstream: its name and its `_meta` (for visibility rules). */
export interface ListedTool {
  readonly name: string;
  readonly meta: unknown;
}

export interface BankProxy {
  /** `http://127.0.0.1:<port>/mcp`: where Grok connects. */
  readonly url: URL;
  /** What Grok must send (`Authorization: Bearer <token>`). Never written to a file or record. */
  readonly bearerToken: string;
  /** The tools listed downstream now (projected), sorted by name. */
  listed(): readonly ListedTool[];
  /** SHA-256 of the canonical JSON of the listed tools (names, schemas, everything sent). */
  toolsDigest(): string;
  /** Bank tools left out of the list, one line each (issues.ts `formatIssue`). */
  issues(): readonly string[];
  /** Live downstream MCP sessions (Grok's client, once it connected with the token). */
  sessionCount(): number;
  /** Requests refused 401 so far. */
  unauthorizedCount(): number;
  /** Stop listening, close every session and the bank connection. Idempotent. */
  close(): Promise<void>;
}

/** JSON with object keys sorted at every level: equal text iff equal JSON values. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
    const entries = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  });
}

function timeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new McpProjectionError("MCP_UPSTREAM_UNREACHABLE", `${what}: no answer in ${ms} ms`),
        ),
      ms,
    );
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/**
 * Connect to the bank, list and project its tools, then listen on loopback. Throws
 * McpProjectionError MCP_UPSTREAM_UNREACHABLE (the bank cannot be reached or listed in time, or
 * answered with something that is not a tool list) or MCP_HTTP_LISTEN; nothing stays open then.
 */
export async function startBankProxy(options: BankProxyOptions): Promise<BankProxy> {
  const ms = options.timeoutMs ?? 30_000;
  const starting = ProjectingProxy.start(
    upstreamTransport({
      kind: "url",
      url: options.url,
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    }),
    {
      ...(options.onError === undefined ? {} : { onError: options.onError }),
      ...(options.onUpstreamClose === undefined
        ? {}
        : { onUpstreamClose: options.onUpstreamClose }),
    },
  );
  let proxy: ProjectingProxy;
  try {
    proxy = await timeout(starting, ms, `the bank at ${options.url.origin}`);
  } catch (err) {
    // A start that finishes after the bound must not leave a connection behind.
    void starting.then((late) => late.close()).catch(() => {});
    if (err instanceof McpProjectionError) throw err;
    const f = failureOf(err);
    throw new McpProjectionError(
      "MCP_UPSTREAM_UNREACHABLE",
      `the bank at ${options.url.origin} cannot be listed: ${f?.message ?? String(err)}`,
      { cause: err, details: { origin: options.url.origin } },
    );
  }
  let http: Awaited<ReturnType<typeof serveLoopbackHttp>>;
  try {
    http = await serveLoopbackHttp({
      connect: (transport) => proxy.createServer().connect(transport),
    });
  } catch (err) {
    await proxy.close().catch(() => {});
    throw err;
  }
  let closing: Promise<void> | undefined;
  const listed = (): ListedTool[] =>
    proxy.snapshot.listed
      .map((t) => ({ name: t.name, meta: t._meta ?? null }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    url: http.url,
    bearerToken: http.bearerToken,
    listed,
    toolsDigest: () =>
      createHash("sha256")
        .update(
          canonicalJson([...proxy.snapshot.listed].sort((a, b) => (a.name < b.name ? -1 : 1))),
        )
        .digest("hex"),
    issues: () => proxy.snapshot.issues.map(formatIssue),
    sessionCount: () => http.sessionCount(),
    unauthorizedCount: () => http.unauthorizedCount(),
    close() {
      closing ??= (async () => {
        await http.close().catch(() => {});
        await proxy.close().catch(() => {});
      })();
      return closing;
    },
  };
}
