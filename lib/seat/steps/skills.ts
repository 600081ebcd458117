/**
 * Step `skills` (a temporary profile with selected skills; issue 14): Grok discovered every
 * manifest entry. The profile's `config.toml` named their canonical paths in `[skills] paths`
 * before launch (profile-config.ts); here the read-only `x.ai/skills/list {cwd}` must list, for
 * each entry, every skill file Grok loads from it (lib/grok/skills.ts: a skill file, or each
 * one below a directory), compared by canonical path; an entry that yields none, or a file Grok
 * did not list, refuses SKILL_NOT_DISCOVERED. An agent without the method (`-32601`) refuses
 * EXTENSION_UNSUPPORTED naming its version. `x.ai/skills/add` (which writes the profile's
 * config) is never called, and no plugin is installed.
 */
import type { AcpSession } from "../../acp/acp-session.js";
import { type CheckResult, fail, firstFailure, pass } from "../../check.js";
import { canonicalPath, type SkillRow, skillFilesOf } from "../../grok/skills.js";
import { refuseOnCheck } from "../refusal.js";
import type { SkillEntry } from "../skills.js";
import { hireStep, outcome } from "../step-runner.js";
import { callExtension } from "./extension-call.js";

export interface SkillsInput {
  readonly session: AcpSession;
  readonly manifest: readonly SkillEntry[];
  /** The agent's version as `initialize` reported it (named in an unsupported refusal). */
  readonly agentVersion: string | null;
}

/** One manifest entry with what Grok reported for it (recorded). */
export interface DiscoveredSkill {
  readonly realPath: string;
  /** The skill files the entry yields, canonical. */
  readonly files: readonly string[];
  /** The names Grok listed for them. */
  readonly names: readonly string[];
}

export const skills = hireStep("skills", async (input: SkillsInput) => {
  const rows: SkillRow[] = await callExtension(
    "skills",
    "x.ai/skills/list",
    input.agentVersion,
    () => input.session.listSkills(),
  );
  const listed = new Map<string, string>();
  for (const row of rows) {
    const real = canonicalPath(row.path);
    if (real !== null && row.enabled !== false) listed.set(real, row.name);
  }
  const checks: CheckResult[] = [];
  const found: DiscoveredSkill[] = [];
  for (const entry of input.manifest) {
    const files = skillFilesOf(entry.realPath)
      .map(canonicalPath)
      .filter((p): p is string => p !== null);
    const missing = files.filter((f) => !listed.has(f));
    checks.push(
      files.length > 0 && missing.length === 0
        ? pass("skills.discovered", entry.realPath, files)
        : fail(
            "skills.discovered",
            entry.realPath,
            files.length === 0 ? [] : missing,
            files.length === 0
              ? `${entry.realPath} holds no SKILL.md Grok would load`
              : `Grok did not list ${missing.join(", ")}`,
          ),
    );
    found.push({ realPath: entry.realPath, files, names: files.map((f) => listed.get(f) ?? "") });
  }
  const failed = firstFailure(checks);
  if (failed !== undefined) throw refuseOnCheck("skills", "SKILL_NOT_DISCOVERED", failed);
  return outcome(
    found,
    `Grok lists every selected skill (${found.reduce((n, f) => n + f.files.length, 0)} SKILL.md)`,
    checks,
    found.map((f) => ({ realPath: f.realPath, files: [...f.files], names: [...f.names] })),
  );
});
