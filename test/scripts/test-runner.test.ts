/**
 * `scripts/test.mjs`, the runner behind `npm test`, held to the contract CI reads: the last line is
 * exactly `N passed, N failed`, and the exit code is non-zero on a failed assertion, on a file that
 * crashes, hangs or prints no totals, and when no test ran. A file declaring another platform is
 * skipped with its reason printed, never silently.
 *
 * The runner is run for real, as a copy in a throwaway root (it discovers `<root>/test`), with
 * `node_modules` linked to ours so that uvu and tsx resolve as they do in the repository.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

const ROOT = join(import.meta.dirname, "..", "..");

const PASS_TWO = `import { test } from "uvu";
import * as assert from "uvu/assert";
test("one", () => assert.is(1, 1));
test("two", () => assert.ok(true));
test.run();
`;
const FAIL_ONE = `import { test } from "uvu";
import * as assert from "uvu/assert";
test("holds", () => assert.is(1, 1));
test("breaks", () => assert.is(1, 2));
test.run();
`;
const CRASH = `throw new Error("crashed before any test");
`;
const NO_TOTALS = `process.exit(0);
`;
const HANG = `import { test } from "uvu";
test("never ends", () => new Promise(() => setInterval(() => {}, 1000)));
test.run();
`;
const OTHER_PLATFORM = `// @platform aix, sunos: needs a kernel nobody runs here
throw new Error("must not be started");
`;

interface Run {
  readonly code: number | null;
  readonly lines: string[];
  readonly stdout: string;
}

/** A throwaway root holding `files` under test/, run with the runner's own arguments. */
function runRunner(files: Record<string, string>, args: readonly string[] = []): Run {
  const root = mkdtempSync(join(tmpdir(), "grok-seat-runner-"));
  try {
    mkdirSync(join(root, "scripts"));
    copyFileSync(join(ROOT, "scripts", "test.mjs"), join(root, "scripts", "test.mjs"));
    symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
    mkdirSync(join(root, "test"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(root, "test", name), text);
    const r = spawnSync(process.execPath, [join(root, "scripts", "test.mjs"), ...args], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, TEST_JOBS: "2", NO_COLOR: "1" },
      timeout: 120_000,
    });
    const stdout = r.stdout ?? "";
    return { code: r.status, lines: stdout.trimEnd().split("\n"), stdout };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function lastLine(run: Run): string {
  return run.lines[run.lines.length - 1] ?? "";
}

test("all passing: last line counts every test, exit 0", () => {
  const run = runRunner({ "a.test.ts": PASS_TWO, "b.test.ts": PASS_TWO });
  assert.is(lastLine(run), "4 passed, 0 failed", run.stdout);
  assert.is(run.code, 0);
});

test("a failed assertion: counted, the file named, exit 1", () => {
  const run = runRunner({ "a.test.ts": PASS_TWO, "b.test.ts": FAIL_ONE });
  assert.is(lastLine(run), "3 passed, 1 failed", run.stdout);
  assert.is(run.code, 1);
  assert.match(run.stdout, /failing files:\n\s+test\/b\.test\.ts/);
});

test("a file that crashes or prints no totals counts as a failure", () => {
  const run = runRunner({ "a.test.ts": PASS_TWO, "c.test.ts": CRASH, "d.test.ts": NO_TOTALS });
  assert.is(lastLine(run), "2 passed, 2 failed", run.stdout);
  assert.is(run.code, 1);
  assert.match(run.stdout, /!! test\/c\.test\.ts: uvu exited \(code 1, signal null\) without/);
  assert.match(run.stdout, /!! test\/d\.test\.ts: uvu exited \(code 0, signal null\) without/);
});

test("a file that hangs is killed at the timeout and counts as a failure", () => {
  // The timeout must outlast a passing file's start (tsx + uvu) on a loaded machine: at 3 s the
  // passing file itself timed out under a load average of 14 on 2 cores.
  const run = runRunner({ "a.test.ts": PASS_TWO, "h.test.ts": HANG }, ["--timeout", "20"]);
  assert.is(lastLine(run), "2 passed, 1 failed", run.stdout);
  assert.is(run.code, 1);
  assert.match(run.stdout, /!! test\/h\.test\.ts: timed out after 20s/);
});

test("no test at all: 0 passed, 0 failed is a failure", () => {
  const empty = runRunner({});
  assert.is(lastLine(empty), "0 passed, 0 failed", empty.stdout);
  assert.is(empty.code, 1);
  assert.match(empty.stdout, /test: no test ran/);
  const filtered = runRunner({ "a.test.ts": PASS_TWO }, ["no-such-file"]);
  assert.is(lastLine(filtered), "0 passed, 0 failed", filtered.stdout);
  assert.is(filtered.code, 1);
});

test("another platform's file is not started; its reason is printed", () => {
  const run = runRunner({ "a.test.ts": PASS_TWO, "p.test.ts": OTHER_PLATFORM });
  assert.match(
    run.stdout,
    `SKIP test/p.test.ts (${process.platform}): needs a kernel nobody runs here`,
    run.stdout,
  );
  assert.not.match(run.stdout, /must not be started/);
  assert.is(lastLine(run), "2 passed, 0 failed", run.stdout);
  assert.is(run.code, 0);
});

test("filters select files by path substring", () => {
  const run = runRunner({ "a.test.ts": PASS_TWO, "b.test.ts": FAIL_ONE }, ["a.test"]);
  assert.is(lastLine(run), "2 passed, 0 failed", run.stdout);
  assert.is(run.code, 0);
  assert.not.match(run.stdout, /b\.test\.ts/);
});

test.run();
