/**
 * argv -> command + input, validated against the command's spec (node:util parseArgs, strict).
 * Anything malformed is a UsageError: the dispatcher prints the usage and exits 2.
 */
import { parseArgs } from "node:util";
import { UsageError } from "../errors.js";
import type { Command, CommandInput } from "./command.js";

export interface ParsedArgs {
  readonly command: Command;
  readonly input: CommandInput;
  readonly json: boolean;
}

export type ParseResult =
  | { readonly kind: "help"; readonly command: Command | null }
  | ({ readonly kind: "run" } & ParsedArgs);

const globalFlags = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export function parseCommandLine(
  argv: readonly string[],
  commands: readonly Command[],
): ParseResult {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError("USAGE", "missing command");
  if (name === "--help" || name === "-h" || name === "help") return { kind: "help", command: null };
  const command = commands.find((c) => c.name === name);
  if (command === undefined) throw new UsageError("USAGE", `unknown command: ${name}`);

  const options: Record<string, { type: "boolean" | "string"; short?: string }> = {
    ...globalFlags,
  };
  for (const [flag, spec] of Object.entries(command.flags)) options[flag] = { type: spec.type };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true });
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new UsageError("USAGE", message, { cause });
  }
  if (parsed.values.help === true) return { kind: "help", command };
  const expected = command.positionals;
  if (parsed.positionals.length !== expected.length) {
    throw new UsageError(
      "USAGE",
      `${command.name} takes ${expected.map((p) => `<${p}>`).join(" ")}, got ${parsed.positionals.length} argument(s)`,
    );
  }
  const positionals: Record<string, string> = {};
  expected.forEach((p, i) => {
    positionals[p] = parsed.positionals[i] ?? "";
  });
  const flags: Record<string, string | boolean | undefined> = {};
  for (const flag of Object.keys(command.flags)) {
    const value: unknown = parsed.values[flag];
    if (typeof value === "string" || typeof value === "boolean") flags[flag] = value;
  }
  return {
    kind: "run",
    command,
    input: { positionals, flags },
    json: parsed.values.json === true,
  };
}

/** The usage text, built from the registry so a new command documents itself. */
export function usage(commands: readonly Command[], only: Command | null = null): string {
  const lines = ["usage: verify-proof <command> [arguments] [--json]", ""];
  for (const c of only === null ? commands : [only]) {
    const args = c.positionals.map((p) => `<${p}>`).join(" ");
    const flags = Object.entries(c.flags)
      .map(([f, s]) => (s.type === "boolean" ? ` [--${f}]` : ` [--${f} <value>]`))
      .join("");
    lines.push(`  verify-proof ${c.name} ${args}${flags} [--json]`, `      ${c.summary}`);
  }
  lines.push(
    "",
    "exit status: 0 every check passed, 1 a check failed, 2 usage or I/O error",
    "--json prints one object: { ok, subject, facts, checks, error? }",
  );
  return `${lines.join("\n")}\n`;
}
