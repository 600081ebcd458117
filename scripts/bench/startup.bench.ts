/**
 * Start-up figures (issue 19 "Performance"; issue 16 "Dependencies"), side by side in one run,
 * against the built package (dist/, `npm run build:ts`):
 * 1. `import("grok-seat")` (the root entry) in a fresh node, wall time, against a bare `node -e 0`
 *    started the same way, interleaved run by run so both see the same machine load: the
 *    difference of the medians is what importing costs (target ≤ 60 ms);
 * 2. `verify-proof process <pid>` wall time against the same bare node (target ≤ 1.3x);
 * 3. a module-load trace of each (scripts/lib/module-trace.mjs, every URL Node's ESM loader
 *    resolved): how many of our modules and which packages they load. Neither may load the MCP
 *    SDK (its ~94 packages belong to the MCP proxy, `grok-seat/mcp`); the root entry loads the
 *    ACP SDK only when a hire reaches `acp_initialize`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { figure, row, summarize } from "./lib/stats.js";

const N = Number(process.env.STARTUP_BENCH_N ?? 21);
const root = process.cwd();
const rootEntry = join(root, "dist", "index.js");
const cli = join(root, "dist", "cli", "verify-proof.js");
if (!existsSync(rootEntry) || !existsSync(cli)) {
  throw new Error("startup bench: dist/ is missing; run npm run build:ts first");
}

const BARE = ["-e", "0"];
const IMPORT = ["--input-type=module", "-e", `await import(${JSON.stringify(rootEntry)})`];
const VERIFY = [cli, "process", String(process.pid)];

function wallMs(args: readonly string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: "ignore" });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}`);
  return ms;
}

interface Trace {
  readonly ours: number;
  readonly packages: Readonly<Record<string, number>>;
  /** The Node built-in modules it imported (`node:…`). */
  readonly builtins: readonly string[];
}

function trace(args: readonly string[]): Trace {
  const dir = mkdtempSync(join(tmpdir(), "grok-seat-bench-trace-"));
  const out = join(dir, "trace");
  try {
    execFileSync(
      process.execPath,
      ["--import", join(root, "scripts", "lib", "module-trace.mjs"), ...args],
      { env: { ...process.env, GROK_SEAT_MODULE_TRACE: out }, stdio: "ignore" },
    );
    const urls = [...new Set(readFileSync(out, "utf8").split("\n").filter(Boolean))];
    const packages: Record<string, number> = {};
    for (const u of urls) {
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
      if (m?.[1] !== undefined) packages[m[1]] = (packages[m[1]] ?? 0) + 1;
    }
    const ours = urls.filter((u) => u.startsWith(`file://${root}/dist/`)).length;
    const builtins = urls.filter((u) => u.startsWith("node:"));
    return { ours, packages, builtins };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rootTrace = trace(IMPORT);
const vpTrace = trace(VERIFY);

// What the root import's cost is made of: the CPU time of the import inside the process (so
// node's own start, which varies most, is left out), for the ES module loader's start (one empty
// module), as many empty modules as the root entry loads of ours (the loader's cost per module,
// whatever the module holds), valibot alone where the root entry loads its package (the build
// bundles the parts we call into our own files: scripts/bundle.mjs), and the root entry.
const emptyDir = mkdtempSync(join(tmpdir(), "grok-seat-bench-empty-"));
for (let i = 0; i < rootTrace.ours; i++) writeFileSync(join(emptyDir, `m${i}.mjs`), "export {};\n");
writeFileSync(
  join(emptyDir, "all.mjs"),
  Array.from({ length: rootTrace.ours }, (_, i) => `import "./m${i}.mjs";\n`).join(""),
);
function importCpuMs(file: string): number {
  const script = `const c=process.cpuUsage();await import(${JSON.stringify(file)});const u=process.cpuUsage(c);console.log((u.user+u.system)/1000)`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`importing ${file} exited ${r.status}: ${r.stderr}`);
  return Number(r.stdout.trim());
}
writeFileSync(
  join(emptyDir, "builtins.mjs"),
  rootTrace.builtins.map((b) => `import ${JSON.stringify(b)};\n`).join(""),
);
const valibotLoaded = (rootTrace.packages.valibot ?? 0) > 0;
const parts = {
  builtins: join(emptyDir, "builtins.mjs"),
  one: join(emptyDir, "m0.mjs"),
  all: join(emptyDir, "all.mjs"),
  valibot: join(root, "node_modules", "valibot", "dist", "index.mjs"),
  root: rootEntry,
};
const cpuOf: Record<keyof typeof parts, number[]> = {
  builtins: [],
  one: [],
  all: [],
  valibot: [],
  root: [],
};

// Warm the page cache, then interleave: bare, import, verify-proof, bare, …
for (const a of [BARE, IMPORT, VERIFY]) wallMs(a);
const bare: number[] = [];
const imp: number[] = [];
const verify: number[] = [];
for (let i = 0; i < N; i++) {
  bare.push(wallMs(BARE));
  imp.push(wallMs(IMPORT));
  verify.push(wallMs(VERIFY));
  for (const [k, file] of Object.entries(parts)) {
    if (k === "valibot" && !valibotLoaded) continue; // bundled: nothing of its package to time
    cpuOf[k as keyof typeof parts].push(importCpuMs(file));
  }
}
rmSync(emptyDir, { recursive: true, force: true });
const b = summarize(bare);
const im = summarize(imp);
const vp = summarize(verify);
const med = (k: keyof typeof parts): number => summarize(cpuOf[k]).median;
const rootCpu = med("root");
const loaderStart = med("one");
const perModule = (med("all") - med("one")) / Math.max(1, rootTrace.ours - 1);
const valibotMs = valibotLoaded ? med("valibot") - med("one") : 0;
const builtinsMs = med("builtins") - med("one");
const oursMs = rootCpu - med("all") - valibotMs - builtinsMs;
const mcp = (t: Trace): number => t.packages["@modelcontextprotocol/sdk"] ?? 0;
const pkgs = (t: Trace): string =>
  Object.entries(t.packages)
    .map(([p, n]) => `${p} (${n})`)
    .join(", ") || "none";

const widths = [44, 10, 10, 12];
process.stdout.write(`\nstart-up wall time, n=${N} interleaved runs (ms)\n`);
process.stdout.write(`${row(["what", "median", "p99", "vs bare"], widths)}\n`);
process.stdout.write(`${row(["node -e 0 (bare)", b.median, b.p99, "1.00x"], widths)}\n`);
process.stdout.write(
  `${row(['import("grok-seat")', im.median, im.p99, `+${(im.median - b.median).toFixed(0)} ms`], widths)}\n`,
);
process.stdout.write(
  `${row(["verify-proof process <pid>", vp.median, vp.p99, `${(vp.median / b.median).toFixed(2)}x`], widths)}\n`,
);
process.stdout.write(
  `\nthe root import's own CPU, in parts (ms, medians of the same runs)\n` +
    `  all of it (inside the process)                        ${rootCpu.toFixed(1)}\n` +
    `  the ES module loader's start (one empty module)      ${loaderStart.toFixed(1)}\n` +
    `  ${rootTrace.ours - 1} more modules at ${perModule.toFixed(2)} ms each (empty modules)   ${(perModule * (rootTrace.ours - 1)).toFixed(1)}\n` +
    `  valibot's package (${valibotLoaded ? "loaded" : "not loaded: bundled"})                 ${valibotMs.toFixed(1)}\n` +
    `  Node's built-in modules it imports (${rootTrace.builtins.length})                  ${builtinsMs.toFixed(1)}\n` +
    `  the rest: compiling and running our modules' code     ${oursMs.toFixed(1)}\n`,
);
process.stdout.write(`\nmodule-load trace\n`);
process.stdout.write(
  `  root entry: ${rootTrace.ours} of our modules; packages: ${pkgs(rootTrace)}\n`,
);
process.stdout.write(
  `  verify-proof process: ${vpTrace.ours} of our modules; packages: ${pkgs(vpTrace)}\n`,
);

figure("startup.bare_node_ms.median", b.median, "ms", { n: N, p99: b.p99 });
figure("startup.import_root_ms.median", im.median, "ms", { n: N, p99: im.p99 });
figure("startup.import_root.over_bare_ms", im.median - b.median, "ms", {
  n: N,
  modules: rootTrace.ours,
  packages: rootTrace.packages,
});
figure("startup.import_root.cpu_ms", rootCpu, "ms", {
  n: N,
  loaderStart,
  perModule,
  modules: rootTrace.ours,
  valibot: valibotMs,
  builtins: builtinsMs,
  builtinModules: rootTrace.builtins,
  ourCode: oursMs,
  note: "CPU of the import inside the process; loaderStart: one empty ES module; perModule: from the same count of empty modules; valibot and builtins: alone, over one empty module; ourCode: what is left",
});
figure("startup.verify_proof_process_ms.median", vp.median, "ms", { n: N, p99: vp.p99 });
figure("startup.verify_proof_process.vs_bare", vp.median / b.median, "x", {
  n: N,
  modules: vpTrace.ours,
  packages: vpTrace.packages,
});
figure("startup.mcp_sdk_modules.root_and_verify_proof", mcp(rootTrace) + mcp(vpTrace), "modules", {
  root: mcp(rootTrace),
  verifyProof: mcp(vpTrace),
});
