/**
 * Version presets (`GROK_SIM_VERSION_PRESET`): the simulator impersonates a build that lacks
 * extension methods, so a client's probes can be tested. A missing method answers like any
 * unknown `_`-prefixed method (acp_agent.rs `ext_method`): -32601 "Method not found" with
 * `data: "unknown ACP extension method: <method>"`. Every published grok-build commit (from
 * 0.1.220-alpha.4 on) has both methods below, so the versions these presets report are
 * illustrative, older than the public history; GROK_SIM_AGENT_VERSION still wins when set.
 *
 * | preset                | lacks                                  | agentVersion |
 * | --------------------- | -------------------------------------- | ------------ |
 * | `no-update-mcp`       | `x.ai/session/update_mcp_servers`      | 0.1.200      |
 * | `no-skills`           | `x.ai/skills/list`, `x.ai/skills/add`  | 0.1.190      |
 * | `no-update-mcp-skills`| all three                              | 0.1.190      |
 */
const PRESETS: Record<string, { lacks: string[]; agentVersion: string }> = {
  "no-update-mcp": { lacks: ["x.ai/session/update_mcp_servers"], agentVersion: "0.1.200" },
  "no-skills": { lacks: ["x.ai/skills/list", "x.ai/skills/add"], agentVersion: "0.1.190" },
  "no-update-mcp-skills": {
    lacks: ["x.ai/session/update_mcp_servers", "x.ai/skills/list", "x.ai/skills/add"],
    agentVersion: "0.1.190",
  },
};

export interface VersionPreset {
  /** Extension method names (without the `_` prefix) this build does not have. */
  lacks: ReadonlySet<string>;
  agentVersion: string | undefined;
}

export function versionPreset(): VersionPreset {
  const name = process.env.GROK_SIM_VERSION_PRESET;
  if (name === undefined || name === "") return { lacks: new Set(), agentVersion: undefined };
  const preset = PRESETS[name];
  if (preset === undefined) {
    throw new Error(`GROK_SIM_VERSION_PRESET must be one of ${Object.keys(PRESETS).join(", ")}`);
  }
  const explicit = process.env.GROK_SIM_AGENT_VERSION;
  return {
    lacks: new Set(preset.lacks),
    agentVersion: explicit !== undefined && explicit !== "" ? undefined : preset.agentVersion,
  };
}
