/**
 * The simulated user configuration, read from `$GROK_HOME/config.toml` like the real agent's
 * global config (util/config/mcp.rs): `[mcp_servers.<name>]` tables (stdio `command`/`args`/`env`
 * or streamable HTTP `url`/`type`/`headers`/`bearer_token_env_var`, `enabled = false` to turn one
 * off), the top-level `disabled_mcp_servers` list, `[ui] combine_queued_prompts`,
 * `[models] default`, `[permission]` rules (permission.ts) and `[skills]` (skills.ts).
 * Simulator-only key: `sim_tools = ["a", "b"]` makes a server a stand-in that reports these tools
 * as ready without being connected (the real grok warns about and ignores unknown keys); any
 * other HTTP server is connected for real with the MCP SDK (mcp-connect.ts). Strings are expanded
 * like the real loader (expand.ts) when a server is materialised, not when the file is read.
 * Project `.grok/config.toml`, ~/.claude.json, ~/.cursor/mcp.json and `.mcp.json` sources are not
 * simulated.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { grokHome } from "../env.js";
import { isRecord, type JsonRecord, str } from "../json.js";
import { parseToml } from "../toml.js";
import { expandEnv } from "./expand.js";

export type McpTransport =
  | {
      kind: "http";
      url: string;
      type: string | undefined;
      headers: Record<string, string>;
      bearerTokenEnvVar: string | undefined;
    }
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string> };

export interface McpServerConfig {
  name: string;
  transport: McpTransport;
  /** The server's own `enabled` key (default true). */
  enabled: boolean;
  tools: string[];
  /** `sim_tools` was given: a stand-in, never connected. */
  standIn: boolean;
}

export interface SimConfig {
  mcpServers: McpServerConfig[];
  /** The top-level `disabled_mcp_servers` list. */
  disabledMcpServers: string[];
  combineQueuedPrompts: boolean;
  defaultModel: string | undefined;
  /** The parsed document, for the sections other modules read (`[permission]`, `[skills]`). */
  root: JsonRecord;
}

/** An ACP McpServer entry as materialised (expanded) by the process that read the config. */
export type AcpMcpServer =
  | { type: "http" | "sse"; name: string; url: string; headers: { name: string; value: string }[] }
  | {
      name: string;
      command: string;
      args: string[];
      env: { name: string; value: string }[];
    };

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v;
  return out;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * One `McpServerConfig` (xai-grok-config-types mcp.rs): the type of a config.toml table and of a
 * plugin's `.mcp.json` / inline `mcpServers` entry alike (plugins.ts).
 */
export function parseServer(name: string, raw: unknown): McpServerConfig | undefined {
  if (!isRecord(raw)) return undefined;
  const command = str(raw.command);
  const url = str(raw.url) ?? str(raw.urlTemplate) ?? str(raw.url_template);
  let transport: McpTransport;
  if (command !== undefined) {
    if (command.trim() === "") return undefined;
    transport = { kind: "stdio", command, args: stringList(raw.args), env: stringMap(raw.env) };
  } else if (url !== undefined) {
    if (url.trim() === "") return undefined;
    transport = {
      kind: "http",
      url,
      type: str(raw.type),
      headers: stringMap(raw.headers),
      bearerTokenEnvVar: str(raw.bearer_token_env_var),
    };
  } else {
    return undefined;
  }
  const standIn = Array.isArray(raw.sim_tools);
  const tools = standIn ? stringList(raw.sim_tools) : ["search", "fetch"];
  return { name, transport, enabled: raw.enabled !== false, tools, standIn };
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
    root,
  };
}

/**
 * McpServerConfig `expand_strings` then `to_acp_mcp_server`: expanded strings; an empty URL
 * yields nothing; `bearer_token_env_var` adds `Authorization: Bearer <value>` when that variable
 * is set; `type = "sse"` (any case) or a URL ending in `/sse` makes an SSE entry. `expand` is the
 * substitution (a plugin's adds its root/data tokens first, plugins.ts).
 */
export function materialize(
  s: McpServerConfig,
  expand: (v: string) => string = (v) => expandEnv(v),
): AcpMcpServer | undefined {
  const t = s.transport;
  if (t.kind === "stdio") {
    return {
      name: s.name,
      command: expand(t.command),
      args: t.args.map(expand),
      env: Object.entries(t.env).map(([name, value]) => ({ name, value: expand(value) })),
    };
  }
  const url = expand(t.url);
  if (url === "") return undefined;
  const headers = Object.entries(t.headers).map(([name, value]) => ({
    name,
    value: expand(value),
  }));
  if (t.bearerTokenEnvVar !== undefined) {
    const token = process.env[t.bearerTokenEnvVar];
    if (token !== undefined) headers.push({ name: "Authorization", value: `Bearer ${token}` });
  }
  const sse = t.type?.toLowerCase() === "sse" || url.endsWith("/sse");
  return { type: sse ? "sse" : "http", name: s.name, url, headers };
}

/**
 * load_mcp_servers (util/config/mcp.rs), what the TUI passes to session/new and session/load:
 * the config's servers as ACP McpServer entries, minus `enabled = false` ones
 * (McpServerConfig::to_acp_mcp_server). `disabled_mcp_servers` does not filter here; the agent's
 * merge drops those names.
 */
export function acpMcpServers(config: SimConfig): AcpMcpServer[] {
  const out: AcpMcpServer[] = [];
  for (const s of config.mcpServers) {
    if (!s.enabled) continue;
    const entry = materialize(s);
    if (entry !== undefined) out.push(entry);
  }
  return out;
}

/** disabled_mcp_server_names: `enabled = false` servers plus the `disabled_mcp_servers` list. */
export function disabledMcpServerNames(config: SimConfig): Set<string> {
  const names = new Set(config.disabledMcpServers);
  for (const s of config.mcpServers) if (!s.enabled) names.add(s.name);
  return names;
}
