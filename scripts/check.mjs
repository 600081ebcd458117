#!/usr/bin/env node
// `npm run check`: type-check (lib, test, scripts), lint + format (Biome), the layers of lib/
// (scripts/check-layers.mjs: imports point one way, no cycles), clang-format on native/, and a
// syntax-only compile of the macOS backend on Linux against transcribed SDK stubs
// (native/darwin/stubs/README.md), so it cannot rot between macOS CI runs.
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
const skipped = [];
const native = nativeSources("native");
// The npm clang-format package ships no darwin-arm64 binary (and Rosetta may be absent on the
// macOS runners); formatting does not depend on the OS, so the Linux run checks it.
if (native.length && process.platform === "darwin")
  skipped.push(["clang-format", "no darwin-arm64 binary in the npm package; Linux CI checks it"]);
else if (native.length)
  steps.push(["clang-format", "npx", ["clang-format", "--dry-run", "--Werror", ...native]]);

// The macOS backend, compiled for syntax on Linux: every darwin and posix source, with the flags
// of the real build plus -Werror, once with each macOS target's predefined macros. The host g++
// targets x86-64 Linux (LP64, like both macOS targets), so glibc and libstdc++ supply the standard
// headers and the stubs the Darwin ones; the arm64 pass adds arm64's macros to the host's.
const darwinSources = [...nativeSources("native/darwin"), ...nativeSources("native/posix")].filter(
  (p) => p.endsWith(".cc") && !p.includes("stubs"),
);
if (process.platform === "linux" && darwinSources.length) {
  const common = ["-fsyntax-only", "-std=c++17", "-Wall", "-Wextra", "-Werror"];
  const darwin = ["-I", "native/darwin/stubs", "-D__APPLE__", "-D__MACH__"];
  const targets = {
    arm64: ["-D__arm64__", "-D__aarch64__", "-D__LP64__"],
    x86_64: ["-D__x86_64__", "-D__LP64__"],
  };
  for (const [arch, defines] of Object.entries(targets)) {
    steps.push([
      `darwin syntax (${arch})`,
      "g++",
      [...common, ...darwin, ...defines, ...darwinSources],
    ]);
  }
} else if (darwinSources.length) {
  skipped.push([
    "darwin syntax",
    `runs on Linux; on ${process.platform} the real build compiles it`,
  ]);
}

let failed = 0;
for (const [name, cmd, args] of steps) {
  const r = spawnSync(cmd, args, { stdio: "inherit" });
  if (r.error) process.stderr.write(`check ${name}: ${cmd} could not run: ${r.error.message}\n`);
  const ok = r.status === 0;
  if (!ok) failed++;
  process.stdout.write(`check ${name}: ${ok ? "ok" : "FAILED"}\n`);
}
for (const [name, why] of skipped) process.stdout.write(`check ${name}: skipped (${why})\n`);
process.exitCode = failed ? 1 : 0;
