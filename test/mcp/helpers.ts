/** Shared helpers for the MCP tests (not a test file: the runner only picks up *.test.ts). */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import * as assert from "uvu/assert";
import { z } from "zod";
import type { SchemaRewrite } from "../../lib/mcp/project.js";
import { poll } from "../helpers/poll.js";

/** Freeze a JSON value all the way down, so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) deepFreeze(Reflect.get(value, key));
    Object.freeze(value);
  }
  return value;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * Undo the documented rewrites of a projected schema: the result must deep-equal the original.
 * Built with Object.fromEntries and spread so a "__proto__" key stays an own key.
 */
export function undoRewrites(projected: unknown, rewrites: readonly SchemaRewrite[]): unknown {
  if (rewrites.some((r) => r.kind === "root-true-expanded")) return true;
  if (!isPlainObject(projected)) return projected;
  let out: Record<string, unknown> = { ...projected };
  for (const r of rewrites) {
    if (r.kind === "root-type-added") {
      const { type: _added, ...rest } = out;
      out = rest;
    } else if (r.kind === "root-type-narrowed" || r.kind === "root-type-inert-replaced")
      out = { ...out, type: r.from };
    else if (r.kind === "property-boolean-expanded") {
      const key = r.pointer
        .replace(/^\/properties\//, "")
        .replace(/~1/g, "/")
        .replace(/~0/g, "~");
      const props = out.properties;
      if (isPlainObject(props))
        out = {
          ...out,
          properties: Object.fromEntries(
            Object.keys(props).map((k) => [k, k === key ? r.from : props[k]]),
          ),
        };
    }
  }
  return out;
}

/** Canonical JSON with sorted keys: equal iff the values are deep-equal JSON. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isPlainObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/** Poll until `check` returns a value other than undefined, or fail after `timeoutMs`. */
export function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  return poll(what, check, timeoutMs, 25);
}

/** True when `err` is one of our errors with this code (tests assert codes, never text). */
export { isErrorCode as isGrokSeatErrorCode } from "../../lib/errors.js";

/**
 * The official client refuses the raw bank's list (schemas that are not objects) while the raw
 * `tools/list` answer holds all `tools` of it.
 */
export async function rawListFails(client: Client, tools: number): Promise<void> {
  let rejected: unknown;
  await client.listTools().catch((err: unknown) => {
    rejected = err;
  });
  assert.ok(rejected instanceof Error, "listTools must fail on the raw bank");
  const raw = await client.request(
    { method: "tools/list" },
    z.object({ tools: z.array(z.unknown()) }),
  );
  assert.is(raw.tools.length, tools);
}

const PROXY_MAIN = fileURLToPath(new URL("../../lib/mcp/proxy-main.ts", import.meta.url));

/**
 * The proxy CLI over HTTP on a free loopback port, behind the bearer token in $PROXY_TOKEN and
 * forwarding to `upstream` (`args` appends options, `env` adds variables); resolves once it
 * prints where it listens (or kills it and fails), with its stderr so far.
 */
export async function startHttpProxy(
  upstream: string,
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<{ child: ChildProcess; url: URL; stderr(): string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      PROXY_MAIN,
      "--http",
      "0",
      "--bearer-env",
      "PROXY_TOKEN",
      "--upstream-url",
      upstream,
      ...args,
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } },
  );
  let text = "";
  child.stderr?.on("data", (c: Buffer) => {
    text += c.toString("utf8");
  });
  try {
    const url = await waitFor(
      "the proxy to listen",
      () => /mcp-projection: listening (\S+)/.exec(text)?.[1],
      20_000,
    );
    return { child, url: new URL(url), stderr: () => text };
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
}

/** True while a process with this pid exists (signal 0 probes without signalling). */
export { isAlive as alive } from "../sim/grok/pid.js";

/**
 * The kernel's view of TCP listeners on `port` (Linux /proc/net/tcp and tcp6): the local
 * addresses, as `a.b.c.d` for IPv4 and the raw hex for IPv6. `undefined` where there is no
 * procfs (macOS), so callers can skip with a printed reason.
 */
export function listenersOnPort(port: number): string[] | undefined {
  const out: string[] = [];
  let any = false;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
      any = true;
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      if (local === undefined || cols[3] !== "0A") continue; // 0A = TCP_LISTEN
      const [hexAddr, hexPort] = local.split(":");
      if (hexAddr === undefined || Number.parseInt(hexPort ?? "", 16) !== port) continue;
      out.push(
        hexAddr.length === 8
          ? [3, 2, 1, 0].map((i) => Number.parseInt(hexAddr.slice(i * 2, i * 2 + 2), 16)).join(".")
          : hexAddr,
      );
    }
  }
  return any ? out : undefined;
}
