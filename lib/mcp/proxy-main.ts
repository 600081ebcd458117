#!/usr/bin/env node
/**
 * `grok-seat-mcp-proxy` (the package's bin; this file): run the projecting proxy as a process.
 *
 *   grok-seat-mcp-proxy [options] -- <upstream command> [args...]   upstream on stdio
 *   grok-seat-mcp-proxy [options] --upstream-url <http(s) URL>      upstream over streamable HTTP
 *
 * Downstream is stdio (this process's stdin/stdout) unless `--http <port>` is given; then it is
 * streamable HTTP on 127.0.0.1:<port> (0 = any free port), and the line
 * `mcp-projection: listening <url>` on stderr says where. stdout carries only MCP in stdio mode;
 * issues and errors go to stderr, one line each. Exit: 0 after a clean shutdown (stdin closed,
 * SIGINT, SIGTERM), 1 when the upstream cannot be reached or listed or its connection ends,
 * 2 on a usage error.
 */
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as v from "valibot";
import { formatIssue } from "./issues.js";
import { serveLoopbackHttp } from "./loopback-http.js";
import { ProjectingProxy } from "./proxy.js";
import { type UpstreamSpec, upstreamTransport } from "./upstream.js";

const USAGE =
  "usage: grok-seat-mcp-proxy [--http PORT] [--invalid-arguments tool-error|protocol-error] " +
  "[--original-in-meta] [--call-timeout-ms MS] (--upstream-url URL | -- COMMAND [ARG...])";

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

interface Cli {
  readonly upstream: UpstreamSpec;
  readonly httpPort: number | undefined;
  readonly invalidArguments: "tool-error" | "protocol-error";
  readonly originalInMeta: boolean;
  readonly callTimeoutMs: number | undefined;
}

const OPTIONS = {
  http: { type: "string" },
  "upstream-url": { type: "string" },
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
  if (url !== undefined) {
    if (positionals.length > 0)
      throw new CliError("give either --upstream-url or a command, not both");
    upstream = { kind: "url", url: new URL(flag(HttpUrl, url, "--upstream-url")) };
  } else {
    const [command, ...args] = positionals;
    if (command === undefined) throw new CliError("no upstream: give --upstream-url or -- COMMAND");
    upstream = { kind: "command", command, args };
  }
  const timeout = values["call-timeout-ms"];
  return {
    upstream,
    httpPort: values.http === undefined ? undefined : flag(Port, values.http, "--http"),
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

  if (cli.httpPort === undefined) {
    const server = proxy.createServer();
    // StdioServerTransport does not watch for end of input (server/stdio.js); we do.
    process.stdin.once("end", () => void stop());
    process.stdin.once("close", () => void stop());
    await server.connect(new StdioServerTransport());
    return;
  }
  const http = await serveLoopbackHttp({
    port: cli.httpPort,
    connect: (transport) => proxy.createServer().connect(transport),
  });
  stopHttp = () => http.close();
  log(`listening ${http.url.href}`);
}

await main();
