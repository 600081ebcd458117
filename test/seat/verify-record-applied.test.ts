// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * `verify-proof record` re-checks what a hire applied, from disk (lib/seat/verify-record-applied.ts,
 * issue 14): a seat hired with a persona, a temporary profile and a selected skill re-verifies
 * with `persona.system_prompt`, `persona.chat_head`, `profile.config` and `skills.files` passing;
 * then each fails for its own reason: a model switch that rebuilt the prompt without the rules
 * (the grok simulator does what model_switch.rs does), a config.toml changed behind the seat, a
 * SKILL.md removed. The CLI runs the same checks (`verify-proof record <file>` exits 1).
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hire } from "../../lib/seat/hire.js";
import { verifyRecord } from "../../lib/seat/verify-seat-record.js";
import { refusalOf, startStack, temporaryProfile } from "./stack.js";

const APPLIED = ["persona.system_prompt", "persona.chat_head", "profile.config", "skills.files"];

function verdicts(checks: readonly { check: string; ok: boolean }[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const c of checks) if (APPLIED.includes(c.check)) out[c.check] = c.ok;
  return out;
}

function verifyCli(recordPath: string): {
  status: number;
  checks: { check: string; ok: boolean }[];
} {
  try {
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", "lib/cli/verify-proof.ts", "record", recordPath, "--json"],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
    );
    return { status: 0, checks: JSON.parse(out).checks };
  } catch (err) {
    const e = err as { status: number; stdout: string };
    return { status: e.status, checks: JSON.parse(e.stdout).checks };
  }
}

test("verifyRecord re-checks the persona, the temporary profile's config.toml and the skills from disk, and each fails for its own reason", async () => {
  const stack = await startStack();
  const skills = mkdtempSync(join(tmpdir(), "seat-applied-"));
  mkdirSync(join(skills, "pack", "alpha"), { recursive: true });
  writeFileSync(
    join(skills, "pack", "alpha", "SKILL.md"),
    "---\nname: alpha\ndescription: A.\n---\nA.\n",
  );
  try {
    const seat = await hire(
      stack.options({
        persona: "You are the seat whose record is re-verified.",
        profile: temporaryProfile(stack),
        skills: [join(skills, "pack")],
      }),
    );
    const before = await verifyRecord(seat.record);
    assert.equal(verdicts(before.checks), {
      "persona.system_prompt": true,
      "persona.chat_head": true,
      "profile.config": true,
      "skills.files": true,
    });
    const cliBefore = verifyCli(seat.recordPath);
    assert.equal(
      verdicts(cliBefore.checks),
      verdicts(before.checks),
      "the CLI runs the same checks",
    );

    await refusalOf(seat.selectModel({ modelId: "grok-codex-sim" }));
    const config = seat.record.profileConfig?.path ?? "";
    appendFileSync(config, "\n# changed behind the seat\n");
    rmSync(join(skills, "pack", "alpha", "SKILL.md"));
    const after = await verifyRecord(seat.record);
    assert.equal(verdicts(after.checks), {
      "persona.system_prompt": false,
      "persona.chat_head": false,
      "profile.config": false,
      "skills.files": false,
    });
    const reasons = after.checks.filter((c) => APPLIED.includes(c.check)).map((c) => c.reason);
    assert.match(reasons[0] ?? "", /does not hold the persona inside <human_rules>/);
    assert.match(reasons[2] ?? "", /no longer the config.toml the seat wrote/);
    assert.match(reasons[3] ?? "", /no longer yields the SKILL.md files Grok listed/);
    const cliAfter = verifyCli(seat.recordPath);
    assert.is(cliAfter.status, 1);
    assert.equal(verdicts(cliAfter.checks), verdicts(after.checks));
    await seat.release();
  } finally {
    await stack.cleanup();
    rmSync(skills, { recursive: true, force: true });
  }
});

test.run();
