/**
 * Selected skills are recorded as a manifest of readable paths, never installed (ADR 0224 (docs/design/adr-0224.md):
 * "Selected skills are readable paths, not an asserted native plugin installation"). Each path is
 * resolved and checked readable (a directory also searchable) now; nothing is copied, linked or
 * registered with Grok.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import * as v from "valibot";
import { type CheckResult, fail, pass } from "../check.js";
import { failureOr } from "../errors.js";

export const SkillEntrySchema = v.object({
  /** The path as the caller gave it (made absolute). */
  path: v.string(),
  /** Its canonical path when checked. */
  realPath: v.string(),
  kind: v.picklist(["file", "directory"]),
  /** Size in bytes for a file; null for a directory. */
  bytes: v.nullable(v.number()),
});
export type SkillEntry = v.InferOutput<typeof SkillEntrySchema>;

/** One `skills.readable` check per path, and the manifest of those that passed. */
export function buildSkillManifest(paths: readonly string[]): {
  manifest: SkillEntry[];
  checks: CheckResult[];
} {
  const manifest: SkillEntry[] = [];
  const checks: CheckResult[] = [];
  for (const given of paths) {
    const path = resolve(given);
    try {
      const realPath = realpathSync(path);
      const st = statSync(realPath);
      if (!st.isFile() && !st.isDirectory()) {
        checks.push(
          fail("skills.readable", path, "other", `${path} is neither a file nor a directory`),
        );
        continue;
      }
      const kind = st.isDirectory() ? "directory" : "file";
      accessSync(realPath, kind === "directory" ? constants.R_OK | constants.X_OK : constants.R_OK);
      manifest.push({ path, realPath, kind, bytes: kind === "file" ? st.size : null });
      checks.push(pass("skills.readable", path, realPath));
    } catch (err) {
      const errno = failureOr(err, "EIO").code;
      checks.push(fail("skills.readable", path, errno, `${path} is not readable (${errno})`));
    }
  }
  return { manifest, checks };
}
