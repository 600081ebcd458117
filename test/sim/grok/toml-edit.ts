/**
 * The few writes the real program makes to `$GROK_HOME/config.toml` (util/config/persist.rs
 * `update_config`: `[cli] installer`, `[ui] permission_mode`, `[consent.answers.<id>]`): one key
 * set in one table, the rest of the file kept as it was (the real writer is toml_edit, which keeps
 * formatting). Only `key = value` lines directly under a `[table]` header are recognised; a
 * missing table is appended.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { grokHome } from "./env.js";

function headerOf(path: readonly string[]): string {
  return `[${path.map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k))).join(".")}]`;
}

/** A TOML value literal for a string, integer or boolean. */
export function tomlLiteral(value: string | number | boolean): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** `text` with `key = value` set in the table at `path` (created at the end when missing). */
export function setTomlKey(
  text: string,
  path: readonly string[],
  key: string,
  value: string | number | boolean,
): string {
  const lines = text.split("\n");
  const header = headerOf(path);
  const line = `${key} = ${tomlLiteral(value)}`;
  const start = lines.findIndex((l) => l.trim() === header);
  if (start < 0) {
    const body = text === "" || text.endsWith("\n") ? text : `${text}\n`;
    return `${body}${body === "" ? "" : "\n"}${header}\n${line}\n`;
  }
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (/^\s*\[/.test(lines[i] ?? "")) {
      end = i;
      break;
    }
  }
  const keyRe = new RegExp(`^\\s*${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*=`);
  for (let i = start + 1; i < end; i++) {
    if (keyRe.test(lines[i] ?? "")) {
      lines[i] = line;
      return lines.join("\n");
    }
  }
  lines.splice(start + 1, 0, line);
  return lines.join("\n");
}

/** Read-modify-write of `$GROK_HOME/config.toml` (tmp + rename). */
export function updateConfigToml(edit: (text: string) => string): void {
  const path = join(grokHome(), "config.toml");
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    // a missing config starts empty
  }
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, edit(text));
  renameSync(tmp, path);
}
