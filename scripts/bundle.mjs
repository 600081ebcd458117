#!/usr/bin/env node
// `npm run build:ts`, second half: after tsc has written dist/, esbuild bundles the package's entry
// points (the `exports` and `bin` of package.json) into dist/ in place, with code splitting, so
// every module exists once, in a shared chunk under dist/chunks/, however many entries reach it.
//
// Why: Node's ES module loader costs about half a millisecond of CPU per module it resolves and
// links, and the root entry reached 41 of our modules plus valibot's 200 KB; bundled, it loads
// about 16 files and only the valibot functions it calls (issue 19, scripts/bench/startup.bench.ts).
// Dynamic imports stay dynamic (the ACP and MCP SDKs load only when a hire needs them), and the
// other dependencies stay external: they are installed beside us and shared with the caller.
// tsc's per-module .js files that no entry needs any more are removed; its .d.ts files stay.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const dist = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

const entries = new Set();
for (const target of Object.values(pkg.exports)) {
  const file = typeof target === "string" ? target : target.default;
  if (file.endsWith(".js")) entries.add(resolve(root, file)); // not "./package.json"
}
for (const bin of Object.values(pkg.bin)) entries.add(resolve(root, bin));

// valibot is bundled: it is written to be tree-shaken, and we call a small part of it.
const external = Object.keys(pkg.dependencies).filter((name) => name !== "valibot");

const result = await build({
  entryPoints: [...entries],
  outdir: dist,
  outbase: dist,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: true,
  external,
  metafile: true,
  logLevel: "warning",
});

const outputs = new Set(Object.keys(result.metafile.outputs).map((p) => resolve(root, p)));
function prune(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) prune(path);
    else if (/\.js(\.map)?$/.test(entry.name) && !outputs.has(path)) rmSync(path);
  }
}
prune(dist);
const files = [...outputs].filter((p) => p.endsWith(".js"));
process.stdout.write(
  `bundle: ${entries.size} entries, ${files.length} files in ${relative(root, dist)}/\n`,
);
