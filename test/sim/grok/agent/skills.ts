/**
 * Skills: `x.ai/skills/list {cwd}` (read-only) and `x.ai/skills/add {path, cwd?}` (writes the
 * profile's config.toml), extensions/skills.rs; discovery as xai-grok-agent prompt/skills.rs
 * `list_skills_with_plugins` with the parsing of xai-grok-tools skills/discovery.rs.
 *
 * Sources, in precedence order: `<cwd>/.grok/skills` (scope `local`), `<git root>/.grok/skills`
 * (`repo`, when the root differs from cwd), `$GROK_HOME/skills` (`user`), then every
 * `[skills] paths` entry of config.toml — a file named `SKILL.md`, or a directory whose own
 * `SKILL.md` and every `SKILL.md` below it (subdirectories sorted, at most 5 levels,
 * `walk_for_skill_md`) are skills, with scope `repo` inside the git root of cwd else `user`, and
 * `config_source: {type:"configToml", path:<the SKILL.md>}`. A leading `~/` is expanded; paths
 * are reported as configured (joined, never canonicalized). `[skills] ignore` prefixes drop
 * skills (compared canonically), `[skills] disabled` names stay listed with `enabled: false`.
 * The list is stable-sorted by scope, then deduplicated by canonical path (the first entry keeps
 * the other's `config_source`) and by name (the first wins).
 *
 * A skill's name is the frontmatter `name` (normalized: lowercase, anything but `[a-z0-9]` to
 * `-`, runs of `-` collapsed, trimmed; invalid names skip the skill), else its directory's name;
 * the description is the frontmatter `description`, else the first prose paragraph of the body,
 * else the first heading, else the name. Rows are SkillInfo serialized by serde (snake_case
 * fields, `None`s omitted).
 *
 * Not simulated: `.agents`/`.claude`/`.cursor` and `~` vendor directories, commands, plugins,
 * bundled and server skills, the same-scope re-key of name collisions, YAML beyond `key: value`.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { grokHome } from "../env.js";
import { canonical, gitRoot, isDir, isFile } from "../fs.js";
import { isRecord, type JsonRecord, str } from "../json.js";
import { loadConfig } from "./config.js";

type Scope = "local" | "repo" | "user";
const SCOPE_ORDER: Record<Scope, number> = { local: 0, repo: 1, user: 2 };
const MAX_WALK_DEPTH = 5;
const MAX_NAME_LEN = 64;

interface Found {
  path: string;
  scope: Scope;
  fromConfig: boolean;
}

export interface SkillsConfig {
  paths: string[];
  ignore: string[];
  disabled: string[];
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

export function skillsConfig(root: JsonRecord): SkillsConfig {
  const s = root.skills;
  if (!isRecord(s)) return { paths: [], ignore: [], disabled: [] };
  return {
    paths: stringList(s.paths),
    ignore: stringList(s.ignore),
    disabled: stringList(s.disabled),
  };
}

function expandTilde(raw: string): string {
  const home = process.env.HOME ?? homedir();
  return raw.startsWith("~/") ? join(home, raw.slice(2)) : raw;
}

/** walk_for_skill_md: subdirectories in sorted order, their SKILL.md, then deeper. */
function walk(dir: string, out: string[], depth: number): void {
  if (depth > MAX_WALK_DEPTH) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const dirs = names.map((n) => join(dir, n)).filter(isDir);
  dirs.sort();
  for (const d of dirs) {
    const skill = join(d, "SKILL.md");
    if (isFile(skill)) out.push(skill);
    walk(d, out, depth + 1);
  }
}

/** find_skill_md_paths: the dir's own SKILL.md, then the walk. */
function skillMdPaths(dir: string): string[] {
  const out: string[] = [];
  if (isFile(join(dir, "SKILL.md"))) out.push(join(dir, "SKILL.md"));
  walk(dir, out, 0);
  return out;
}

export function normalizeSkillName(name: string): string {
  let out = "";
  for (const raw of name.trim()) {
    const c = raw.toLowerCase();
    const keep = /^[a-z0-9]$/.test(c) ? c : "-";
    if (keep === "-" && out.endsWith("-")) continue;
    out += keep;
  }
  return out.replace(/^-+|-+$/g, "");
}

function validSkillName(name: string): boolean {
  return (
    name !== "" &&
    name.length <= MAX_NAME_LEN &&
    !name.startsWith("-") &&
    !name.endsWith("-") &&
    !name.includes("--") &&
    /^[a-z0-9-]+$/.test(name)
  );
}

function unquote(v: string): string {
  const t = v.trim();
  if (
    t.length >= 2 &&
    ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))
  )
    return t.slice(1, -1);
  return t;
}

function splitFrontmatter(text: string): { fields: Map<string, string>; body: string } | undefined {
  const lines = text.split(/\r?\n/);
  if ((lines[0] ?? "").trim() !== "---") return undefined;
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === "---");
  if (end < 0) return undefined;
  const fields = new Map<string, string>();
  for (const line of lines.slice(1, end)) {
    const m = /^([A-Za-z_][\w-]*):(.*)$/.exec(line);
    if (m !== null) fields.set(m[1] ?? "", unquote(m[2] ?? ""));
  }
  return { fields, body: lines.slice(end + 1).join("\n") };
}

function describeBody(body: string): string | undefined {
  const paragraphs = body
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const prose = paragraphs.find((p) => !p.startsWith("#"));
  if (prose !== undefined) return prose.replace(/\s*\n\s*/g, " ");
  const heading = paragraphs.find((p) => p.startsWith("#"));
  return heading?.replace(/^#+\s*/, "").split("\n")[0];
}

interface Skill {
  name: string;
  description: string;
  hasUserSpecifiedDescription: boolean;
  path: string;
  scope: Scope;
  fromConfig: boolean;
}

function parseSkill(found: Found): Skill | undefined {
  let text: string;
  try {
    text = readFileSync(found.path, "utf8");
  } catch {
    return undefined;
  }
  const fallback = normalizeSkillName(dirname(found.path).split("/").pop() ?? "");
  const fm = splitFrontmatter(text);
  let name: string;
  if (fm?.fields.get("name") !== undefined && fm.fields.get("name") !== "") {
    name = normalizeSkillName(fm.fields.get("name") ?? "");
    if (!validSkillName(name)) return undefined;
  } else {
    if (!validSkillName(fallback)) return undefined;
    name = fallback;
  }
  const declared = fm?.fields.get("description")?.trim() ?? "";
  const description = declared !== "" ? declared : (describeBody(fm?.body ?? text) ?? name);
  return {
    name,
    description,
    hasUserSpecifiedDescription: declared !== "",
    path: found.path,
    scope: found.scope,
    fromConfig: found.fromConfig,
  };
}

/** list_skills_with_plugins for `cwd` and the config as it is on disk now. */
export function listSkills(cwd: string): JsonRecord[] {
  const cfg = skillsConfig(loadConfig().root);
  const root = gitRoot(cwd);
  const found: Found[] = [];
  const auto = (dir: string, scope: Scope): void => {
    const out: string[] = [];
    walk(dir, out, 0);
    for (const path of out) found.push({ path, scope, fromConfig: false });
  };
  auto(join(cwd, ".grok", "skills"), "local");
  if (root !== undefined && root !== cwd) auto(join(root, ".grok", "skills"), "repo");
  auto(join(grokHome(), "skills"), "user");
  for (const raw of cfg.paths) {
    const expanded = expandTilde(raw);
    const scope: Scope =
      root !== undefined && (expanded === root || expanded.startsWith(`${root}/`))
        ? "repo"
        : "user";
    const paths =
      isFile(expanded) && expanded.endsWith("/SKILL.md")
        ? [expanded]
        : isDir(expanded)
          ? skillMdPaths(expanded)
          : [];
    for (const path of paths) found.push({ path, scope, fromConfig: true });
  }
  const ignore = cfg.ignore.map((p) => canonical(expandTilde(p)));
  const skills = found
    .map(parseSkill)
    .filter((s): s is Skill => s !== undefined)
    .filter((s) => {
      const c = canonical(s.path);
      return !ignore.some((i) => c === i || c.startsWith(`${i}/`));
    })
    .sort((a, b) => SCOPE_ORDER[a.scope] - SCOPE_ORDER[b.scope]);
  const byPath = new Map<string, Skill>();
  const names = new Set<string>();
  const kept: Skill[] = [];
  for (const s of skills) {
    const c = canonical(s.path);
    const same = byPath.get(c);
    if (same !== undefined) {
      same.fromConfig ||= s.fromConfig;
      continue;
    }
    if (names.has(s.name)) continue;
    names.add(s.name);
    byPath.set(c, s);
    kept.push(s);
  }
  const disabled = new Set(cfg.disabled);
  return kept.map((s) => {
    const row: JsonRecord = {
      name: s.name,
      description: s.description,
      has_user_specified_description: s.hasUserSpecifiedDescription,
      path: s.path,
      scope: s.scope,
    };
    if (s.fromConfig) row.config_source = { type: "configToml", path: s.path };
    row.user_invocable = true;
    row.disable_model_invocation = false;
    row.enabled = !disabled.has(s.name);
    return row;
  });
}

/** resolve_skill_path: `~` expansion, relative to cwd, canonical when it exists. */
function resolveSkillPath(raw: string, cwd: string): string {
  const home = process.env.HOME ?? homedir();
  const expanded = raw === "~" ? home : raw.startsWith("~/") ? join(home, raw.slice(2)) : raw;
  const absolute = isAbsolute(expanded) ? expanded : join(cwd, expanded);
  return canonical(absolute);
}

function tomlArray(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(", ")}]`;
}

/**
 * Rewrite the `[skills]` table of `$GROK_HOME/config.toml`, keeping every other table. The real
 * `update_config` round-trips the whole config through its own serializer (comments and layout
 * inside `[skills]` are not preserved either).
 */
function writeSkillsSection(cfg: SkillsConfig): void {
  const file = join(grokHome(), "config.toml");
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  const kept: string[] = [];
  let inSkills = false;
  for (const line of text.split("\n")) {
    const header = /^\s*\[([^\]]+)\]\s*(#.*)?$/.exec(line);
    if (header !== null) inSkills = (header[1] ?? "").trim() === "skills";
    if (!inSkills) kept.push(line);
  }
  const body = kept.join("\n").replace(/\n*$/, "");
  const section = ["[skills]", `paths = ${tomlArray(cfg.paths)}`];
  if (cfg.ignore.length > 0) section.push(`ignore = ${tomlArray(cfg.ignore)}`);
  if (cfg.disabled.length > 0) section.push(`disabled = ${tomlArray(cfg.disabled)}`);
  writeFileSync(file, `${body === "" ? "" : `${body}\n\n`}${section.join("\n")}\n`);
}

/** `x.ai/skills/add`: the SkillsAddResponse fields (camelCase). */
export function addSkillPath(rawPath: string, cwd: string | undefined): JsonRecord {
  const base = cwd ?? ".";
  const resolved = resolveSkillPath(rawPath, isAbsolute(base) ? base : join(process.cwd(), base));
  const cfg = skillsConfig(loadConfig().root);
  cfg.ignore = cfg.ignore.filter(
    (i) => !(i === resolved || resolved.startsWith(i) || i.startsWith(resolved)),
  );
  if (!cfg.paths.includes(resolved)) cfg.paths.push(resolved);
  writeSkillsSection(cfg);
  const skills = listSkills(base);
  const addedCount = skills.filter((s) => str(s.path)?.startsWith(resolved) === true).length;
  const total = skills.length;
  return {
    addedCount,
    total,
    path: resolved,
    skills,
    message: `Added path ${resolved}. ${addedCount} new skill${addedCount === 1 ? "" : "s"} found (${total} total).`,
  };
}
