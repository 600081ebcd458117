/**
 * `npm run bench`: runs every scripts/bench/*.bench.ts in its own process, one after another
 * (so they do not compete for the two cores), prints their tables and writes every figure
 * they report to bench-results/latest.json.
 *
 * Contract for a bench file: print human-readable tables to stdout, and print each figure
 * once as a line `BENCH {"name": "...", "value": <number>, "unit": "...", ...}`.
 * Usage: npm run bench [-- filter ...]
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, release } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

interface Figure {
  readonly file: string;
  readonly [key: string]: unknown;
}

function run(file: string): Promise<{ code: number | null; figures: Figure[] }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", join(here, file)], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const figures: Figure[] = [];
    let buf = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      let nl = buf.indexOf("\n");
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith("BENCH ")) {
          const parsed: unknown = JSON.parse(line.slice(6));
          if (typeof parsed === "object" && parsed !== null) figures.push({ file, ...parsed });
        } else process.stdout.write(`${line}\n`);
        nl = buf.indexOf("\n");
      }
    });
    child.on("close", (code) => resolve({ code, figures }));
  });
}

const all: Figure[] = [];
let failures = 0;
const cpu = cpus()[0]?.model ?? "unknown";
process.stdout.write(
  `grok-seat bench: node ${process.version}, ${process.platform} ${release()}, ${cpus().length} x ${cpu}\n`,
);
for (const file of files) {
  process.stdout.write(`\n### ${file}\n`);
  const { code, figures } = await run(file);
  all.push(...figures);
  if (code !== 0) {
    failures++;
    process.stdout.write(`!! ${file} exited with code ${code}\n`);
  }
}
mkdirSync(join(root, "bench-results"), { recursive: true });
writeFileSync(
  join(root, "bench-results", "latest.json"),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, platform: process.platform, release: release(), cpu, figures: all }, null, 2)}\n`,
);
process.stdout.write(`\n${all.length} figures written to bench-results/latest.json\n`);
process.exitCode = failures ? 1 : 0;
