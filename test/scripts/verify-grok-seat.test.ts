// @platform linux: runs the live-verification script against both simulators (the Herdr one reads /proc)
/**
 * `scripts/verify-grok-seat.ts --sim`: the live verification script, unchanged, against the
 * simulators. It must pass every result, record no instrument failure, keep its evidence private
 * (0700 directories, 0600 files, one file per step) and find the Herdr session descriptor
 * byte-identical before and after. Usage errors exit 2 before anything starts.
 */
import { execFile } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";

const ROOT = join(import.meta.dirname, "..", "..");
const SCRIPT = join(ROOT, "scripts", "verify-grok-seat.ts");

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", SCRIPT, ...args],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 },
      (err, stdout, stderr) => {
        resolve({
          code: err === null ? 0 : typeof err.code === "number" ? err.code : -1,
          stdout,
          stderr,
        });
      },
    );
  });
}

const Summary = v.object({
  ok: v.boolean(),
  mode: v.literal("simulators"),
  results: v.array(v.object({ step: v.string(), ok: v.boolean(), file: v.string() })),
  instrumentFailures: v.array(v.object({ step: v.string(), file: v.string() })),
});

const Step = v.looseObject({ step: v.string(), ok: v.boolean(), data: v.unknown() });

test("--sim: every result passes, evidence is private, the Herdr descriptor is unchanged", async () => {
  const parent = mkdtempSync(join(tmpdir(), "verify-sim-"));
  const evidence = join(parent, "evidence");
  try {
    const r = await run(["--sim", "--evidence", evidence]);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /verification passed/);
    const summary = v.parse(
      Summary,
      JSON.parse(readFileSync(join(evidence, "summary.json"), "utf8")),
    );
    assert.is(summary.ok, true);
    assert.equal(summary.instrumentFailures, []);
    assert.equal(
      summary.results.map((s) => s.step),
      [
        "environment",
        "herdr-descriptor-before",
        "hire",
        "record-cli-live",
        "deliver",
        "owner-exit",
        "release",
        "record-cli-after-release",
        "private-state",
        "herdr-descriptor-after",
      ],
    );
    assert.equal(readdirSync(join(evidence, "instrument")), []);
    const files = readdirSync(join(evidence, "results"));
    assert.is(files.length, summary.results.length, "one file per step");
    for (const dir of [evidence, join(evidence, "results"), join(evidence, "instrument")]) {
      assert.is(lstatSync(dir).mode & 0o777, 0o700, dir);
    }
    for (const f of files)
      assert.is(lstatSync(join(evidence, "results", f)).mode & 0o777, 0o600, f);
    const last = v.parse(
      Step,
      JSON.parse(readFileSync(join(evidence, "results", files.at(-1) ?? ""), "utf8")),
    );
    assert.is(last.step, "herdr-descriptor-after");
    const data = v.parse(
      v.looseObject({ identical: v.boolean(), before: v.string(), after: v.string() }),
      last.data,
    );
    assert.is(data.identical, true);
    assert.is(data.before, data.after);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test("usage errors exit 2 before anything starts", async () => {
  assert.is((await run([])).code, 2, "--login or --sim is required");
  const both = await run(["--sim", "--login", "/nonexistent"]);
  assert.is(both.code, 2);
  assert.is((await run(["--bogus"])).code, 2);
});

test.run();
