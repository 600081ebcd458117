#!/usr/bin/env node
/**
 * `grok-seat-mcp-proxy` (the package's bin; this file): run the projecting proxy as a process.
 *
 *   grok-seat-mcp-proxy [options] -- <upstream command> [args...]   upstream on stdio
 *   grok-seat-mcp-proxy [options] --upstream-url <http(s) URL>      upstream over streamable HTTP
 *
 * Downstream is stdio (this process's stdin/stdout) unless `--http <port>` (streamable HTTP on
 * 127.0.0.1:<port>, 0 = any free port) or `--unix <path>` (the same on a unix socket, 0600) is
 * given; the line `mcp-projection: listening <url>` on stderr says where. Over HTTP every request
 * must carry `Authorization: Bearer <token>` (loopback-http.ts): the token is read from the
 * environment variable named by `--bearer-env VAR` (at least 32 characters; nothing secret is
 * printed), else a fresh one is made and printed once on stderr as
 * `mcp-projection: bearer <token>` for whoever configures the client (stderr is then a secret:
 * keep it in a pipe or a private file). Never on the command line: argv is public.
 *
 * `--upstream-header 'Name: value'` (repeatable) is sent upstream with every request; prefer
 * `--upstream-header-env 'Name=VAR'` for a secret (argv is readable by every local user).
 * stdout carries only MCP in stdio mode; issues and errors go to stderr, one line each. Exit: 0
 * after a clean shutdown (stdin closed, SIGINT, SIGTERM), 1 when the upstream cannot be reached
 * or listed or its connection ends, 2 on a usage error.
 */
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as v from "valibot";
import { formatIssue } from "./issues.js";
import { serveLoopbackHttp } from "./loopback-http.js";
import { McpProjectionError } from "./mcp-error.js";
import { ProjectingProxy } from "./proxy.js";
import { type UpstreamSpec, upstreamTransport } from "./upstream.js";

const USAGE =
  "usage: grok-seat-mcp-proxy [--http PORT | --unix PATH] [--bearer-env VAR] " +
  "[--invalid-arguments tool-error|protocol-error] [--original-in-meta] [--call-timeout-ms MS] " +
  "(--upstream-url URL [--upstream-header 'NAME: VALUE']... [--upstream-header-env NAME=VAR]... " +
  "| -- COMMAND [ARG...])";

const Port = v.pipe(
  v.string(),
  v.regex(/^[0-9]{1,5}$/, "a port number"),
  v.transform(Number),
  v.maxValue(65535),
);
const Millis = v.pipe(
  v.string(),
  v.regex(/^[1-9][0-9]*$/, "a positive integer"),
  v.transform(Number),
);
const HttpUrl = v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//i, "an http(s) URL"));
const Mode = v.picklist(["tool-error", "protocol-error"], "tool-error or protocol-error");
const EnvName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"),
);
/** An HTTP field name (RFC 9110 token) and a value without line breaks. */
const Header = v.pipe(v.string(), v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*$/, "NAME: VALUE"));
const HeaderEnv = v.pipe(
  v.string(),
  v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+=[A-Za-z_][A-Za-z0-9_]*$/, "NAME=VAR"),
);

type Listen =
  | { readonly kind: "stdio" }
  | { readonly kind: "http"; readonly port: number }
  | { readonly kind: "unix"; readonly path: string };

interface Cli {
  readonly upstream: UpstreamSpec;
  readonly listen: Listen;
  /** The bearer token from `--bearer-env`, or undefined for a fresh one. */
  readonly bearerToken: string | undefined;
  readonly invalidArguments: "tool-error" | "protocol-error";
  readonly originalInMeta: boolean;
  readonly callTimeoutMs: number | undefined;
}

const OPTIONS = {
  http: { type: "string" },
  unix: { type: "string" },
  "bearer-env": { type: "string" },
  "upstream-url": { type: "string" },
  "upstream-header": { type: "string", multiple: true },
  "upstream-header-env": { type: "string", multiple: true },
  "invalid-arguments": { type: "string" },
  "original-in-meta": { type: "boolean" },
  "call-timeout-ms": { type: "string" },
} as const;

function rawArgs(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
}

class CliError extends Error {}

/** Check one flag value with valibot; a failure names the flag. */
function flag<T>(schema: v.GenericSchema<string, T>, value: string, name: string): T {
  const r = v.safeParse(schema, value);
  if (!r.success) throw new CliError(`${name}: expected ${v.summarize(r.issues)}`);
  return r.output;
}

function parseCli(argv: readonly string[]): Cli {
  let parsed: ReturnType<typeof rawArgs>;
  try {
    parsed = rawArgs(argv);
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  let upstream: UpstreamSpec;
  const url = values["upstream-url"];
  const literal = values["upstream-header"] ?? [];
  const fromEnv = values["upstream-header-env"] ?? [];
  if (url !== undefined) {
    if (positionals.length > 0)
      throw new CliError("give either --upstream-url or a command, not both");
    const headers: Record<string, string> = {};
    for (const h of literal) {
      const text = flag(Header, h, "--upstream-header");
      const colon = text.indexOf(":");
      headers[text.slice(0, colon)] = text.slice(colon + 1).trim();
    }
    for (const h of fromEnv) {
      const text = flag(HeaderEnv, h, "--upstream-header-env");
      const eq = text.indexOf("=");
      const name = text.slice(eq + 1);
      const value = process.env[name];
      if (value === undefined || /[\r\n]/.test(value))
        throw new CliError(`--upstream-header-env: ${name} is not set (or holds a line break)`);
      headers[text.slice(0, eq)] = value;
    }
    upstream = {
      kind: "url",
      url: new URL(flag(HttpUrl, url, "--upstream-url")),
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
    };
  } else {
    if (literal.length > 0 || fromEnv.length > 0)
      throw new CliError("upstream headers need --upstream-url");
    const [command, ...args] = positionals;
    if (command === undefined) throw new CliError("no upstream: give --upstream-url or -- COMMAND");
    upstream = { kind: "command", command, args };
  }
  const timeout = values["call-timeout-ms"];
  if (values.http !== undefined && values.unix !== undefined)
    throw new CliError("give either --http or --unix, not both");
  const listen: Listen =
    values.http !== undefined
      ? { kind: "http", port: flag(Port, values.http, "--http") }
      : values.unix !== undefined
        ? { kind: "unix", path: values.unix }
        : { kind: "stdio" };
  let bearerToken: string | undefined;
  const bearerEnv = values["bearer-env"];
  if (bearerEnv !== undefined) {
    if (listen.kind === "stdio") throw new CliError("--bearer-env needs --http or --unix");
    const name = flag(EnvName, bearerEnv, "--bearer-env");
    bearerToken = process.env[name];
    if (bearerToken === undefined || bearerToken === "")
      throw new CliError(`--bearer-env: ${name} is not set`);
  }
  return {
    upstream,
    listen,
    bearerToken,
    invalidArguments: flag(
      Mode,
      values["invalid-arguments"] ?? "tool-error",
      "--invalid-arguments",
    ),
    originalInMeta: values["original-in-meta"] === true,
    callTimeoutMs: timeout === undefined ? undefined : flag(Millis, timeout, "--call-timeout-ms"),
  };
}

function log(line: string): void {
  process.stderr.write(`mcp-projection: ${line}\n`);
}

async function main(): Promise<void> {
  let cli: Cli;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    log(err.message);
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
    return;
  }

  let stopping = false;
  let stopHttp: (() => Promise<void>) | undefined;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await stopHttp?.().catch(() => {});
    await proxy?.close().catch(() => {});
    // Nothing else should hold the loop; stdin may still be referenced in stdio mode.
    process.stdin.destroy();
  };
  let proxy: ProjectingProxy | undefined;
  try {
    proxy = await ProjectingProxy.start(upstreamTransport(cli.upstream), {
      invalidArguments: cli.invalidArguments,
      originalInMeta: cli.originalInMeta,
      ...(cli.callTimeoutMs === undefined ? {} : { callTimeoutMs: cli.callTimeoutMs }),
      onIssues: (issues) => {
        for (const issue of issues) log(`not listed: ${formatIssue(issue)}`);
      },
      onError: (err) => log(`error: ${err.message}`),
      // Without its upstream the proxy can only refuse; end, so the client sees the server gone.
      onUpstreamClose: () => {
        log("upstream closed");
        process.exitCode = 1;
        void stop();
      },
    });
  } catch (err) {
    log(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
    return;
  }
  const { listed, issues } = proxy.snapshot;
  log(`${listed.length} tools listed, ${issues.length} not listed`);

  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());

  if (cli.listen.kind === "stdio") {
    const server = proxy.createServer();
    // StdioServerTransport does not watch for end of input (server/stdio.js); we do.
    process.stdin.once("end", () => void stop());
    process.stdin.once("close", () => void stop());
    await server.connect(new StdioServerTransport());
    return;
  }
  let http: Awaited<ReturnType<typeof serveLoopbackHttp>>;
  try {
    http = await serveLoopbackHttp({
      ...(cli.listen.kind === "http" ? { port: cli.listen.port } : { socketPath: cli.listen.path }),
      ...(cli.bearerToken === undefined ? {} : { bearerToken: cli.bearerToken }),
      connect: (transport) => proxy.createServer().connect(transport),
    });
  } catch (err) {
    log(`cannot listen: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = cli.bearerToken !== undefined && isTokenError(err) ? 2 : 1;
    await stop();
    return;
  }
  stopHttp = () => http.close();
  log(
    `listening ${http.socketPath === null ? http.url.href : `${http.url.href} on ${http.socketPath}`}`,
  );
  if (cli.bearerToken === undefined) log(`bearer ${http.bearerToken}`);
}

function isTokenError(err: unknown): boolean {
  return err instanceof McpProjectionError && err.code === "MCP_HTTP_TOKEN_INVALID";
}

await main();
