/**
 * `verify-proof record`'s re-check of what a hire applied to the session (issue 14), from disk
 * only: the command is read-only (no registration with the leader, no ACP message), so
 * `x.ai/mcp/list` and `x.ai/skills/list` cannot be asked again. What the files still prove:
 *
 * - `persona.system_prompt`, `persona.chat_head`: the session's `system_prompt.txt` and the head
 *   of `chat_history.jsonl` still hold the recorded persona digest inside `<human_rules>`
 *   (lib/grok/persona.ts; a model switch since the hire can have dropped it);
 * - `profile.config`: a temporary profile's `config.toml` (the bank's proxy, its permission rule,
 *   the skill paths) still has the bytes the seat wrote (SHA-256 and length);
 * - `skills.files`: each discovered manifest entry still yields the skill files Grok listed
 *   at the hire (lib/grok/skills.ts, the walk Grok does).
 *
 * The bank's presence in Grok's live list is not re-checked here (it needs the leader).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { type CheckResult, expectEqual, fail } from "../check.js";
import { checkPersona } from "../grok/persona.js";
import { readPromptArtifacts } from "../grok/session-files.js";
import { canonicalPath, skillFilesOf } from "../grok/skills.js";
import type { SeatRecord } from "./seat-record.js";

/** A config.toml the seat wrote is small; anything larger is not ours. */
const MAX_CONFIG_BYTES = 1024 * 1024;

export function checkAppliedFromDisk(record: SeatRecord): CheckResult[] {
  const checks: CheckResult[] = [];
  const persona = record.persona ?? null;
  if (persona !== null) {
    const artifacts = readPromptArtifacts(record.profile.grokHome, record.cwd, record.sessionId);
    checks.push(...checkPersona(artifacts, persona));
  }
  const config = record.profileConfig ?? null;
  if (config !== null) {
    const expected = { sha256: config.sha256, bytes: config.bytes };
    let bytes: Buffer | null = null;
    let error = "";
    try {
      bytes = readFileSync(config.path);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (bytes === null || bytes.length > MAX_CONFIG_BYTES) {
      checks.push(
        fail(
          "profile.config",
          expected,
          bytes === null ? "unreadable" : { bytes: bytes.length },
          bytes === null
            ? `${config.path} cannot be read: ${error}`
            : `${config.path} is larger than any config the seat writes`,
        ),
      );
    } else {
      checks.push(
        expectEqual(
          "profile.config",
          expected,
          { sha256: createHash("sha256").update(bytes).digest("hex"), bytes: bytes.length },
          `${config.path} is no longer the config.toml the seat wrote`,
        ),
      );
    }
  }
  for (const entry of record.skillsDiscovered ?? []) {
    const now = skillFilesOf(entry.realPath)
      .map(canonicalPath)
      .filter((p): p is string => p !== null);
    checks.push(
      expectEqual(
        "skills.files",
        { realPath: entry.realPath, files: [...entry.files] },
        { realPath: entry.realPath, files: now },
        `${entry.realPath} no longer yields the SKILL.md files Grok listed at the hire`,
      ),
    );
  }
  return checks;
}
