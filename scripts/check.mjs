#!/usr/bin/env node
// `npm run check`: type-check (lib, test, scripts), lint + format (Biome), the layers of lib/
// (scripts/check-layers.mjs: imports point one way, no cycles), clang-format on native/.
// Every step runs; the exit code is non-zero when any step failed.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function nativeSources(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return nativeSources(p);
    return /\.(h|cc|mm)$/.test(name) ? [p] : [];
  });
}

const steps = [
  ["typecheck", "npx", ["tsc", "-p", "tsconfig.test.json"]],
  ["biome", "npx", ["biome", "ci", "--colors=off", "."]],
  ["layers", "node", ["scripts/check-layers.mjs"]],
];
// The README's Guarantees and figures sections must be what their JSON sources generate.
if (existsSync("docs/guarantees.json"))
  steps.push(["guarantees", "node", ["--import", "tsx", "scripts/guarantees.ts", "--check"]]);
if (existsSync("docs/bench.json"))
  steps.push(["figures", "node", ["--import", "tsx", "scripts/figures.ts", "--check"]]);
const native = nativeSources("native");
if (native.length)
  steps.push(["clang-format", "npx", ["clang-format", "--dry-run", "--Werror", ...native]]);

let failed = 0;
for (const [name, cmd, args] of steps) {
  const r = spawnSync(cmd, args, { stdio: "inherit" });
  const ok = r.status === 0;
  if (!ok) failed++;
  process.stdout.write(`check ${name}: ${ok ? "ok" : "FAILED"}\n`);
}
process.exitCode = failed ? 1 : 0;
