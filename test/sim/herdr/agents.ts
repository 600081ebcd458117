// Agent names and source classes, from Herdr src/detect/mod.rs (lookup_agent, agent_label,
// full_lifecycle_hook_authority, session_identity_only_integration, interactive_agent_executable),
// src/agent_resume.rs (is_reserved_native_state_source, is_official_agent_source,
// session_ref_from_report) and src/app/api_helpers.rs (normalize_reported_agent_label).

const ALIASES: Readonly<Record<string, string>> = {
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
  maki: "maki",
};

/** normalized_agent_lookup_name: trim, lowercase, drop one executable suffix. */
export function lookupName(name: string): string {
  let n = name.trim().toLowerCase();
  for (const suffix of [".exe", ".cmd", ".bat", ".ps1", ".js"]) {
    if (n.endsWith(suffix)) {
      n = n.slice(0, n.length - suffix.length);
      break;
    }
  }
  return n;
}

/** parse_agent_label: the canonical label of a known agent, or null. */
export function parseAgentLabel(agent: string): string | null {
  return ALIASES[lookupName(agent)] ?? null;
}

/** normalize_reported_agent_label: null means "agent label must not be empty". */
export function normalizeReportedAgentLabel(agent: string): string | null {
  const trimmed = agent.trim();
  if (trimmed === "") return null;
  return parseAgentLabel(trimmed) ?? trimmed;
}

const RESERVED = new Set([
  "herdr:claude/claude",
  "herdr:codex/codex",
  "herdr:copilot/copilot",
  "herdr:devin/devin",
  "herdr:droid/droid",
  "herdr:qodercli/qodercli",
  "herdr:cursor/cursor",
  "herdr:grok/grok",
]);
const OFFICIAL = new Set([
  ...RESERVED,
  "herdr:kimi/kimi",
  "herdr:omp/omp",
  "herdr:mastracode/mastracode",
  "herdr:pi/pi",
  "herdr:hermes/hermes",
  "herdr:opencode/opencode",
  "herdr:kilo/kilo",
  "herdr:antigravity_cli/agy",
]);
const FULL_LIFECYCLE = new Set([
  "herdr:pi/pi",
  "herdr:omp/omp",
  "herdr:mastracode/mastracode",
  "herdr:opencode/opencode",
  "herdr:kilo/kilo",
  "herdr:kimi/kimi",
]);
const IDENTITY_ONLY = new Set(["herdr:hermes/hermes", "herdr:antigravity_cli/agy"]);

const pair = (source: string, agent: string) => `${source}/${agent}`;

/** Session-only official sources: `pane.report_agent` state is discarded. */
export const isReservedNativeStateSource = (source: string, agent: string) =>
  RESERVED.has(pair(source, agent));
export const isOfficialAgentSource = (source: string, agent: string) =>
  OFFICIAL.has(pair(source, agent));
export const isFullLifecycleSource = (source: string, agent: string) =>
  FULL_LIFECYCLE.has(pair(source, agent));
export const isIdentityOnlySource = (source: string, agent: string) =>
  IDENTITY_ONLY.has(pair(source, agent));

export type SessionRef = { readonly kind: "id" | "path"; readonly value: string };

// Rust char::is_control: the Cc category.
export function hasControl(s: string): boolean {
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return true;
  }
  return false;
}

function sessionId(value: string | undefined): SessionRef | null {
  if (value === undefined) return null;
  const ok = value !== "" && Buffer.byteLength(value) <= 512 && !hasControl(value);
  return ok ? { kind: "id", value } : null;
}

function sessionPath(value: string | undefined): SessionRef | null {
  if (value === undefined) return null;
  const ok =
    value !== "" && Buffer.byteLength(value) <= 4096 && !hasControl(value) && value.startsWith("/");
  return ok ? { kind: "path", value } : null;
}

/** session_ref_from_report: custom sources never keep a session reference. */
export function sessionRefFromReport(
  source: string,
  agent: string,
  id: string | undefined,
  path: string | undefined,
): SessionRef | null {
  if (!isOfficialAgentSource(source, agent)) return null;
  if (agent === "pi" || agent === "omp") return sessionPath(path) ?? sessionId(id);
  return sessionId(id);
}

/** normalize_session_start_source. */
export function normalizeSessionStartSource(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v !== undefined && ["startup", "resume", "clear", "compact", "new", "fork"].includes(v)
    ? v
    : undefined;
}

/** interactive_agent_executable on Unix, for agent.start. */
export function interactiveAgentExecutable(agent: string): string {
  if (agent === "cursor") return "cursor-agent";
  if (agent === "kiro") return "kiro-cli";
  return agent;
}
