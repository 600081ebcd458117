/**
 * The sandbox profile a launch asks for (xai-grok-shell config/mod.rs `apply_sandbox`,
 * agent/config.rs `SandboxSettingsConfig::resolve_profile`; xai-grok-sandbox lib.rs
 * `requested_confinement_profile`, profiles.rs `ProfileName`): `--sandbox <P>` > `GROK_SANDBOX`
 * (trimmed, non-empty) > `[sandbox] profile` > "off". Every name but `off`/`none` confines
 * (unknown names are custom profiles). A confining request turns leader mode off for the TUI
 * (pager app/mod.rs `resolve_leader_mode`), even with `--leader`, with a note on stderr.
 * Managed requirements and bwrap re-exec are not simulated.
 */
import { envString } from "./env.js";
import { sandboxProfileConfig } from "./settings.js";

export function requestedConfinement(cliProfile: string | undefined): string | undefined {
  const resolved =
    (cliProfile !== undefined && cliProfile !== "" ? cliProfile : undefined) ??
    envString("GROK_SANDBOX") ??
    sandboxProfileConfig() ??
    "off";
  return resolved === "off" || resolved === "none" ? undefined : resolved;
}

/** print_leader_disabled_by_sandbox. */
export function leaderDisabledBySandboxNote(profile: string): string {
  return `note: sandbox profile '${profile}' was requested, so leader mode is off for this session and tool calls stay in this process instead of the shared leader. Disable the profile at the source that selected it (CLI, env, config, or a managed requirement) to use the leader.`;
}
