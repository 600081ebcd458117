#!/usr/bin/env node
// Test runner: runs every test/**/*.test.ts file in its own uvu process (node --import tsx, ESM,
// top-level await allowed; see docs/design/acp-mcp-toolchain.md §5), a few at a time, and
// ends with the one line CI reads: "N passed, N failed". It exits non-zero on any failed
// assertion, on a file that crashes, hangs or exits without uvu's totals, and when no test ran.
//
// Usage: node scripts/test.mjs [filter ...] [--jobs N] [--timeout SECONDS]
//   filter: a substring of the test file path (e.g. "test/kernel" or "frame-codec").
//
// A test file that can only run on some platforms says so on its first line:
//   // @platform linux: <why>
// On any other platform the runner does not start it, prints "SKIP <file> (<platform>): <why>"
// and counts it as skipped — the reason is always printed, never silent.
//
// A test file that must hold under several Herdr versions says so in its leading comment lines:
//   // @herdr-presets: 0.8.0, 0.9.3
// The runner then runs it once per preset, with HERDR_SIM_PRESET set (the Herdr simulator's
// version for every simulator the file starts without naming one), and names the preset in its
// report: "test/x.test.ts [herdr 0.9.3]".
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const uvuBin = join(root, "node_modules", "uvu", "bin.js");

function parseArgs(argv) {
  const filters = [];
  let jobs = Number(process.env.TEST_JOBS) || Math.min(2, availableParallelism());
  let timeoutS = Number(process.env.TEST_FILE_TIMEOUT) || 900;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--jobs") jobs = Number(argv[++i]);
    else if (a === "--timeout") timeoutS = Number(argv[++i]);
    else filters.push(a.replace(/\\/g, "/"));
  }
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error("--jobs must be a positive integer");
  if (!(timeoutS > 0)) throw new Error("--timeout must be a positive number of seconds");
  return { filters, jobs, timeoutS };
}

function discover(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...discover(p));
    else if (name.endsWith(".test.ts")) out.push(p);
  }
  return out.sort();
}

/** The platforms a file declares on its first line, with the reason; null when it runs anywhere. */
function platformRequirement(file) {
  const first = readFileSync(join(root, file), "utf8").split("\n", 1)[0] ?? "";
  const m = /^\/\/\s*@platform\s+([a-z,\s]+?)\s*:\s*(.+)$/.exec(first);
  if (!m) return null;
  return { platforms: m[1].split(",").map((x) => x.trim()), reason: m[2].trim() };
}

/** The Herdr presets a file asks to run under (`// @herdr-presets: a, b`), or null. */
function herdrPresets(file) {
  const lines = readFileSync(join(root, file), "utf8").split("\n", 12);
  for (const line of lines) {
    if (!line.startsWith("//")) break;
    const m = /^\/\/\s*@herdr-presets\s*:\s*(.+)$/.exec(line);
    if (m)
      return m[1]
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x !== "");
  }
  return null;
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One run of a file: `preset` is a Herdr preset to run it under, or null. */
function runFile({ file, preset }, timeoutS) {
  return new Promise((done) => {
    const started = Date.now();
    const env = { ...process.env, NO_COLOR: "1" };
    if (preset !== null) env.HERDR_SIM_PRESET = preset;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", uvuBin, dirname(file), `^${escapeRegExp(basename(file))}$`, "--no-color"],
      { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    const chunks = [];
    child.stdout.on("data", (c) => chunks.push(c));
    child.stderr.on("data", (c) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutS * 1000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString("utf8");
      const last = (re) => {
        const all = [...output.matchAll(re)];
        return all.length ? Number(all[all.length - 1][1]) : null;
      };
      const total = last(/^\s*Total:\s+(\d+)/gm);
      const passed = last(/^\s*Passed:\s+(\d+)/gm);
      const skipped = last(/^\s*Skipped:\s+(\d+)/gm) ?? 0;
      let problem = null;
      if (timedOut) problem = `timed out after ${timeoutS}s`;
      else if (total === null || passed === null)
        problem = `uvu exited (code ${code}, signal ${signal}) without printing totals`;
      else if (code !== 0 && total === passed)
        problem = `uvu exited with code ${code} although every test passed`;
      done({
        file: preset === null ? file : `${file} [herdr ${preset}]`,
        output,
        total: total ?? 0,
        passed: passed ?? 0,
        skipped,
        problem,
        ms: Date.now() - started,
      });
    });
  });
}

async function main() {
  const { filters, jobs, timeoutS } = parseArgs(process.argv.slice(2));
  const all = discover(join(root, "test")).map((f) => relative(root, f));
  const selected = filters.length ? all.filter((f) => filters.some((x) => f.includes(x))) : all;
  const files = [];
  let skippedFiles = 0;
  for (const file of selected) {
    const req = platformRequirement(file);
    if (req && !req.platforms.includes(process.platform)) {
      skippedFiles++;
      process.stdout.write(`SKIP ${file} (${process.platform}): ${req.reason}\n`);
    } else {
      const presets = herdrPresets(file);
      if (presets === null) files.push({ file, preset: null });
      else for (const preset of presets) files.push({ file, preset });
    }
  }
  const results = [];
  let next = 0;
  async function worker() {
    while (next < files.length) {
      const file = files[next++];
      const r = await runFile(file, timeoutS);
      results.push(r);
      process.stdout.write(
        `\n── ${r.file} (${(r.ms / 1000).toFixed(1)} s)\n${r.output.trimEnd()}\n`,
      );
      if (r.problem) process.stdout.write(`!! ${r.file}: ${r.problem}\n`);
    }
  }
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));

  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const r of results) {
    passed += r.passed;
    skipped += r.skipped;
    failed += r.total - r.passed + (r.problem && r.total === r.passed ? 1 : 0);
  }
  const broken = results.filter((r) => r.problem || r.total !== r.passed).map((r) => r.file);
  if (broken.length) process.stdout.write(`\nfailing files:\n  ${broken.join("\n  ")}\n`);
  if (passed + failed === 0) process.stdout.write("\ntest: no test ran\n");
  // The last line is exactly "N passed, N failed" (what CI reads); skips are said just before it.
  if (skipped) process.stdout.write(`\n${skipped} tests skipped (each printed its reason)`);
  if (skippedFiles) {
    process.stdout.write(`\n${skippedFiles} files skipped on ${process.platform} (reasons above)`);
  }
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 || passed + failed === 0 ? 1 : 0;
}

main().catch((err) => {
  process.stdout.write(`test: runner error: ${err?.stack ?? err}\n0 passed, 1 failed\n`);
  process.exitCode = 2;
});
