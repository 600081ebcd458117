/**
 * The `config.toml` a seat writes into a *temporary* profile before launch (issue 14), and only
 * there: the owner's own GROK_HOME is never written. User-level configuration is what survives the
 * TUI's own re-attaches and is not filtered by folder trust (xai-grok-shell
 * `agent/folder_trust.rs`; `session/managed_mcp.rs` seeds every session's servers from it).
 *
 * - `[mcp_servers.<name>]`: the operator's bank, as the seat's loopback proxy URL with
 *   `headers = { Authorization = "Bearer ${GROK_SEAT_MCP_TOKEN}" }`. The token itself is never
 *   in a file: it is in the pane's environment, and each Grok process expands `${VAR}` with its
 *   own environment when it materialises the server (xai-grok-config `loader.rs`
 *   `expand_env_vars_in_string`; the TUI's list and the leader's copy alike).
 * - `[permission] allow = ["MCPTool(<name>__*)"]` only with `autoApproveBank`: MCP tool calls
 *   otherwise ask the owner in the TUI (xai-grok-workspace `permission/rules.rs` `MCPTool(…)`,
 *   `permission/resolution.rs` compact `allow` arrays). Rules are read when a session starts.
 * - `[skills] paths`: the manifest's canonical paths (xai-grok-agent `prompt/skills.rs`).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { writeNewPrivateFile } from "./private-file.js";

/** The pane environment variable holding the proxy's bearer token. */
export const BANK_TOKEN_ENV = "GROK_SEAT_MCP_TOKEN";

export interface ProfileConfigSpec {
  readonly bank: { readonly name: string; readonly url: string } | null;
  readonly autoApproveBank: boolean;
  readonly skillPaths: readonly string[];
}

/** A TOML basic string: `"`, `\` and every control character but none other escaped. */
export function tomlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).toUpperCase().padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** The file's text, or null when there is nothing to configure. */
export function profileConfigToml(spec: ProfileConfigSpec): string | null {
  const parts: string[] = [];
  if (spec.bank !== null) {
    parts.push(
      `[mcp_servers.${spec.bank.name}]\nurl = ${tomlString(spec.bank.url)}\nheaders = { Authorization = ${tomlString(`Bearer \${${BANK_TOKEN_ENV}}`)} }\n`,
    );
    if (spec.autoApproveBank)
      parts.push(`[permission]\nallow = [${tomlString(`MCPTool(${spec.bank.name}__*)`)}]\n`);
  }
  if (spec.skillPaths.length > 0)
    parts.push(`[skills]\npaths = [${spec.skillPaths.map(tomlString).join(", ")}]\n`);
  if (parts.length === 0) return null;
  return `# Written by grok-seat for this seat's temporary profile.\n\n${parts.join("\n")}`;
}

export interface WrittenConfig {
  readonly path: string;
  /** SHA-256 of the bytes written (the record keeps it; verify-proof compares it). */
  readonly sha256: string;
  readonly bytes: number;
}

/** Write `$GROK_HOME/config.toml` of a fresh temporary profile: 0600, O_EXCL, fsync. */
export function writeProfileConfig(grokHome: string, text: string): WrittenConfig {
  const path = join(grokHome, "config.toml");
  const bytes = Buffer.from(text, "utf8");
  writeNewPrivateFile(path, bytes);
  return { path, sha256: createHash("sha256").update(bytes).digest("hex"), bytes: bytes.length };
}
