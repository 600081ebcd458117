/**
 * The `config.toml` settings the simulator reads around the session (the MCP servers, models and
 * queue settings live in agent/config.ts), each read fresh from disk as the real program does at
 * the point it needs them:
 *
 * - `[cli] auto_update`, `installer`, `channel` (xai-grok-update auto_update.rs, util/config).
 * - `[ui] permission_mode` / `approval_mode` / `yolo` (util/config/permissions.rs
 *   `permission_mode_from_ui_if_set`).
 * - `[ui.status_line]` (xai-grok-status-line config.rs `reserves_a_row`).
 * - `[folder_trust] enabled` (xai-grok-workspace folder_trust.rs `feature_enabled`).
 * - `[sandbox] profile` (agent/config.rs `SandboxSettingsConfig`).
 * - `[plugins] enabled` / `disabled` / `paths` (xai-grok-agent plugins/discovery.rs).
 * - `[consent.answers.<id>]` (util/config/consent.rs).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { grokHome } from "./env.js";
import { field, isRecord, type JsonRecord, str } from "./json.js";
import { parseToml } from "./toml.js";

/** The parsed config, `{}` when missing or unparseable (the real loaders warn and go on). */
export function configRoot(): JsonRecord {
  try {
    return parseToml(readFileSync(join(grokHome(), "config.toml"), "utf8"));
  } catch {
    return {};
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** `[cli] auto_update`: undefined when unset (the default is on). */
export function cliAutoUpdate(root = configRoot()): boolean | undefined {
  const v = field(field(root, "cli"), "auto_update");
  return typeof v === "boolean" ? v : undefined;
}

export function cliInstaller(root = configRoot()): string | undefined {
  return str(field(field(root, "cli"), "installer"));
}

/** `[cli] channel` (channel_from_toml_opt), else the UpdateConfig default "stable". */
export function updateChannel(root = configRoot()): string {
  return str(field(field(root, "cli"), "channel")) ?? "stable";
}

export type PermissionMode = "always-approve" | "auto" | "ask";

function canonicalMode(s: string): PermissionMode {
  return s === "always-approve" || s === "auto" ? s : "ask";
}

/**
 * load_permission_mode without remote settings: `permission_mode` > `approval_mode` > `yolo` in
 * `[ui]`; unknown spellings and "default" are Ask; nothing set is Ask.
 */
export function permissionMode(root = configRoot()): PermissionMode {
  const ui = field(root, "ui");
  if (!isRecord(ui)) return "ask";
  const pm = str(ui.permission_mode);
  if (pm !== undefined) return canonicalMode(pm);
  const am = str(ui.approval_mode);
  if (am !== undefined) return canonicalMode(am);
  if (typeof ui.yolo === "boolean") return ui.yolo ? "always-approve" : "ask";
  return "ask";
}

/**
 * StatusLineConfig::reserves_a_row: `type` builtin (with its default items) or command with a
 * non-blank `command` resolves a row; a touched section without a usable type paints its
 * problem into a reserved row; no section, or `type = "disabled"` (also off/none/hidden), is
 * no row.
 */
export function statusLineReservesRow(root = configRoot()): boolean {
  const sl = field(field(root, "ui"), "status_line");
  if (!isRecord(sl)) return false;
  const kind = str(sl.type)?.toLowerCase();
  if (kind === "disabled" || kind === "off" || kind === "none" || kind === "hidden") return false;
  if (kind === "builtin") {
    return !Array.isArray(sl.items) || sl.items.length > 0;
  }
  const command = str(sl.command);
  if (kind === "command" && command !== undefined && command.trim() !== "") return true;
  // A section that names no usable mode but was touched reserves a row for its problem.
  const touched =
    sl.command !== undefined ||
    sl.items !== undefined ||
    sl.padding !== undefined ||
    sl.refresh_interval !== undefined ||
    sl.refresh_interval_ms !== undefined ||
    kind !== undefined;
  return touched;
}

export function folderTrustConfig(root = configRoot()): boolean | undefined {
  const v = field(field(root, "folder_trust"), "enabled");
  return typeof v === "boolean" ? v : undefined;
}

export function sandboxProfileConfig(root = configRoot()): string | undefined {
  const v = str(field(field(root, "sandbox"), "profile"));
  return v === undefined || v === "" ? undefined : v;
}

export interface PluginsSettings {
  enabled: string[];
  disabled: string[];
  paths: string[];
}

export function pluginsSettings(root = configRoot()): PluginsSettings {
  const p = field(root, "plugins");
  return {
    enabled: stringList(field(p, "enabled")),
    disabled: stringList(field(p, "disabled")),
    paths: stringList(field(p, "paths")),
  };
}

export interface ConsentAnswer {
  version: number;
  account: string | undefined;
}

export function consentAnswers(root = configRoot()): Map<string, ConsentAnswer> {
  const out = new Map<string, ConsentAnswer>();
  const answers = field(field(root, "consent"), "answers");
  if (!isRecord(answers)) return out;
  for (const [id, a] of Object.entries(answers)) {
    const version = field(a, "version");
    out.set(id, {
      version: typeof version === "number" ? version : 0,
      account: str(field(a, "account")),
    });
  }
  return out;
}
