#!/usr/bin/env node
// `npm run check` step "layers": the imports of lib/ point one way (docs/design/layers.md).
// It reads every import line of lib/ (static, `export … from`, dynamic `import()`; type-only
// imports count too) and fails when
//   - a file imports a folder its layer may not use (below: LAYERS, lowest first), or imports
//     statically a folder its layer may load only lazily (`lazy`: a dynamic `import()` only);
//   - the folders, or the files, of lib/ import each other in a cycle;
//   - an entry point that must stay light statically reaches lib/mcp or the MCP SDK
//     (LIGHT_ENTRIES; a dynamic `import()` is where loading stops being its import's doing).
// A new folder must be added to LAYERS: an unknown folder fails the check.
//
// Usage: node scripts/check-layers.mjs [--root DIR]    exit 0 clean, 1 violations, 2 usage
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The layers, lowest first, and what each may import besides its own folder. "base" is the three
 * files at the root of lib/ (errors.ts, json.ts, check.ts); "entry" is lib/index.ts and lib/entry/.
 * `lazy`: folders a layer may reach only through a dynamic `import()`, so what it loads is loaded
 * only when that code runs (the seat loads lib/mcp and the MCP SDK only for a hire with a bank).
 */
export const LAYERS = [
  { name: "base", may: [] },
  { name: "kernel", may: ["base"] },
  { name: "proof", may: ["base", "kernel"] },
  { name: "delivery", may: ["base", "kernel"] },
  { name: "leader", may: ["base", "kernel"] },
  { name: "herdr", may: ["base"] },
  { name: "mcp", may: ["base"] },
  { name: "grok", may: ["base", "kernel", "leader"] },
  { name: "acp", may: ["base", "delivery", "leader", "grok"] },
  { name: "observe", may: ["base", "kernel", "leader", "herdr", "grok", "proof"] },
  {
    name: "seat",
    may: ["base", "kernel", "delivery", "leader", "herdr", "grok", "acp", "proof", "observe"],
    lazy: ["mcp"],
  },
  {
    name: "cli",
    may: ["base", "kernel", "leader", "herdr", "grok", "proof", "observe", "seat"],
  },
  {
    name: "entry",
    may: [
      "base",
      "kernel",
      "delivery",
      "leader",
      "herdr",
      "mcp",
      "grok",
      "acp",
      "proof",
      "observe",
      "seat",
    ],
  },
];

/** Entry points that must never load lib/mcp or the MCP SDK, not even through another file. */
export const LIGHT_ENTRIES = ["lib/index.ts", "lib/cli/verify-proof.ts"];
const HEAVY_PACKAGE = /^@modelcontextprotocol\//;
const BASE_FILES = new Set(["errors.ts", "json.ts", "check.ts"]);

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return name.endsWith(".ts") ? [p] : [];
  });
}

/** The layer of a file under lib/ (a path relative to lib/), or null when no layer names it. */
export function layerOf(file) {
  const parts = file.split("/");
  if (parts.length === 1) {
    if (BASE_FILES.has(parts[0])) return "base";
    return parts[0] === "index.ts" ? "entry" : null;
  }
  const folder = parts[0];
  if (folder === "entry") return "entry";
  return LAYERS.some((l) => l.name === folder) ? folder : null;
}

// `import x from "y"`, `import type {…} from "y"`, `export … from "y"`, `import "y"`, `import("y")`.
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The specifiers a source file imports. Comments are blanked first (a `// import x` is not one). */
export function importsOf(source) {
  return importsWithKind(source).map((i) => i.spec);
}

/** Each import of a source file with whether it is a dynamic `import()`. */
export function importsWithKind(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'\\])\/\/.*$/gm, "$1");
  const out = [];
  for (const m of code.matchAll(IMPORT))
    out.push(m[1] !== undefined ? { spec: m[1], dynamic: false } : { spec: m[2], dynamic: true });
  return out;
}

/** Strongly connected components with more than one node (Tarjan), each sorted. */
export function cycles(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) found.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

/** Every violation in the lib/ folder under `root`, as one line each. */
export function checkLayers(root) {
  const lib = join(root, "lib");
  const problems = [];
  const may = new Map(LAYERS.map((l) => [l.name, new Set(l.may)]));
  const lazy = new Map(LAYERS.map((l) => [l.name, new Set(l.lazy ?? [])]));
  // The declared layers themselves must not allow a cycle (a lazy edge is an edge too).
  const declared = new Map(LAYERS.map((l) => [l.name, [...l.may, ...(l.lazy ?? [])]]));
  for (const c of cycles(declared)) problems.push(`LAYERS allows a cycle: ${c.join(" -> ")}`);

  const files = walk(lib).map((f) => relative(lib, f));
  const fileGraph = new Map();
  /** Static edges only: what loading a file loads. */
  const loadGraph = new Map();
  const folderGraph = new Map();
  const packages = new Map();
  for (const file of files) {
    const layer = layerOf(file);
    if (layer === null) {
      problems.push(`lib/${file}: its folder is not in LAYERS (scripts/check-layers.mjs)`);
      continue;
    }
    const edges = new Set();
    const loads = new Set();
    const pkgs = [];
    for (const { spec, dynamic } of importsWithKind(readFileSync(join(lib, file), "utf8"))) {
      if (!spec.startsWith(".")) {
        if (!dynamic) pkgs.push(spec);
        continue;
      }
      const abs = resolve(dirname(join(lib, file)), spec).replace(/\.js$/, ".ts");
      const target = relative(lib, abs);
      if (target.startsWith("..")) {
        problems.push(`lib/${file} imports ${spec}, outside lib/`);
        continue;
      }
      if (!existsSync(abs)) {
        problems.push(`lib/${file} imports ${spec}, which does not exist`);
        continue;
      }
      edges.add(target);
      if (!dynamic) loads.add(target);
      const to = layerOf(target);
      if (to === null || to === layer) continue;
      if (!folderGraph.has(layer)) folderGraph.set(layer, new Set());
      folderGraph.get(layer).add(to);
      if (lazy.get(layer)?.has(to)) {
        if (!dynamic)
          problems.push(
            `lib/${file} imports lib/${target}: ${layer} may load ${to} only lazily (import())`,
          );
      } else if (!may.get(layer)?.has(to)) {
        problems.push(`lib/${file} imports lib/${target}: ${layer} may not import ${to}`);
      }
    }
    fileGraph.set(file, [...edges]);
    loadGraph.set(file, [...loads]);
    packages.set(file, pkgs);
  }
  const folders = new Map([...folderGraph].map(([k, v]) => [k, [...v]]));
  for (const c of cycles(folders)) problems.push(`folder cycle: ${c.join(" <-> ")}`);
  for (const c of cycles(fileGraph))
    problems.push(`file cycle: ${c.map((f) => `lib/${f}`).join(" <-> ")}`);

  for (const entry of LIGHT_ENTRIES) {
    const start = relative(lib, join(root, entry));
    if (!fileGraph.has(start)) continue;
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0) {
      const f = queue.shift();
      if (layerOf(f) === "mcp")
        problems.push(`${entry} reaches lib/${f} (lib/mcp is never loaded by it)`);
      for (const p of packages.get(f) ?? []) {
        if (HEAVY_PACKAGE.test(p)) problems.push(`${entry} reaches ${p} through lib/${f}`);
      }
      for (const next of loadGraph.get(f) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  let root = process.cwd();
  if (args[0] === "--root" && args[1] !== undefined) root = resolve(args[1]);
  else if (args.length > 0) {
    process.stderr.write("usage: node scripts/check-layers.mjs [--root DIR]\n");
    process.exit(2);
  }
  const problems = checkLayers(root);
  for (const p of problems) process.stdout.write(`${p}\n`);
  process.stdout.write(`layers: ${problems.length} violation(s) in lib/\n`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
