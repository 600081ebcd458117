/**
 * The simulated user configuration, read from `$GROK_HOME/config.toml` like the real agent's
 * global config (util/config/mcp.rs): `[mcp_servers.<name>]` tables (stdio `command`/`args`/`env`
 * or streamable HTTP `url`/`type`/`headers`, `enabled = false` to turn one off), the top-level
 * `disabled_mcp_servers` list, `[ui] combine_queued_prompts` and `[models] default`. Simulator-only key:
 * `sim_tools = ["a", "b"]` names the tools a server reports once connected (the real grok warns
 * about and ignores unknown keys). Project `.grok/config.toml`, ~/.claude.json, ~/.cursor/mcp.json
 * and `.mcp.json` sources are not simulated.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { grokHome } from "../env.js";
import { isRecord, type JsonRecord, str } from "../json.js";
import { parseToml } from "../toml.js";

export type McpTransport =
  | { kind: "http"; url: string; type: string | undefined; headers: Record<string, string> }
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string> };

export interface McpServerConfig {
  name: string;
  transport: McpTransport;
  /** The server's own `enabled` key (default true). */
  enabled: boolean;
  tools: string[];
}

export interface SimConfig {
  mcpServers: McpServerConfig[];
  /** The top-level `disabled_mcp_servers` list. */
  disabledMcpServers: string[];
  combineQueuedPrompts: boolean;
  defaultModel: string | undefined;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v;
  return out;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function parseServer(name: string, raw: unknown): McpServerConfig | undefined {
  if (!isRecord(raw)) return undefined;
  const command = str(raw.command);
  const url = str(raw.url) ?? str(raw.urlTemplate) ?? str(raw.url_template);
  let transport: McpTransport;
  if (command !== undefined) {
    if (command.trim() === "") return undefined;
    transport = { kind: "stdio", command, args: stringList(raw.args), env: stringMap(raw.env) };
  } else if (url !== undefined) {
    if (url.trim() === "") return undefined;
    transport = { kind: "http", url, type: str(raw.type), headers: stringMap(raw.headers) };
  } else {
    return undefined;
  }
  const tools = Array.isArray(raw.sim_tools) ? stringList(raw.sim_tools) : ["search", "fetch"];
  return { name, transport, enabled: raw.enabled !== false, tools };
}

export function loadConfig(): SimConfig {
  let root: JsonRecord = {};
  try {
    root = parseToml(readFileSync(join(grokHome(), "config.toml"), "utf8"));
  } catch (err) {
    if (!(err instanceof Error && "code" in err && err.code === "ENOENT")) {
      process.stderr.write(`grok: ignoring config.toml: ${String(err)}\n`);
    }
  }
  const servers: McpServerConfig[] = [];
  const table = root.mcp_servers;
  if (isRecord(table)) {
    for (const [name, raw] of Object.entries(table)) {
      const server = parseServer(name, raw);
      if (server === undefined) continue;
      servers.push(server);
    }
  }
  const ui = root.ui;
  const models = root.models;
  return {
    mcpServers: servers,
    disabledMcpServers: stringList(root.disabled_mcp_servers),
    combineQueuedPrompts: isRecord(ui) && ui.combine_queued_prompts === true,
    defaultModel: isRecord(models) ? str(models.default) : undefined,
  };
}

/**
 * load_mcp_servers (util/config/mcp.rs), what the TUI passes to session/new and session/load:
 * the config's servers as ACP McpServer entries, minus `enabled = false` ones
 * (McpServerConfig::to_acp_mcp_server). `disabled_mcp_servers` does not filter here; the agent's
 * merge drops those names.
 */
export function acpMcpServers(config: SimConfig): Record<string, unknown>[] {
  return config.mcpServers
    .filter((s) => s.enabled)
    .map((s) =>
      s.transport.kind === "http"
        ? {
            type: "http",
            name: s.name,
            url: s.transport.url,
            headers: Object.entries(s.transport.headers).map(([name, value]) => ({ name, value })),
          }
        : {
            name: s.name,
            command: s.transport.command,
            args: s.transport.args,
            env: Object.entries(s.transport.env).map(([name, value]) => ({ name, value })),
          },
    );
}

/** disabled_mcp_server_names: `enabled = false` servers plus the `disabled_mcp_servers` list. */
export function disabledMcpServerNames(config: SimConfig): Set<string> {
  const names = new Set(config.disabledMcpServers);
  for (const s of config.mcpServers) if (!s.enabled) names.add(s.name);
  return names;
}
