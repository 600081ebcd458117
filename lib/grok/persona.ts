/**
 * The persona as Grok applies it (issue 14): `--rules <TEXT>` (pager `app/cli.rs`, alias
 * `--append-system-prompt`) rides the TUI's `initialize` `_meta.rules`, and a session spawned
 * with an empty history gets the agent template followed by
 * `\n\n<human_rules>\n<TEXT>\n</human_rules>` (xai-grok-shell `agent/mvp_agent/mod.rs`
 * `build_spawn_system_prompt`, called from `agent_ops.rs`), written to `system_prompt.txt` and as
 * the head of the conversation. It is applied at creation only: an attach never re-applies it.
 *
 * A model switch can take it away again (`agent/handlers/model_switch.rs`,
 * `session/acp_session_impl/model_switch.rs`): a compatible switch to another model rewrites the
 * conversation's system head to the agent's own prompt (no rules) but not `system_prompt.txt`;
 * a harness rebuild before the first turn rewrites both. So the proof reads both.
 *
 * The check works from the persona's SHA-256 and byte length, not its text, so a saved record
 * (which keeps only those) can be re-checked.
 */
import { createHash } from "node:crypto";
import { type CheckResult, fail, pass } from "../check.js";
import type { PromptArtifacts } from "./session-files.js";

const OPEN = Buffer.from("<human_rules>\n", "utf8");
const CLOSE = Buffer.from("\n</human_rules>", "utf8");
/** Occurrences of the opening tag looked at; a real prompt has one. */
const MAX_BLOCKS = 256;

export interface PersonaDigest {
  /** SHA-256 of the persona's UTF-8 bytes, hex. */
  readonly sha256: string;
  /** Its length in UTF-8 bytes. */
  readonly bytes: number;
}

export function personaDigest(text: string): PersonaDigest {
  const bytes = Buffer.from(text, "utf8");
  return { sha256: createHash("sha256").update(bytes).digest("hex"), bytes: bytes.length };
}

/** How a persona is named wherever its text must not appear (argv records, progress events). */
export function personaLabel(d: PersonaDigest): string {
  return `<persona sha256:${d.sha256} bytes:${d.bytes}>`;
}

/** Whether `text` holds `<human_rules>\n<persona>\n</human_rules>` for the persona `d`. */
export function holdsRules(text: Buffer, d: PersonaDigest): boolean {
  let from = 0;
  for (let i = 0; i < MAX_BLOCKS; i++) {
    const at = text.indexOf(OPEN, from);
    if (at < 0) return false;
    const start = at + OPEN.length;
    const end = start + d.bytes;
    if (
      end + CLOSE.length <= text.length &&
      text.subarray(end, end + CLOSE.length).equals(CLOSE) &&
      createHash("sha256").update(text.subarray(start, end)).digest("hex") === d.sha256
    )
      return true;
    from = at + 1;
  }
  return false;
}

/** Whether the artifacts are still to be written (worth waiting for) rather than wrong. */
export function artifactsPending(a: PromptArtifacts): boolean {
  return (
    a.dir === null ||
    a.systemPrompt === null ||
    (!a.systemPrompt.ok && a.systemPrompt.reason === "absent") ||
    a.chatHead === null ||
    (!a.chatHead.ok && a.chatHead.reason === "absent")
  );
}

/**
 * `persona.system_prompt` and `persona.chat_head`: each artifact holds the persona inside
 * `<human_rules>`. Pure: the artifacts come from `readPromptArtifacts`.
 */
export function checkPersona(a: PromptArtifacts, d: PersonaDigest): CheckResult[] {
  const expected = { humanRules: { sha256: d.sha256, bytes: d.bytes } };
  const sp = a.systemPrompt;
  const head = a.chatHead;
  const where = a.dir ?? "the session directory";
  return [
    sp === null || !sp.ok
      ? fail(
          "persona.system_prompt",
          expected,
          sp?.ok === false ? sp.reason : "absent",
          `${sp?.path ?? `${where}/system_prompt.txt`} is ${sp?.ok === false ? sp.reason : "absent"}`,
        )
      : holdsRules(sp.bytes, d)
        ? pass("persona.system_prompt", expected, sp.path)
        : fail(
            "persona.system_prompt",
            expected,
            "no matching <human_rules>",
            `${sp.path} does not hold the persona inside <human_rules>: Grok did not apply it`,
          ),
    head === null || !head.ok
      ? fail(
          "persona.chat_head",
          expected,
          head?.ok === false ? head.reason : "absent",
          `the conversation head in ${head?.path ?? `${where}/chat_history.jsonl`} is ${head?.ok === false ? head.reason : "absent"}`,
        )
      : holdsRules(Buffer.from(head.content, "utf8"), d)
        ? pass("persona.chat_head", expected, head.path)
        : fail(
            "persona.chat_head",
            expected,
            "no matching <human_rules>",
            `the system head of ${head.path} (what the model is sent) no longer holds the persona: a model switch rewrote it`,
          ),
  ];
}
