/**
 * Builds the simulated `grok` as a real executable (`npm run build:sim`): a Node single-executable
 * application, so the leader's /proc/<pid>/exe is the resolved `grok` binary like the real one.
 * esbuild bundles test/sim/grok/main.ts into one CommonJS file, `node --experimental-sea-config`
 * makes the blob, a copy of this node binary gets it injected with postject (macOS: signature
 * removed and re-added ad hoc). The result is written to `.sim-build/bin/grok` by rename, so a
 * reader never sees a half-written file; a content hash of the inputs skips rebuilding when
 * nothing changed, and a lock directory keeps two concurrent builders from duplicating work.
 * Beside it, `.sim-build/bin/grok-execve.node`: the test-only Node-API execve(2) shim
 * (test/sim/grok/native/execve.c, compiled with the system C compiler against node's headers) that
 * the simulated TUI loads to re-exec itself in place; it is never part of the package.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const SENTINEL = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, "../..");
const outDir = join(repoRoot, ".sim-build", "bin");
export const simBinaryPath = join(outDir, "grok");
const execveShimName = "grok-execve.node";
const hashPath = join(outDir, "grok.sha256");
const lockDir = join(repoRoot, ".sim-build", "build.lock");
const LOCK_STALE_MS = 10 * 60_000;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    // The simulator's own tests (tests/) are not part of the binary.
    if (statSync(p).isDirectory()) {
      if (name !== "tests") out.push(...sourceFiles(p));
    } else if (name.endsWith(".ts") || name.endsWith(".c")) out.push(p);
  }
  return out.sort();
}

/** Everything that changes the binary: our sources, the bundled deps, node, the repo path. */
export function inputHash(): string {
  const h = createHash("sha256");
  const require = createRequire(import.meta.url);
  const versions = ["esbuild", "valibot", "postject"].map((name) => {
    try {
      const pkg: unknown = JSON.parse(
        readFileSync(require.resolve(`${name}/package.json`), "utf8"),
      );
      return `${name}@${typeof pkg === "object" && pkg !== null ? String(Reflect.get(pkg, "version")) : "?"}`;
    } catch {
      return `${name}@?`;
    }
  });
  h.update(
    `${process.version} ${process.platform} ${process.arch} ${repoRoot} ${versions.join(" ")}\n`,
  );
  for (const file of [...sourceFiles(join(here, "grok")), fileURLToPath(import.meta.url)]) {
    h.update(`${relative(repoRoot, file)}\n`);
    h.update(readFileSync(file));
  }
  return h.digest("hex");
}

function upToDate(hash: string): boolean {
  try {
    statSync(simBinaryPath);
    statSync(join(outDir, execveShimName));
    return readFileSync(hashPath, "utf8").trim() === hash;
  } catch {
    return false;
  }
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}): ${r.stderr}${r.stdout}`,
    );
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(lockDir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, "pid"), String(process.pid));
      break;
    } catch (err) {
      if (!(err instanceof Error && "code" in err && err.code === "EEXIST")) throw err;
      let holder = Number.NaN;
      let age = 0;
      try {
        holder = Number(readFileSync(join(lockDir, "pid"), "utf8"));
        age = Date.now() - statSync(lockDir).mtimeMs;
      } catch {
        // The holder is between mkdir and writing its pid, or just released.
      }
      if ((Number.isInteger(holder) && !pidAlive(holder)) || age > LOCK_STALE_MS) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

/** Directory holding node_api.h: beside this node, else node-gyp's header cache. */
function nodeIncludeDir(): string {
  const version = process.versions.node;
  const candidates = [
    join(dirname(process.execPath), "..", "include", "node"),
    join(
      process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"),
      "node-gyp",
      version,
      "include",
      "node",
    ),
    join(homedir(), "Library", "Caches", "node-gyp", version, "include", "node"),
    join(homedir(), ".node-gyp", version, "include", "node"),
  ];
  const found = candidates.find((d) => existsSync(join(d, "node_api.h")));
  if (found === undefined) {
    throw new Error(
      `node_api.h not found (looked in ${candidates.join(", ")}); run \`npm run build:native\` (node-gyp fetches the headers)`,
    );
  }
  return found;
}

/** The execve shim: a Node-API module built from one C file (test-only, see the header). */
function buildExecveShim(tmp: string): void {
  const src = join(here, "grok", "native", "execve.c");
  const out = join(tmp, execveShimName);
  const mac = process.platform === "darwin";
  const link = mac ? ["-bundle", "-undefined", "dynamic_lookup"] : ["-shared"];
  run(process.env.CC ?? "cc", [
    "-std=c11",
    "-O2",
    "-fPIC",
    "-Wall",
    "-Wextra",
    "-DNAPI_VERSION=8",
    `-I${nodeIncludeDir()}`,
    ...link,
    "-o",
    out,
    src,
  ]);
}

async function buildInto(tmp: string, hash: string): Promise<void> {
  buildExecveShim(tmp);
  const bundle = join(tmp, "main.cjs");
  await build({
    entryPoints: [join(here, "grok", "main.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile: bundle,
    define: { __GROK_SIM_REPO__: JSON.stringify(repoRoot) },
    logLevel: "silent",
  });
  const blob = join(tmp, "sea.blob");
  const config = join(tmp, "sea-config.json");
  writeFileSync(
    config,
    JSON.stringify({
      main: bundle,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
    }),
  );
  run(process.execPath, ["--experimental-sea-config", config]);
  const exe = join(tmp, "grok");
  copyFileSync(process.execPath, exe);
  chmodSync(exe, 0o755);
  const mac = process.platform === "darwin";
  if (mac) run("codesign", ["--remove-signature", exe]);
  const postject = createRequire(import.meta.url).resolve("postject/dist/cli.js");
  const args = [postject, exe, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SENTINEL];
  if (mac) args.push("--macho-segment-name", "NODE_SEA");
  run(process.execPath, args);
  if (mac) run("codesign", ["--sign", "-", exe]);
  writeFileSync(join(tmp, "grok.sha256"), `${hash}\n`);
}

/** Build (or reuse) the simulator binary; resolves to its absolute path. */
export async function buildSim(): Promise<string> {
  return (await buildSimReport()).path;
}

/** buildSim, also saying whether this call did the build (false: reused or built by another). */
export async function buildSimReport(): Promise<{ path: string; built: boolean }> {
  const hash = inputHash();
  if (upToDate(hash)) return { path: simBinaryPath, built: false };
  return withLock(async () => {
    if (upToDate(hash)) return { path: simBinaryPath, built: false };
    mkdirSync(outDir, { recursive: true });
    const tmp = join(repoRoot, ".sim-build", `tmp-${process.pid}-${Date.now()}`);
    mkdirSync(tmp, { recursive: true });
    try {
      await buildInto(tmp, hash);
      renameSync(join(tmp, execveShimName), join(outDir, execveShimName));
      renameSync(join(tmp, "grok"), simBinaryPath);
      renameSync(join(tmp, "grok.sha256"), hashPath);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    return { path: simBinaryPath, built: true };
  });
}

if (
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(resolve(process.argv[1])).href
) {
  const started = Date.now();
  buildSimReport().then(
    ({ path, built }) => {
      const what = built
        ? `built in ${((Date.now() - started) / 1000).toFixed(1)} s`
        : "up to date";
      process.stdout.write(`grok simulator ${what}: ${path}\n`);
    },
    (err: unknown) => {
      process.stderr.write(
        `build:sim failed: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
