// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * What an entry loads, traced by the module loader itself (scripts/lib/module-trace.mjs in a
 * child node process): the root entry, a whole hire() without an MCP bank, and the verify-proof
 * CLI never load the MCP SDK or lib/mcp (the SDK's ~94 packages are the MCP proxy's alone; README
 * "Entry points"). The control: the grok-seat/mcp entry does load it, so the trace can see it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { withStack } from "./stack.js";

const root = join(import.meta.dirname, "..", "..");
const MCP = /\/node_modules\/@modelcontextprotocol\/|\/lib\/mcp\//;

/** Run `node --import module-trace --import tsx <args>`; the URLs it resolved, and its stdout. */
function traced(args: string[]): { urls: string[]; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), "load-trace-"));
  const out = join(dir, "trace");
  try {
    const stdout = execFileSync(
      process.execPath,
      ["--import", "./scripts/lib/module-trace.mjs", "--import", "tsx", ...args],
      {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, GROK_SEAT_MODULE_TRACE: out },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    return { urls: readFileSync(out, "utf8").split("\n").filter(Boolean), stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function importOf(entry: string): string[] {
  return traced(["--input-type=module", "-e", `await import(${JSON.stringify(entry)})`]).urls;
}

test("control: importing grok-seat/mcp loads the MCP SDK, and the trace sees it", () => {
  const urls = importOf("./lib/entry/mcp.ts");
  assert.ok(
    urls.some((u) => u.includes("/node_modules/@modelcontextprotocol/sdk/")),
    "the SDK is in the trace",
  );
});

test("importing the root entry loads neither the MCP SDK nor lib/mcp", () => {
  const urls = importOf("./lib/index.ts");
  assert.ok(
    urls.some((u) => u.endsWith("/lib/seat/hire.ts")),
    "the trace saw the root entry's files",
  );
  assert.equal(
    urls.filter((u) => MCP.test(u)),
    [],
  );
});

/** Our files among the URLs, relative to lib/ (e.g. "seat/seat.ts"). */
function ours(urls: readonly string[]): string[] {
  const lib = `file://${join(root, "lib")}/`;
  return [...new Set(urls.filter((u) => u.startsWith(lib)).map((u) => u.slice(lib.length)))];
}

test("importing the root entry loads only what its exports need at import (issue 19)", () => {
  const loaded = ours(importOf("./lib/index.ts"));
  assert.ok(loaded.includes("seat/seat-record.ts"), "the trace saw the root entry's files");
  // Each of these reaches far (the whole kernel layer, the pane proof's checks, the version
  // probe, release's I/O, the hire flow) and is loaded by the first call that uses it.
  const heavy = [
    "kernel/index.ts",
    "kernel/port.ts",
    "proof/pane.ts",
    "grok/version.ts",
    "seat/release.ts",
    "seat/profile.ts",
    "seat/hire-flow.ts",
  ];
  assert.equal(
    loaded.filter((f) => heavy.includes(f)),
    [],
  );
  // 62 before issue 19's cut, 38 after, 41 with the ready seat's persona and bank watch
  // (seat-watch.ts, grok/persona.ts, grok/session-files.ts): a new import that pulls a layer in
  // shows here.
  assert.ok(loaded.length <= 42, `${loaded.length} of our modules: ${loaded.sort().join(", ")}`);
});

test("verify-proof process <pid> loads neither the MCP SDK nor lib/mcp", () => {
  const { urls, stdout } = traced(["lib/cli/verify-proof.ts", "process", String(process.pid)]);
  assert.ok(stdout.includes(String(process.pid)), stdout);
  assert.equal(
    urls.filter((u) => MCP.test(u)),
    [],
  );
});

test("verify-proof process <pid> loads its one kernel call, not the kernel layer (issue 19)", () => {
  const { urls, stdout } = traced(["lib/cli/verify-proof.ts", "process", String(process.pid)]);
  assert.ok(stdout.includes(String(process.pid)), stdout);
  const loaded = ours(urls);
  assert.ok(loaded.includes("kernel/process.ts"), "the trace saw the kernel call load");
  assert.equal(
    loaded.filter((f) => f === "kernel/index.ts" || f === "kernel/port.ts"),
    [],
  );
  // 28 before issue 19's cut, 17 after.
  assert.ok(loaded.length <= 18, `${loaded.length} of our modules: ${loaded.sort().join(", ")}`);
});

test("a whole hire() without an MCP bank, and its release, never load the MCP SDK", () =>
  withStack(async (stack) => {
    const { onProgress: _drop, ...options } = stack.options();
    const { urls, stdout } = traced(["test/seat/fixtures/hire-traced.ts", JSON.stringify(options)]);
    assert.match(stdout, /^HIRED \d+$/m);
    assert.ok(
      urls.some((u) => u.endsWith("/lib/seat/steps/ready.ts")),
      "the trace saw the hire's steps load",
    );
    assert.equal(
      urls.filter((u) => MCP.test(u)),
      [],
    );
  }));

test.run();
