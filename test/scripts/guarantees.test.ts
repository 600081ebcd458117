/**
 * `scripts/guarantees.ts`: the README's "Guarantees" section is generated from the reliability
 * results and never typed by hand. Run for real (`--root` on a throwaway tree): it publishes only
 * claims that held, refuses a bounded run under `--require-full` and results from mixed
 * environments, is idempotent, and `--check` (part of `npm run check`) catches a hand edit.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

const SCRIPT = join(import.meta.dirname, "..", "..", "scripts", "guarantees.ts");

const README = `# x\n\n## Guarantees\n\n<!-- guarantees:start -->\nold text\n<!-- guarantees:end -->\n\n## After\n`;

function result(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    title: `title of ${id}`,
    claim: `${id}: 10 runs, 0 violations, a <tag> kept | escaped`,
    counts: { runs: 10, violations: 0 },
    held: true,
    seeds: [1, 2],
    method: `how ${id} was tested`,
    mode: "full",
    durationMs: 1234,
    date: "2026-11-29T10:00:00.000Z",
    platform: "linux x64",
    node: "v20.20.2",
    ...over,
  };
}

interface Tree {
  readonly root: string;
  run(...args: string[]): { code: number | null; stdout: string; stderr: string };
  read(path: string): string;
  write(path: string, text: string): void;
  done(): void;
}

function tree(results: readonly Record<string, unknown>[]): Tree {
  const root = mkdtempSync(join(tmpdir(), "grok-seat-guarantees-"));
  mkdirSync(join(root, "reliability-results"));
  for (const r of results) {
    writeFileSync(join(root, "reliability-results", `${String(r.id)}.json`), JSON.stringify(r));
  }
  writeFileSync(join(root, "README.md"), README);
  return {
    root,
    run: (...args) => {
      const r = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, "--root", root, ...args], {
        encoding: "utf8",
        timeout: 60_000,
      });
      return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
    },
    read: (path) => readFileSync(join(root, path), "utf8"),
    write: (path, text) => writeFileSync(join(root, path), text),
    done: () => rmSync(root, { recursive: true, force: true }),
  };
}

test("generates json, markdown and the README section, in numeric claim order", () => {
  const t = tree([result("T10-b"), result("T9-a"), result("T1-c")]);
  try {
    const r = t.run("--require-full");
    assert.is(r.code, 0, r.stderr);
    const doc = JSON.parse(t.read("docs/guarantees.json")) as {
      mode: string;
      claims: { id: string }[];
    };
    assert.is(doc.mode, "full");
    assert.equal(
      doc.claims.map((c) => c.id),
      ["T1-c", "T9-a", "T10-b"],
    );
    const readme = t.read("README.md");
    assert.not.match(readme, "old text");
    assert.match(readme, "## After");
    assert.match(
      readme,
      "| T9-a | title of T9-a | T9-a: 10 runs, 0 violations, a &lt;tag> kept \\| escaped |",
    );
    assert.match(readme, "full counts (`npm run test:reliability`), 2026-11-29");
    assert.match(t.read("docs/guarantees.md"), /^# Guarantees\n/);
    // A second run changes nothing, and --check agrees.
    const again = t.run();
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stdout, "docs unchanged; README.md section unchanged");
    assert.is(t.run("--check").code, 0);
  } finally {
    t.done();
  }
});

test("--check refuses a hand-edited README section or document", () => {
  const t = tree([result("T1-c")]);
  try {
    assert.is(t.run().code, 0);
    t.write("README.md", t.read("README.md").replace("0 violations", "no violations"));
    const readme = t.run("--check");
    assert.is(readme.code, 1);
    assert.match(readme.stderr, "README.md's guarantees section differs from docs/guarantees.json");
    assert.is(t.run().code, 0);
    t.write("docs/guarantees.md", `${t.read("docs/guarantees.md")}extra\n`);
    const md = t.run("--check");
    assert.is(md.code, 1);
    assert.match(md.stderr, "docs/guarantees.md differs from docs/guarantees.json");
  } finally {
    t.done();
  }
});

test("a claim that did not hold is never published", () => {
  const t = tree([result("T1-c"), result("T2-d", { held: false })]);
  try {
    const r = t.run();
    assert.is(r.code, 1);
    assert.match(r.stderr, "T2-d: did not hold");
    assert.match(t.read("README.md"), "old text");
  } finally {
    t.done();
  }
});

test("--require-full refuses a bounded result; without it the run is published as mixed", () => {
  const t = tree([result("T1-c"), result("T2-d", { mode: "bounded" })]);
  try {
    const full = t.run("--require-full");
    assert.is(full.code, 1);
    assert.match(full.stderr, "T2-d: produced by a bounded run, --require-full");
    const mixed = t.run();
    assert.is(mixed.code, 0, mixed.stderr);
    assert.match(t.read("README.md"), "| T2-d | title of T2-d | T2-d: 10 runs");
    assert.match(t.read("README.md"), "(bounded run) |");
    assert.is((JSON.parse(t.read("docs/guarantees.json")) as { mode: string }).mode, "mixed");
  } finally {
    t.done();
  }
});

test("results from different environments, malformed or misnamed files are refused", () => {
  const t = tree([result("T1-c"), result("T2-d", { node: "v22.1.0" })]);
  try {
    const envs = t.run();
    assert.is(envs.code, 1);
    assert.match(envs.stderr, "results come from different environments");
    t.write("reliability-results/T2-d.json", JSON.stringify(result("T3-e")));
    const misnamed = t.run();
    assert.is(misnamed.code, 1);
    assert.match(misnamed.stderr, "T2-d.json: holds claim T3-e");
    t.write("reliability-results/T2-d.json", JSON.stringify({ ...result("T2-d"), counts: "x" }));
    const malformed = t.run();
    assert.is(malformed.code, 1);
    assert.match(malformed.stderr, "T2-d.json: not a reliability result (counts:");
    t.write("reliability-results/T2-d.json", "{");
    const broken = t.run();
    assert.is(broken.code, 1);
    assert.match(broken.stderr, "not readable JSON");
  } finally {
    t.done();
  }
});

test("no results and bad arguments: exit 1 and 2", () => {
  const t = tree([]);
  try {
    const none = t.run();
    assert.is(none.code, 1);
    assert.match(none.stderr, "run npm run test:reliability first");
    const usage = t.run("--bogus");
    assert.is(usage.code, 2);
    assert.match(usage.stderr, "unknown argument --bogus");
  } finally {
    t.done();
  }
});

test.run();
