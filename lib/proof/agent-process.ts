/**
 * Is the pane's process the expected agent's executable, as Herdr would detect it? Herdr's
 * `agent` can rest on a report alone: a `herdr:grok` session report from any same-uid process
 * names grok on a pane where no grok runs (agent absent, `agent_session.agent: "grok"`,
 * docs/design/herdr-socket-api.md §5.4). So an agent claim also needs the process.
 *
 * The rules are Herdr's process identification (`src/detect/mod.rs`): `lookup_agent`'s names and
 * aliases after `normalized_agent_lookup_name` (lower case, one of `.exe .cmd .bat .ps1 .js`
 * dropped); `normalized_process_name` (argv0 else the process name; a `node`/`bun`/`python`/shell
 * runtime is looked through to the script it runs, `script_arg_agent_name`; else argv[0] or the
 * command line's first word, by basename or known package path); `identify_agent_in_job` (the
 * foreground group leader first, then the member with the best `process_priority`). Two inputs
 * stand in for what Herdr reads itself: its own `pane.process_info` job (the name is the kernel's
 * `comm` on Linux, argv its `/proc/<pid>/cmdline`) and, for Herdr's `canonicalize` of an argv path
 * (`resolved_agent_name_from_path_token`), the kernel's canonical executable of the bound pid.
 *
 * Not evidence here: the `HERDR_AGENT` environment hint (`src/platform/mod.rs`
 * parse_agent_env_hint), which any process can set for itself and says nothing of its
 * executable; a job member the kernel does not place on the pane's terminal.
 */
import { type CheckResult, fail, pass } from "../check.js";
import type { JsonValue } from "../json.js";

/** `lookup_agent` (ogulcancelik/herdr 0.8, plus `qwen` from herdrdev/herdr 0.8.2) → `agent_label`. */
const AGENT_NAMES: Readonly<Record<string, string>> = {
  pi: "pi",
  claude: "claude",
  "claude-code": "claude",
  codex: "codex",
  gemini: "gemini",
  cursor: "cursor",
  "cursor-agent": "cursor",
  devin: "devin",
  "devin-cli": "devin",
  "devin cli": "devin",
  agy: "agy",
  antigravity: "agy",
  "antigravity-cli": "agy",
  cline: "cline",
  omp: "omp",
  mastracode: "mastracode",
  "mastra-code": "mastracode",
  "mastra code": "mastracode",
  opencode: "opencode",
  opencode2: "opencode",
  "open-code": "opencode",
  copilot: "copilot",
  "github-copilot": "copilot",
  ghcs: "copilot",
  kimi: "kimi",
  "kimi-code": "kimi",
  "kimi code": "kimi",
  kiro: "kiro",
  "kiro-cli": "kiro",
  droid: "droid",
  amp: "amp",
  "amp-local": "amp",
  grok: "grok",
  "grok-build": "grok",
  hermes: "hermes",
  "hermes-agent": "hermes",
  kilo: "kilo",
  "kilo-code": "kilo",
  "kilo code": "kilo",
  qodercli: "qodercli",
  qoderclicn: "qodercli",
  qoder: "qodercli",
  qodercn: "qodercli",
  qwen: "qwen",
  "qwen-code": "qwen",
  "qwen code": "qwen",
  maki: "maki",
};

/** One member of the pane's foreground job as Herdr reports it (`PaneProcessInfoProcess`). */
export interface JobMember {
  readonly pid: number;
  readonly name: string;
  readonly argv0?: string | null | undefined;
  readonly argv?: readonly string[] | null | undefined;
  readonly cmdline?: string | null | undefined;
}

/** How the agent was recognised in a process. */
export type AgentProcessVia = "name" | "argv" | "script" | "package_path" | "executable";

export interface AgentProcessSighting {
  /** Herdr's agent label (e.g. "grok" for `grok-build`), or null when no member is an agent. */
  readonly agent: string | null;
  readonly pid: number | null;
  readonly via: AgentProcessVia | null;
  /** The name or path the agent was recognised by. */
  readonly matched: string | null;
}

export interface AgentProcessFacts {
  /** The pane's bound process (`shell_pid`) and the kernel's canonical executable for it. */
  readonly boundPid: number;
  readonly boundExecutable: string | null;
  /** Herdr's foreground job of the pane (`pane.process_info`); null when it gave none. */
  readonly job: {
    readonly processGroupId: number | null;
    readonly members: readonly JobMember[];
  } | null;
  /**
   * The members the kernel places on the pane's terminal (the bound pid is, by the pane proof).
   * A member outside this set is not the pane's process, whatever Herdr listed.
   */
  readonly onPaneTerminal: ReadonlySet<number>;
}

function normalized(name: string): string {
  let n = name.trim().toLowerCase();
  for (const suffix of [".exe", ".cmd", ".bat", ".ps1", ".js"]) {
    if (n.endsWith(suffix)) {
      n = n.slice(0, -suffix.length);
      break;
    }
  }
  return n;
}

/** `parse_agent_label`: an agent label for a process or file name, or null. */
export function agentOfName(name: string): string | null {
  return AGENT_NAMES[normalized(name)] ?? null;
}

function basename(path: string): string {
  const parts = path.split(/[/\\]/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}

function isPython(name: string): boolean {
  if (name === "python") return true;
  const version = name.startsWith("python") ? name.slice("python".length) : "";
  return version !== "" && version.split(".").every((p) => /^[0-9]+$/.test(p));
}

function isRuntimeOrShell(name: string): boolean {
  const n = normalized(basename(name));
  return (
    isPython(n) ||
    ["sh", "bash", "zsh", "fish", "tmux", "node", "bun", "cmd", "powershell", "pwsh"].includes(n)
  );
}

/** `agent_name_from_known_package_path`: Pi's and Mastra Code's npm entry points. */
function agentOfPackagePath(path: string): string | null {
  const parts = path
    .split(/[/\\]/)
    .filter((p) => p !== "")
    .map(normalized);
  const has = (window: readonly string[]): boolean =>
    parts.some((_, i) => window.every((w, j) => parts[i + j] === w));
  if (has(["node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli"])) return "pi";
  if (has(["node_modules", "mastracode", "dist", "cli"])) return "mastracode";
  return null;
}

type Found = { readonly agent: string; readonly via: AgentProcessVia; readonly matched: string };

/** `agent_name_from_path_token`, without the file system (`canonicalize` is the kernel's part). */
function agentOfPathToken(token: string, via: AgentProcessVia): Found | null {
  const t = token.replace(/^["']+|["']+$/g, "");
  if (t === "" || t.startsWith("-")) return null;
  const byName = agentOfName(basename(t));
  if (byName !== null) return { agent: byName, via, matched: t };
  const byPackage = agentOfPackagePath(t);
  return byPackage === null ? null : { agent: byPackage, via: "package_path", matched: t };
}

const TAKES_VALUE = new Set([
  ...["-r", "--require", "--loader", "--import", "--experimental-loader", "--inspect-port"],
  ...["-W", "-X", "-S", "-L", "-o"],
]);

function flagMatches(arg: string, flags: readonly string[]): boolean {
  return flags.some(
    (f) =>
      arg === f ||
      (f.startsWith("-") && !f.startsWith("--") && arg.startsWith(f) && arg.length > f.length) ||
      (f.startsWith("--") && arg.startsWith(`${f}=`)),
  );
}

/** `script_arg_agent_name`: the script a runtime runs (`node …/cli.js`, `sh ./grok`). */
function agentOfScriptArgs(argv: readonly string[], stop: readonly string[]): Found | null {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      const next = argv[i + 1];
      return next === undefined ? null : agentOfPathToken(next, "script");
    }
    if (flagMatches(arg, stop)) return null;
    if (arg.startsWith("-")) {
      if (TAKES_VALUE.has(arg)) i++;
      continue;
    }
    return agentOfPathToken(arg, "script");
  }
  return null;
}

/** `normalized_process_name` + `identify_agent`: the agent one process is, or null. */
export function agentOfProcess(p: JobMember): Found | null {
  const effective = p.argv0 ?? p.name;
  const lower = effective.toLowerCase();
  if (isRuntimeOrShell(lower) && p.argv !== null && p.argv !== undefined) {
    const runtime = normalized(basename(lower));
    let wrapped: Found | null = null;
    if (runtime === "node" || runtime === "bun")
      wrapped = agentOfScriptArgs(p.argv, ["-e", "--eval", "-p", "--print"]);
    else if (isPython(runtime)) wrapped = agentOfScriptArgs(p.argv, ["-c", "-m"]);
    else if (["sh", "bash", "zsh", "fish"].includes(runtime))
      wrapped = agentOfScriptArgs(p.argv, ["-c"]);
    if (wrapped !== null) return wrapped;
  }
  const byName = agentOfName(effective);
  if (byName !== null) return { agent: byName, via: "name", matched: effective };
  const argv0 = p.argv?.[0];
  const fromArgv = argv0 === undefined ? null : agentOfPathToken(argv0, "argv");
  if (fromArgv !== null) return fromArgv;
  const first = (p.cmdline ?? "").split(/\s+/).find((w) => w !== "");
  return first === undefined ? null : agentOfPathToken(first, "argv");
}

/** `process_priority`: a name recognised through argv beats a plain name beats a runtime. */
function priority(p: JobMember, found: Found): number {
  if (found.via !== "name" || found.matched.toLowerCase() !== p.name.toLowerCase()) return 3;
  return isRuntimeOrShell(p.name.toLowerCase()) ? 1 : 2;
}

/**
 * `identify_agent_in_job` over the members on the pane's terminal, then the kernel's canonical
 * executable of the bound pid. The first agent found is the pane's, as Herdr would name it.
 */
export function detectAgentProcess(facts: AgentProcessFacts): AgentProcessSighting {
  const members = (facts.job?.members ?? []).filter((m) => facts.onPaneTerminal.has(m.pid));
  const leader = members.find((m) => m.pid === facts.job?.processGroupId);
  const fromLeader = leader === undefined ? null : agentOfProcess(leader);
  if (leader !== undefined && fromLeader !== null) return sighting(leader.pid, fromLeader);
  let best: { score: number; pid: number; found: Found } | null = null;
  for (const m of members) {
    const found = agentOfProcess(m);
    if (found === null) continue;
    const score = priority(m, found);
    if (best === null || score > best.score) best = { score, pid: m.pid, found };
  }
  if (best !== null) return sighting(best.pid, best.found);
  const exe = facts.boundExecutable;
  const byExe = exe === null ? null : agentOfName(basename(exe));
  if (exe !== null && byExe !== null)
    return sighting(facts.boundPid, { agent: byExe, via: "executable", matched: exe });
  return { agent: null, pid: null, via: null, matched: null };
}

function sighting(pid: number, f: Found): AgentProcessSighting {
  return { agent: f.agent, pid, via: f.via, matched: f.matched };
}

/** What an agent verdict rests on: Herdr's report (its `agent` fields), the process, both. */
export type AgentEvidenceBasis = "both" | "herdr_report" | "process" | "none";

export function evidenceBasis(herdrNamesIt: boolean, processIsIt: boolean): AgentEvidenceBasis {
  if (herdrNamesIt && processIsIt) return "both";
  if (herdrNamesIt) return "herdr_report";
  return processIsIt ? "process" : "none";
}

/**
 * `pane.agent_process`: the pane's process, or a member of its foreground job on its terminal,
 * is the expected agent's executable as Herdr would detect it.
 */
export function agentProcessCheck(expectedAgent: string, seen: AgentProcessSighting): CheckResult {
  const received: JsonValue = { ...seen };
  if (seen.agent === expectedAgent) return pass("pane.agent_process", expectedAgent, received);
  const what =
    seen.agent === null
      ? "no process of the pane is an agent Herdr would detect"
      : `the pane's process is ${seen.agent} (${seen.matched})`;
  return fail(
    "pane.agent_process",
    expectedAgent,
    received,
    `${what}, not ${expectedAgent}: Herdr's report alone does not bind the agent`,
  );
}
