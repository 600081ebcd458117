/**
 * The verify-proof dispatcher: parse argv, run the command, print, return the exit status
 * (0 every check passed, 1 a check failed, 2 usage or I/O error). It never calls process.exit.
 */
import { GrokSeatError, UsageError } from "../errors.js";
import { parseCommandLine, usage } from "./args.js";
import type { Command } from "./command.js";
import { allCommands, commandsFor } from "./commands/load.js";
import {
  errorText,
  type OutputStream,
  renderHuman,
  reportJson,
  reportOk,
  stderrLine,
  useColor,
} from "./output.js";

export interface CliIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

function errorJson(subject: string, code: string, message: string): string {
  return `${JSON.stringify({ ok: false, subject, facts: null, checks: [], error: { code, message } })}\n`;
}

export async function main(
  argv: readonly string[],
  io: CliIo,
  given?: readonly Command[],
): Promise<number> {
  const wantsJson = argv.includes("--json");
  // Without a list, only the named command is loaded (commands/load.ts); usage lists them all.
  const commands = given ?? (await commandsFor(argv[0]));
  const everyCommand = async (): Promise<readonly Command[]> => given ?? allCommands();
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv, commands);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`${stderrLine("verify-proof", message)}${usage(await everyCommand())}`);
    if (wantsJson) io.stdout.write(errorJson(argv[0] ?? "", "USAGE", message));
    return 2;
  }
  if (parsed.kind === "help") {
    io.stdout.write(usage(commands, parsed.command));
    return 0;
  }
  const { command, input, json } = parsed;
  try {
    const report = await command.run(input, (m) => io.stderr.write(stderrLine("verify-proof", m)));
    if (json) io.stdout.write(`${JSON.stringify(reportJson(report))}\n`);
    else io.stdout.write(renderHuman(report, useColor(io.stdout, io.env)));
    return reportOk(report) ? 0 : 1;
  } catch (err) {
    const code = err instanceof GrokSeatError ? err.code : "INTERNAL";
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`verify-proof ${command.name}: ${errorText(code, message)}\n`);
    if (err instanceof UsageError) io.stderr.write(usage(commands, command));
    if (json) io.stdout.write(errorJson(command.name, code, message));
    return 2;
  }
}
