// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * Selected skills (issue 14) through a whole hire against the simulators. With a temporary
 * profile the manifest's canonical paths go into `[skills] paths` of its config.toml before launch
 * and step `skills` requires every SKILL.md each entry yields in `x.ai/skills/list`. Refusals: an
 * entry Grok loads nothing from (SKILL_NOT_DISCOVERED), an agent without the method
 * (EXTENSION_UNSUPPORTED, the simulator's `no-skills` preset of a real older version). With the
 * owner's profile nothing is written and the persona names the paths.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { encodeCwdDirname } from "../../lib/grok/session-files.js";
import { hire } from "../../lib/seat/hire.js";
import { refusalOf, type Stack, type StackOptions, temporaryProfile, withStack } from "./stack.js";

function skillTree(): { root: string; dir: string; file: string; empty: string } {
  const root = mkdtempSync(join(tmpdir(), "seat-skills-"));
  const dir = join(root, "pack");
  mkdirSync(join(dir, "alpha"), { recursive: true });
  mkdirSync(join(dir, "nested", "beta"), { recursive: true });
  writeFileSync(join(dir, "alpha", "SKILL.md"), "---\nname: alpha\ndescription: A.\n---\nA.\n");
  writeFileSync(
    join(dir, "nested", "beta", "SKILL.md"),
    "---\nname: beta\ndescription: B.\n---\nB.\n",
  );
  const single = join(root, "single");
  mkdirSync(single);
  const file = join(single, "SKILL.md");
  writeFileSync(file, "---\nname: gamma\ndescription: C.\n---\nC.\n");
  const empty = join(root, "empty");
  mkdirSync(empty);
  writeFileSync(join(empty, "README.md"), "no skill here\n");
  return { root, dir, file, empty };
}

/** Run `body` against a fresh stack and skill tree; both are removed after it, whatever it did. */
async function withSkillTree(
  opts: StackOptions,
  body: (stack: Stack, t: ReturnType<typeof skillTree>) => Promise<void>,
): Promise<void> {
  const t = skillTree();
  try {
    await withStack(opts, (stack) => body(stack, t));
  } finally {
    rmSync(t.root, { recursive: true, force: true });
  }
}

test("a temporary profile configures [skills] paths and step skills proves every SKILL.md listed", async () => {
  await withSkillTree({}, async (stack, t) => {
    const seat = await hire(
      stack.options({ profile: temporaryProfile(stack), skills: [t.dir, t.file] }),
    );
    const proven = stack.events.filter((e) => e.type === "proven").map((e) => e.step);
    assert.ok(proven.includes("skills"), proven.join());
    const r = seat.record;
    assert.is(r.profile.kind, "temporary");
    const cfgPath = join(r.profile.grokHome, "config.toml");
    assert.is(statSync(cfgPath).mode & 0o777, 0o600);
    const cfg = readFileSync(cfgPath, "utf8");
    assert.ok(cfg.includes(`paths = ["${t.dir}", "${t.file}"]`), cfg);
    assert.is(r.profileConfig?.path, cfgPath);
    assert.equal(
      r.skillsDiscovered?.map((s) => s.names),
      [["alpha", "beta"], ["gamma"]],
    );
    assert.is(r.persona ?? null, null, "a temporary profile needs no skills note");
    await seat.release();
  });
});

test("an entry Grok loads nothing from refuses SKILL_NOT_DISCOVERED at step skills", async () => {
  await withSkillTree({}, async (stack, t) => {
    const refusal = await refusalOf(
      hire(stack.options({ profile: temporaryProfile(stack), skills: [t.dir, t.empty] })),
    );
    assert.is(refusal.step, "skills");
    assert.is(refusal.code, "SKILL_NOT_DISCOVERED");
    assert.is(refusal.check, "skills.discovered");
  });
});

test("an agent without x.ai/skills/list refuses EXTENSION_UNSUPPORTED naming its version", async () => {
  // A build without the method but at the floor (the preset's own version is below it).
  const noSkills = {
    env: { GROK_SIM_VERSION_PRESET: "no-skills", GROK_SIM_AGENT_VERSION: "1.0.48" },
  };
  await withSkillTree(noSkills, async (stack, t) => {
    const refusal = await refusalOf(
      hire(stack.options({ profile: temporaryProfile(stack), skills: [t.dir] })),
    );
    assert.is(refusal.step, "skills");
    assert.is(refusal.code, "EXTENSION_UNSUPPORTED");
    assert.match(refusal.reason, /x\.ai\/skills\/list/);
    assert.match(refusal.reason, /version 1\.0\.48/);
  });
});

test("with the owner's profile nothing is written: the persona names the skill paths, proven in the prompt", async () => {
  await withSkillTree({}, async (stack, t) => {
    const seat = await hire(stack.options({ skills: [t.dir] }));
    const r = seat.record;
    assert.is(r.profileConfig, null);
    assert.is(r.skillsDiscovered, null);
    assert.is(r.persona?.skillsNote, true);
    const dir = join(stack.home.dir, "sessions", encodeCwdDirname(stack.cwd) ?? "", seat.sessionId);
    assert.ok(
      readFileSync(join(dir, "system_prompt.txt"), "utf8").includes(`- ${t.dir} (directory)`),
    );
    await seat.release();
  });
});

test.run();
