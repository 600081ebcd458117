// Which agent runs in a pane, decided from kernel process facts the way Herdr's process probe
// does (src/pane.rs probe_foreground_process_from_jobs, src/detect/mod.rs identify_agent_in_job,
// normalized_process_name and the runtime-wrapper rules): the HERDR_AGENT hint of the group
// leader, then the leader's own name, then a `node grok`-style wrapper, then any member.
import { realpathSync } from "node:fs";
import { lookupName, parseAgentLabel } from "./agents.js";
import {
  type ForegroundJob,
  type ForegroundProcess,
  foregroundGroupLeaderJob,
  foregroundJob,
  foregroundProcessGroupId,
  readEnvVar,
} from "./procfs.js";

function basename(path: string): string {
  const parts = path.split(/[/\\]/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}

function isPythonRuntime(name: string): boolean {
  if (name === "python") return true;
  if (!name.startsWith("python")) return false;
  const version = name.slice("python".length);
  return version !== "" && version.split(".").every((part) => /^\d+$/.test(part));
}

function isGenericRuntimeOrShell(name: string): boolean {
  const n = lookupName(basename(name));
  return (
    isPythonRuntime(n) ||
    ["sh", "bash", "zsh", "fish", "tmux", "node", "bun", "cmd", "powershell", "pwsh"].includes(n)
  );
}

function agentFromBasename(name: string): string | null {
  return parseAgentLabel(name);
}

function agentFromPathToken(token: string): string | null {
  const trimmed = token.replace(/^["']+|["']+$/g, "");
  if (trimmed === "" || trimmed.startsWith("-")) return null;
  const direct = agentFromBasename(basename(trimmed));
  if (direct !== null) return direct;
  const parts = trimmed
    .split(/[/\\]/)
    .filter((p) => p !== "")
    .map(lookupName);
  for (let i = 0; i + 5 <= parts.length; i++) {
    if (parts.slice(i, i + 5).join("/") === "node_modules/@earendil-works/pi-coding-agent/dist/cli")
      return "pi";
  }
  for (let i = 0; i + 4 <= parts.length; i++) {
    if (parts.slice(i, i + 4).join("/") === "node_modules/mastracode/dist/cli") return "mastracode";
  }
  if (trimmed.split(/[/\\]/).filter((p) => p !== "").length >= 2 || trimmed.startsWith("/")) {
    try {
      return agentFromBasename(basename(realpathSync(trimmed)));
    } catch {
      return null;
    }
  }
  return null;
}

const OPTIONS_WITH_VALUE = [
  "-r",
  "--require",
  "--loader",
  "--import",
  "--experimental-loader",
  "--inspect-port",
  "-W",
  "-X",
  "-S",
  "-L",
  "-o",
];

function flagMatches(arg: string, flags: readonly string[]): boolean {
  return flags.some(
    (flag) =>
      arg === flag ||
      (flag.startsWith("-") &&
        !flag.startsWith("--") &&
        arg.startsWith(flag) &&
        arg.length > flag.length) ||
      (flag.startsWith("--") && arg.startsWith(`${flag}=`)),
  );
}

function scriptArgAgent(
  argv: readonly string[],
  evalFlags: readonly string[],
  moduleFlags: readonly string[],
) {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      const next = argv[i + 1];
      return next === undefined ? null : agentFromPathToken(next);
    }
    if (flagMatches(arg, evalFlags) || flagMatches(arg, moduleFlags)) return null;
    if (arg.startsWith("-")) {
      if (OPTIONS_WITH_VALUE.includes(arg)) i++;
      continue;
    }
    return agentFromPathToken(arg);
  }
  return null;
}

function wrappedAgentFromRuntimeArgv(
  runtime: string,
  argv: readonly string[] | null,
): string | null {
  if (argv === null) return null;
  const name = lookupName(basename(runtime));
  if (name === "node" || name === "bun")
    return scriptArgAgent(argv, ["-e", "--eval", "-p", "--print"], []);
  if (isPythonRuntime(name)) return scriptArgAgent(argv, ["-c"], ["-m"]);
  if (["sh", "bash", "zsh", "fish"].includes(name)) return scriptArgAgent(argv, ["-c"], []);
  return null;
}

/** normalized_process_name: the name identification looks at (argv0 is never set on Linux). */
function normalizedProcessName(p: ForegroundProcess): string {
  const effective = p.name;
  if (isGenericRuntimeOrShell(effective.toLowerCase())) {
    const wrapped = wrappedAgentFromRuntimeArgv(effective.toLowerCase(), p.argv);
    if (wrapped !== null) return wrapped;
  }
  if (parseAgentLabel(effective) !== null) return effective;
  const first = p.argv?.[0];
  const fromArgv0 = first === undefined ? null : agentFromPathToken(first);
  return fromArgv0 ?? effective;
}

function priority(p: ForegroundProcess, normalized: string): number {
  if (normalized.toLowerCase() !== p.name.toLowerCase()) return 3;
  return isGenericRuntimeOrShell(normalized.toLowerCase()) ? 1 : 2;
}

/** identify_agent_in_job: the group leader first, then the best-scoring member. */
export function identifyAgentInJob(job: ForegroundJob): string | null {
  const leader = job.processes.find((p) => p.pid === job.processGroupId);
  if (leader !== undefined) {
    const agent = parseAgentLabel(normalizedProcessName(leader));
    if (agent !== null) return agent;
  }
  let best: { score: number; agent: string } | null = null;
  for (const p of job.processes) {
    const normalized = normalizedProcessName(p);
    const agent = parseAgentLabel(normalized);
    if (agent === null) continue;
    const score = priority(p, normalized);
    if (best === null || score > best.score) best = { score, agent };
  }
  return best?.agent ?? null;
}

function hint(pid: number): string | null {
  const value = readEnvVar(pid, "HERDR_AGENT");
  return value === null ? null : parseAgentLabel(value);
}

/** probe_foreground_process: the agent in the pane's foreground, or null. */
export function probeForegroundAgent(childPid: number): string | null {
  const pgid = foregroundProcessGroupId(childPid);
  const leaderJob = pgid === null ? null : foregroundGroupLeaderJob(pgid);
  if (leaderJob !== null) {
    const hinted = hint(leaderJob.processGroupId);
    if (hinted !== null) return hinted;
    const identified = identifyAgentInJob(leaderJob);
    if (identified !== null) return identified;
  }
  const job = foregroundJob(childPid);
  if (job === null) return null;
  const leaderHint = hint(job.processGroupId);
  if (leaderHint !== null) return leaderHint;
  const leader = job.processes.filter((p) => p.pid === job.processGroupId);
  const fromLeader = identifyAgentInJob({ processGroupId: job.processGroupId, processes: leader });
  if (fromLeader !== null) return fromLeader;
  for (const p of job.processes) {
    if (p.pid === job.processGroupId) continue;
    const h = hint(p.pid);
    if (h !== null) return h;
  }
  return identifyAgentInJob(job);
}
