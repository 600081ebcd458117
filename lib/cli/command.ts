/**
 * The shape of one verify-proof command. Commands are listed in `commands/index.ts`, one line
 * each; the dispatcher (`main.ts`) parses argv against a command's spec and prints its report.
 */
import type { CheckResult } from "../check.js";
import type { JsonValue } from "../json.js";

export interface FlagSpec {
  readonly type: "boolean" | "string";
  readonly description: string;
}

/** Parsed arguments: named positionals (all required) and flags as given. */
export interface CommandInput {
  readonly positionals: Readonly<Record<string, string>>;
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
}

/** Where a command writes progress (stderr); stdout belongs to the report. */
export type Progress = (message: string) => void;

/**
 * What a command found. `error` is set when the subject could not be read at all (e.g. the pid
 * does not exist); that is still a failed proof (exit 1), not an I/O error. I/O and usage errors
 * are thrown instead (exit 2).
 */
export interface Report {
  readonly subject: string;
  readonly facts: JsonValue;
  readonly checks: readonly CheckResult[];
  readonly error?: { readonly code: string; readonly message: string };
  /**
   * Sections a command's JSON contract names at the top level (e.g. `leader` for
   * `socket --leader`; `herdr`, `process`, `agent` for `pane`). They also stay in `facts`.
   */
  readonly topLevel?: Readonly<Record<string, JsonValue>>;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  /** Names of the required positional arguments, in order, e.g. ["pid"]. */
  readonly positionals: readonly string[];
  /** Command-specific flags (`--json` and `--help` are global). */
  readonly flags: Readonly<Record<string, FlagSpec>>;
  run(input: CommandInput, progress: Progress): Promise<Report>;
}
