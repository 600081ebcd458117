/**
 * The seat's persona (issue 14): the service persona and memory card the orchestrator gives a
 * fresh seat, applied natively with `--rules=<text>` on the TUI's command line (lib/grok/persona.ts
 * for what Grok does with it). One argv element, `--rules=<text>`, because clap takes a value
 * starting with `-` for a flag (the arg has no `allow_hyphen_values`, pager `app/cli.rs`).
 *
 * An argv is readable by every local user (the process table, `/proc/<pid>/cmdline`) and echoed
 * by Herdr: never put a credential in a persona. The text itself is kept only in memory: the
 * recorded launch argv, the pane proof and every progress event show `personaLabel` (its SHA-256
 * and length) in its place, and the seat record keeps only the digest.
 *
 * Grok's memory is experimental and not guaranteed to be recalled, so a memory card travels in
 * the persona text. With the owner's own profile the selected skills cannot be configured (their
 * config is never written), so the persona says where they are (`skillsNote`).
 */
import { type CheckResult, fail, pass } from "../check.js";
import { type PersonaDigest, personaDigest, personaLabel } from "../grok/persona.js";
import type { SkillEntry } from "./skills.js";

/** The argument that carries the persona. */
export const RULES_PREFIX = "--rules=";
/**
 * Linux's limit on one argument: MAX_ARG_STRLEN, 32 pages = 131072 bytes including the NUL
 * (execve fails with E2BIG above it). `--rules=` takes 8 of them.
 */
export const MAX_ARG_BYTES = 131072;
export const MAX_PERSONA_BYTES = MAX_ARG_BYTES - 1 - RULES_PREFIX.length;

export interface Persona extends PersonaDigest {
  /** The text Grok gets (the caller's persona, then the skills note when there is one). */
  readonly text: string;
  /** Whether the skills note was appended (the owner's profile with selected skills). */
  readonly skillsNote: boolean;
}

/** What the persona says about skills it cannot configure (readable paths, not installed). */
export function skillsNote(skills: readonly SkillEntry[]): string {
  const lines = skills.map((s) => `- ${s.realPath} (${s.kind === "file" ? "file" : "directory"})`);
  return [
    "Skills selected for this session (readable paths, not installed; read a skill's SKILL.md before you use it):",
    ...lines,
  ].join("\n");
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The persona Grok gets, and the checks on it: `persona.text` (a string without NUL or lone
 * surrogates, which no argv or JSON can carry) and `persona.length` (at most
 * MAX_PERSONA_BYTES of UTF-8). Null when there is nothing to apply.
 */
export function buildPersona(
  persona: unknown,
  note: string | null,
): { persona: Persona | null; checks: CheckResult[] } {
  if (persona === undefined && note === null) return { persona: null, checks: [] };
  if (persona !== undefined && (typeof persona !== "string" || persona.trim() === "")) {
    return {
      persona: null,
      checks: [fail("persona.text", "non-empty text", typeof persona, "the persona is not text")],
    };
  }
  const own = typeof persona === "string" ? persona : "";
  const text = note === null ? own : own === "" ? note : `${own}\n\n${note}`;
  if (text.includes("\0") || LONE_SURROGATE.test(text)) {
    return {
      persona: null,
      checks: [
        fail(
          "persona.text",
          "text without NUL or lone surrogates",
          "unencodable",
          "the persona holds a NUL or a lone surrogate, which no argument can carry",
        ),
      ],
    };
  }
  const d = personaDigest(text);
  const checks = [
    pass("persona.text", "text without NUL or lone surrogates", "text"),
    d.bytes <= MAX_PERSONA_BYTES
      ? pass("persona.length", `<= ${MAX_PERSONA_BYTES} bytes`, d.bytes)
      : fail(
          "persona.length",
          `<= ${MAX_PERSONA_BYTES} bytes`,
          d.bytes,
          `the persona is ${d.bytes} bytes: one argument may hold at most ${MAX_ARG_BYTES} bytes with its NUL (Linux MAX_ARG_STRLEN), ${MAX_PERSONA_BYTES} after "${RULES_PREFIX}"`,
        ),
  ];
  return { persona: { ...d, text, skillsNote: note !== null }, checks };
}

/** The argv element carrying the persona. */
export function rulesArg(p: Persona): string {
  return `${RULES_PREFIX}${p.text}`;
}

/** An argv as it may be recorded or shown: a `--rules=<text>` element replaced by its label. */
export function redactArgv(argv: readonly string[]): string[] {
  return argv.map((a) =>
    a.startsWith(RULES_PREFIX)
      ? `${RULES_PREFIX}${personaLabel(personaDigest(a.slice(RULES_PREFIX.length)))}`
      : a,
  );
}
