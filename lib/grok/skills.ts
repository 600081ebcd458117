/**
 * Grok's skills as a seat relies on them (issue 14): the `[skills] paths` of the user-level
 * config.toml (xai-grok-agent `src/prompt/skills.rs` `collect_config_skills`), and the read-only
 * `x.ai/skills/list {cwd}` (xai-grok-shell `src/extensions/skills.rs`; `x.ai/skills/add` writes
 * the profile's config and is never called). A config path loads when it is a skill file (a file
 * named `SKILL_FILE`), or a directory: its own skill file and every one in its subdirectories,
 * walked in sorted order at most 5 levels deep (xai-grok-tools `skills/discovery.rs`
 * `find_skill_md_paths`, `walk_for_skill_md`, `MAX_SKILL_WALK_DEPTH`). A list row's `path` is
 * the skill file's path as configured (never canonicalized), so rows and files are compared by
 * their canonical paths.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import * as v from "valibot";

/** The name of the file a skill is, as Grok looks for it (discovery.rs). */
export const SKILL_FILE = "SKILL.md";
/** `MAX_SKILL_WALK_DEPTH` (discovery.rs). */
const MAX_WALK_DEPTH = 5;
/** A bound on what one manifest entry may expand to. */
const MAX_SKILL_FILES = 10_000;

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function walk(dir: string, out: string[], depth: number): void {
  if (depth > MAX_WALK_DEPTH || out.length >= MAX_SKILL_FILES) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  // `path.is_dir()` follows symlinks; PathBuf order is byte order of the names.
  const dirs = names
    .map((n) => join(dir, n))
    .filter(isDir)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const d of dirs) {
    const skill = join(d, SKILL_FILE);
    if (isFile(skill)) out.push(skill);
    walk(d, out, depth + 1);
  }
}

/**
 * The skill files Grok loads for one `[skills] paths` entry, in its order: the file itself when
 * it is named `SKILL_FILE`, a directory's own skill file and every one below it; [] otherwise.
 */
export function skillFilesOf(path: string): string[] {
  if (isFile(path)) return basename(path) === SKILL_FILE ? [path] : [];
  if (!isDir(path)) return [];
  const out: string[] = [];
  const own = join(path, "SKILL.md");
  if (isFile(own)) out.push(own);
  walk(path, out, 0);
  return out;
}

/** The canonical path of `p`, or null when it cannot be resolved. */
export function canonicalPath(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** A SkillInfo row as serde writes it (snake_case; only the fields a seat reads). */
export const SkillRowSchema = v.looseObject({
  name: v.string(),
  path: v.string(),
  scope: v.optional(v.string()),
  enabled: v.optional(v.boolean()),
});
export type SkillRow = v.InferOutput<typeof SkillRowSchema>;

/** `{"result":{"skills":[…]}}` (ExtMethodResult). */
export const SkillsListAnswerSchema = v.looseObject({
  result: v.looseObject({ skills: v.array(SkillRowSchema) }),
});
