/**
 * Bundle a test/helpers script into one ESM file so the crash tests can start it hundreds of
 * times with plain `node` (~60 ms) instead of `node --import tsx` (~300 ms). `import.meta.url` is
 * pinned to lib/kernel/loader.ts so the addon loader still finds the package root and build/.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface Bundle {
  readonly file: string;
  cleanup(): void;
}

export async function bundleHelper(name: string): Promise<Bundle> {
  const dir = mkdtempSync(join(tmpdir(), "grok-seat-bundle-"));
  const file = join(dir, `${name}.mjs`);
  await build({
    entryPoints: [join(root, "test", "helpers", `${name}.ts`)],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "error",
    define: {
      "import.meta.url": JSON.stringify(
        pathToFileURL(join(root, "lib", "kernel", "loader.ts")).href,
      ),
    },
  });
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
