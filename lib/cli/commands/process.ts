/**
 * `verify-proof process <pid>`: read the kernel facts of one pid twice and check that it exists,
 * is readable, and keeps its identity between the reads. A missing pid, a zombie and a denied
 * read are failed checks (exit 1); a broken kernel call is an I/O error (exit 2).
 */
import { UsageError } from "../../errors.js";
import type { JsonValue } from "../../json.js";
import type { ProcessFacts } from "../../kernel/index.js";
// The one kernel call this command makes, from its own files: the kernel index (and
// `systemKernel`) would load every kernel call, most of `verify-proof process`'s start-up (issue 19).
import { processFacts } from "../../kernel/process.js";
import { type ProcessRead, readProcess } from "../../kernel/process-read.js";
import { checkIdentityStable, checkProcessRead } from "../../proof/process.js";
import type { Command } from "../command.js";

/** The kernel failures that answer the question "is this pid a readable, live process?". */
const answers = new Set(["NO_SUCH_PROCESS", "ZOMBIE", "ACCESS_DENIED"]);

/** Any other failure is a broken kernel call, an I/O error (exit 2), and is thrown. */
function read(pid: number): ProcessRead {
  return readProcess({ processFacts }, pid, answers);
}

export function parsePid(text: string): number {
  const pid = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(pid) || pid < 1 || pid > 2 ** 31 - 1) {
    throw new UsageError(
      "USAGE",
      `not a pid: ${JSON.stringify(text)} (an integer in 1..2147483647)`,
    );
  }
  return pid;
}

/** The --json facts object (keys fixed by the CLI contract). */
export function processFactsJson(f: ProcessFacts): JsonValue {
  return {
    pid: f.pid,
    ppid: f.ppid,
    uid: f.uid,
    euid: f.euid,
    executable: f.executable,
    executableDeleted: f.executableDeleted,
    cwd: f.cwd,
    tty: f.tty,
    startTimeUs: f.startTimeUs,
    startTimePrecisionUs: f.startTimePrecisionUs,
    identity: { kind: f.identity.kind, value: f.identity.value },
  };
}

export const processCommand: Command = {
  name: "process",
  summary: "prove that <pid> is a live, readable process with a stable identity",
  positionals: ["pid"],
  flags: {},
  async run(input, progress) {
    const pid = parsePid(input.positionals.pid ?? "");
    progress(`reading the kernel facts of pid ${pid}`);
    const first = read(pid);
    const checks = checkProcessRead(pid, first);
    if (!first.ok) {
      return { subject: "process", facts: null, checks, error: first.error };
    }
    checks.push(checkIdentityStable(first.facts.identity, read(pid)));
    return { subject: "process", facts: processFactsJson(first.facts), checks };
  },
};
