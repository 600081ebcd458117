/**
 * `scripts/check-layers.mjs`, the `layers` step of `npm run check`: run for real on small lib/
 * trees in a throwaway root, it fails on an import from a lower layer to a higher one, on a
 * folder or file cycle, on a folder no layer names and on a light entry that reaches lib/mcp or
 * the MCP SDK; a tree whose imports point one way passes, and so does this repository.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

const ROOT = join(import.meta.dirname, "..", "..");
const SCRIPT = join(ROOT, "scripts", "check-layers.mjs");

/** Run the check on a lib/ tree of `files` (path -> source); returns exit code and lines. */
function check(files: Record<string, string>): { code: number | null; lines: string[] } {
  const root = mkdtempSync(join(tmpdir(), "grok-seat-layers-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, "lib", path)), { recursive: true });
      writeFileSync(join(root, "lib", path), text);
    }
    const r = spawnSync(process.execPath, [SCRIPT, "--root", root], { encoding: "utf8" });
    return { code: r.status, lines: r.stdout.trim().split("\n") };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const CLEAN = {
  "errors.ts": "export class E extends Error {}\n",
  "check.ts": 'import type { E } from "./errors.js";\nexport type C = E;\n',
  "kernel/index.ts": 'import { E } from "../errors.js";\nexport const k = new E();\n',
  "herdr/client.ts": 'import { E } from "../errors.js";\nexport const h = E;\n',
  "proof/pane.ts":
    'import type { C } from "../check.js";\nimport { k } from "../kernel/index.js";\nexport const p: C | typeof k = k;\n',
  "observe/pane.ts":
    'import { h } from "../herdr/client.js";\nimport { p } from "../proof/pane.js";\nexport const o = [h, p];\n',
  "index.ts": 'export { o } from "./observe/pane.js";\n// import { x } from "./mcp/proxy.js";\n',
};

/** `files` over the clean tree fail the check with `line` among its findings (all returned). */
function refusedWith(files: Record<string, string>, line: string): string[] {
  const r = check({ ...CLEAN, ...files });
  assert.is(r.code, 1);
  assert.ok(r.lines.includes(line), r.lines.join("\n"));
  return r.lines;
}

test("imports that point one way pass (a commented import is not one)", () => {
  const r = check(CLEAN);
  assert.is(r.code, 0, r.lines.join("\n"));
  assert.equal(r.lines, ["layers: 0 violation(s) in lib/"]);
});

test("a protocol folder importing proof, or proof a protocol folder, is refused", () => {
  refusedWith(
    {
      "herdr/observe.ts": 'import type { p } from "../proof/pane.js";\nexport type O = typeof p;\n',
    },
    "lib/herdr/observe.ts imports lib/proof/pane.ts: herdr may not import proof",
  );
  refusedWith(
    {
      "proof/agent.ts": 'import type { h } from "../herdr/client.js";\nexport type A = typeof h;\n',
    },
    "lib/proof/agent.ts imports lib/herdr/client.ts: proof may not import herdr",
  );
});

test("a file cycle inside one folder fails", () => {
  refusedWith(
    {
      "seat/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "seat/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
    },
    "file cycle: lib/seat/a.ts <-> lib/seat/b.ts",
  );
});

test("the root entry may not reach lib/mcp or the MCP SDK, even through another file", () => {
  const r = check({
    ...CLEAN,
    "mcp/proxy.ts":
      'import { Server } from "@modelcontextprotocol/sdk/server/index.js";\nexport const s = Server;\n',
    "entry/mcp.ts": 'export { s } from "../mcp/proxy.js";\n',
    "seat/hire.ts": 'export { s as hire } from "../entry/mcp.js";\n',
    "index.ts": 'export { hire } from "./seat/hire.js";\n',
  });
  assert.is(r.code, 1);
  assert.ok(
    r.lines.includes("lib/seat/hire.ts imports lib/entry/mcp.ts: seat may not import entry"),
  );
  assert.ok(r.lines.some((l) => l.startsWith("lib/index.ts reaches lib/mcp/proxy.ts")));
  assert.ok(r.lines.some((l) => l.startsWith("lib/index.ts reaches @modelcontextprotocol/sdk")));
});

test("the seat may load lib/mcp only lazily: a dynamic import() passes and keeps the root entry light, a static one fails", () => {
  const mcp = {
    "mcp/proxy.ts":
      'import { Server } from "@modelcontextprotocol/sdk/server/index.js";\nexport const s = Server;\n',
  };
  const lazy = check({
    ...CLEAN,
    ...mcp,
    "seat/bank.ts":
      'export const bank = async () => (await import("../mcp/proxy.js")).s;\nexport type S = Awaited<ReturnType<typeof bank>>;\n',
    "index.ts": 'export { bank } from "./seat/bank.js";\n',
  });
  assert.is(lazy.code, 0, lazy.lines.join("\n"));
  const eager = refusedWith(
    {
      ...mcp,
      "seat/bank.ts": 'import { s } from "../mcp/proxy.js";\nexport const bank = s;\n',
      "index.ts": 'export { bank } from "./seat/bank.js";\n',
    },
    "lib/seat/bank.ts imports lib/mcp/proxy.ts: seat may load mcp only lazily (import())",
  );
  assert.ok(eager.some((l) => l.startsWith("lib/index.ts reaches lib/mcp/proxy.ts")));
  // Only the seat: a protocol folder may not load lib/mcp at all, not even lazily.
  refusedWith(
    { ...mcp, "herdr/bank.ts": 'export const bank = () => import("../mcp/proxy.js");\n' },
    "lib/herdr/bank.ts imports lib/mcp/proxy.ts: herdr may not import mcp",
  );
});

test("a folder no layer names fails until it is placed", () => {
  const r = check({ ...CLEAN, "misc/util.ts": "export const u = 1;\n" });
  assert.is(r.code, 1);
  assert.ok(r.lines[0]?.startsWith("lib/misc/util.ts: its folder is not in LAYERS"));
});

test("this repository's lib/ passes", () => {
  const r = spawnSync(process.execPath, [SCRIPT], { cwd: ROOT, encoding: "utf8" });
  assert.is(r.status, 0, r.stdout);
});

test.run();
