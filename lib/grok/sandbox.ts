/**
 * Whether the TUI would run confined by a sandbox profile, which silently turns leader mode off:
 * no socket, no lock, no leader child (`xai-grok-pager/src/app/mod.rs` `resolve_leader_mode`:
 * a requested confinement vetoes `--leader`). The profile is the first of `--sandbox`,
 * `GROK_SANDBOX` (clap `env`, `xai-grok-pager/src/app/cli.rs`), `[sandbox] profile` in
 * config.toml (`xai-grok-shell/src/agent/config.rs` `resolve_profile`); every name but `off` /
 * `none` confines (`xai-grok-sandbox/src/profiles.rs` `ProfileName::from_str`,
 * `src/lib.rs` `requested_confinement_profile`). A seat never passes `--sandbox`, so only the
 * environment and the profile's config can ask for one. docs/design/decisions.md §12.6.
 */
import type { TomlFile } from "./toml-file.js";
import { tomlGet } from "./toml-file.js";

export interface SandboxRequest {
  readonly profile: string;
  /** Where it was asked for: the pane's environment or the profile's config.toml. */
  readonly source: "GROK_SANDBOX" | "config.toml [sandbox] profile";
}

function confines(name: string): boolean {
  return name !== "off" && name !== "none";
}

/** The sandbox profile the TUI would be confined by, or null when leader mode stays on. */
export function requestedSandbox(
  env: Readonly<Record<string, string | undefined>>,
  config: TomlFile,
): SandboxRequest | null {
  const fromEnv = env.GROK_SANDBOX?.trim();
  if (fromEnv !== undefined && fromEnv !== "") {
    return confines(fromEnv) ? { profile: fromEnv, source: "GROK_SANDBOX" } : null;
  }
  if (config.status !== "ok") return null;
  const fromConfig = tomlGet(config.table, "sandbox", "profile");
  if (typeof fromConfig !== "string" || fromConfig.trim() === "") return null;
  const name = fromConfig.trim();
  return confines(name) ? { profile: name, source: "config.toml [sandbox] profile" } : null;
}
