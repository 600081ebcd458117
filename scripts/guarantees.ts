/**
 * The "Guarantees" the README publishes, generated from what the reliability tests measured —
 * never typed by hand (issue 9; docs/design/reliability-plan.md §6 "What we can then state").
 *
 *   node --import tsx scripts/guarantees.ts [--require-full] [--check] [--root DIR]
 *
 * Generate (default): read `reliability-results/*.json` (written by `recordClaim`,
 * test/helpers/claims.ts), validate each, and write `docs/guarantees.json` (sorted by id, the
 * fields a reader needs, plus date/platform/node/mode), `docs/guarantees.md` (a table: claim id,
 * title, the claim sentence, how it was tested) and, when README.md has the markers
 * `<!-- guarantees:start -->` / `<!-- guarantees:end -->`, the same table between them (nothing
 * else in README.md is touched). Refuses (exit 1) a result that did not hold, results from
 * different platforms or Node versions, and with `--require-full` a result of a bounded run.
 * Running it twice on the same results changes nothing.
 *
 * `--check`: exit 1 when README's section or docs/guarantees.md differs from what
 * docs/guarantees.json generates (for CI). Exit 2 on a usage error.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as v from "valibot";

const START = "<!-- guarantees:start -->";
const END = "<!-- guarantees:end -->";

const Text = v.pipe(v.string(), v.minLength(1));
const Mode = v.picklist(["bounded", "full"]);
const Counts = v.record(v.string(), v.pipe(v.number(), v.finite()));
const Seeds = v.array(v.pipe(v.number(), v.integer()));

/** One `reliability-results/<id>.json`, as `recordClaim` writes it. */
const ResultSchema = v.object({
  id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/)),
  title: Text,
  claim: Text,
  counts: Counts,
  held: v.boolean(),
  seeds: v.optional(Seeds),
  method: Text,
  mode: Mode,
  durationMs: v.number(),
  date: v.pipe(v.string(), v.isoTimestamp()),
  platform: Text,
  node: Text,
});
type Result = v.InferOutput<typeof ResultSchema>;

const ClaimSchema = v.object({
  id: Text,
  title: Text,
  claim: Text,
  method: Text,
  mode: Mode,
  counts: Counts,
  seeds: v.optional(Seeds),
});

/** `docs/guarantees.json`. */
const DocSchema = v.object({
  date: v.pipe(v.string(), v.isoTimestamp()),
  platform: Text,
  node: Text,
  mode: v.picklist(["bounded", "full", "mixed"]),
  claims: v.array(ClaimSchema),
});
type Doc = v.InferOutput<typeof DocSchema>;

/** A refusal to publish: exit 1 with the reasons. */
class Refusal extends Error {}
/** A bad command line: exit 2. */
class UsageError extends Error {}

interface Options {
  readonly root: string;
  readonly check: boolean;
  readonly requireFull: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  let root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  let check = false;
  let requireFull = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--check") check = true;
    else if (a === "--require-full") requireFull = true;
    else if (a === "--root" && argv[i + 1] !== undefined) root = resolve(argv[++i] ?? "");
    else throw new UsageError(`unknown argument ${a}`);
  }
  return { root, check, requireFull };
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Refusal(
      `${path}: not readable JSON (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}

function issuesOf(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 3)
    .map((i) => `${v.getDotPath(i) ?? "(root)"}: ${i.message}`)
    .join("; ");
}

function readResults(dir: string, requireFull: boolean): Result[] {
  if (!existsSync(dir))
    throw new Refusal(`${dir} does not exist: run npm run test:reliability first`);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  if (files.length === 0)
    throw new Refusal(`no results in ${dir}: run npm run test:reliability first`);
  const results: Result[] = [];
  const problems: string[] = [];
  for (const f of files) {
    const parsed = v.safeParse(ResultSchema, readJson(join(dir, f)));
    if (!parsed.success) {
      problems.push(`${f}: not a reliability result (${issuesOf(parsed.issues)})`);
      continue;
    }
    const r = parsed.output;
    if (f !== `${r.id}.json`) problems.push(`${f}: holds claim ${r.id}`);
    if (!r.held) problems.push(`${r.id}: did not hold (${r.claim})`);
    if (requireFull && r.mode !== "full")
      problems.push(`${r.id}: produced by a ${r.mode} run, --require-full`);
    results.push(r);
  }
  const platforms = new Set(results.map((r) => r.platform));
  const nodes = new Set(results.map((r) => r.node));
  if (platforms.size > 1 || nodes.size > 1) {
    problems.push(
      `results come from different environments (${[...platforms].join(", ")}; ${[...nodes].join(", ")}): rerun them together`,
    );
  }
  if (problems.length > 0) throw new Refusal(problems.join("\n"));
  return results;
}

/** The published document: a pure function of the results (so generating twice is a no-op). */
function buildDoc(results: readonly Result[]): Doc {
  // Numeric order (T9 before T10), independent of the locale.
  const byId = new Intl.Collator("en", { numeric: true });
  const sorted = [...results].sort((a, b) => byId.compare(a.id, b.id));
  const modes = new Set(sorted.map((r) => r.mode));
  const first = sorted[0];
  if (first === undefined) throw new Refusal("no results");
  return {
    // ISO timestamps of one clock sort as text: the newest result dates the document.
    date:
      sorted
        .map((r) => r.date)
        .sort()
        .at(-1) ?? first.date,
    platform: first.platform,
    node: first.node,
    mode: modes.size > 1 ? "mixed" : first.mode,
    claims: sorted.map((r) => ({
      id: r.id,
      title: r.title,
      claim: r.claim,
      method: r.method,
      mode: r.mode,
      counts: r.counts,
      ...(r.seeds === undefined ? {} : { seeds: r.seeds }),
    })),
  };
}

/** A table cell: one line, no column breaks, nothing that could close the README markers. */
function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, " ")
    .replace(/\|/g, "\\|")
    .replace(/</g, "&lt;");
}

/** The section shared by docs/guarantees.md and README.md: provenance, then the table. */
function renderSection(doc: Doc): string {
  const counts =
    doc.mode === "full"
      ? "full counts (`npm run test:reliability`)"
      : doc.mode === "bounded"
        ? "bounded counts (`npm test`; the full run has larger numbers)"
        : "full counts except where a claim says (bounded run)";
  const lines = [
    "<!-- generated by scripts/guarantees.ts from reliability-results/: do not edit by hand -->",
    `Measured on ${doc.platform}, Node ${doc.node}, ${counts}, ${doc.date.slice(0, 10)}.`,
    "",
    "| Claim | Title | Guarantee | How it was tested |",
    "|---|---|---|---|",
    ...doc.claims.map((c) => {
      const note = c.mode === "bounded" && doc.mode === "mixed" ? " (bounded run)" : "";
      return `| ${cell(c.id)} | ${cell(c.title)} | ${cell(c.claim)}${note} | ${cell(c.method)} |`;
    }),
  ];
  return lines.join("\n");
}

function renderMarkdown(doc: Doc): string {
  return `# Guarantees\n\n${renderSection(doc)}\n`;
}

function renderJson(doc: Doc): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** README.md with the section between the markers replaced, or null when there are no markers. */
function withSection(readme: string, section: string): string | null {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END, start + START.length);
  if (start < 0 || end < 0) return null;
  return `${readme.slice(0, start + START.length)}\n${section}\n${readme.slice(end)}`;
}

/** Write only when the content differs (idempotent, and mtimes stay put). */
function writeIfChanged(path: string, content: string): boolean {
  if (existsSync(path) && readFileSync(path, "utf8") === content) return false;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return true;
}

function generate(o: Options): void {
  const doc = buildDoc(readResults(join(o.root, "reliability-results"), o.requireFull));
  const jsonPath = join(o.root, "docs", "guarantees.json");
  const mdPath = join(o.root, "docs", "guarantees.md");
  const readmePath = join(o.root, "README.md");
  const changed = [
    writeIfChanged(jsonPath, renderJson(doc)) ? "docs/guarantees.json" : null,
    writeIfChanged(mdPath, renderMarkdown(doc)) ? "docs/guarantees.md" : null,
  ];
  let readme = "README.md has no guarantees markers; left alone";
  if (existsSync(readmePath)) {
    const next = withSection(readFileSync(readmePath, "utf8"), renderSection(doc));
    if (next !== null) {
      readme = writeIfChanged(readmePath, next)
        ? "README.md section updated"
        : "README.md section unchanged";
    }
  }
  const wrote = changed.filter((c) => c !== null);
  process.stdout.write(
    `guarantees: ${doc.claims.length} claims (${doc.mode}) -> ${wrote.length ? `wrote ${wrote.join(", ")}` : "docs unchanged"}; ${readme}\n`,
  );
}

function check(o: Options): void {
  const jsonPath = join(o.root, "docs", "guarantees.json");
  if (!existsSync(jsonPath))
    throw new Refusal(`${jsonPath} does not exist: run scripts/guarantees.ts`);
  const parsed = v.safeParse(DocSchema, readJson(jsonPath));
  if (!parsed.success)
    throw new Refusal(
      `docs/guarantees.json is not a guarantees document (${issuesOf(parsed.issues)})`,
    );
  const doc = parsed.output;
  const problems: string[] = [];
  if (renderJson(doc) !== readFileSync(jsonPath, "utf8"))
    problems.push("docs/guarantees.json is not in generated form");
  const mdPath = join(o.root, "docs", "guarantees.md");
  if (!existsSync(mdPath) || readFileSync(mdPath, "utf8") !== renderMarkdown(doc)) {
    problems.push("docs/guarantees.md differs from docs/guarantees.json");
  }
  const readmePath = join(o.root, "README.md");
  const readme = existsSync(readmePath) ? readFileSync(readmePath, "utf8") : null;
  const next = readme === null ? null : withSection(readme, renderSection(doc));
  if (next === null) problems.push(`README.md has no section between ${START} and ${END}`);
  else if (next !== readme)
    problems.push("README.md's guarantees section differs from docs/guarantees.json");
  if (problems.length > 0)
    throw new Refusal(`${problems.join("\n")}\nrun: node --import tsx scripts/guarantees.ts`);
  process.stdout.write(
    `guarantees: README.md and docs/guarantees.md match docs/guarantees.json (${doc.claims.length} claims)\n`,
  );
}

function main(): number {
  let o: Options;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`guarantees: ${err instanceof Error ? err.message : String(err)}\n`);
    process.stderr.write(
      "usage: node --import tsx scripts/guarantees.ts [--require-full] [--check] [--root DIR]\n",
    );
    return 2;
  }
  try {
    if (o.check) check(o);
    else generate(o);
    return 0;
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    process.stderr.write(`guarantees: refused\n${err.message}\n`);
    return 1;
  }
}

process.exitCode = main();
