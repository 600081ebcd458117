/**
 * Reading one of Grok's TOML files (`config.toml`, `trusted_folders.toml`, a project's
 * `.grok/config.toml`) as Grok's `toml` crate would, bounded: a missing file, an oversized one or
 * one that does not parse is a status, never an exception. The parser (smol-toml, TOML 1.0) is
 * loaded on first use only.
 */
import { readFile, stat } from "node:fs/promises";
import { failureOf } from "../errors.js";

/** Grok's configuration files are small; anything larger is not read. */
export const MAX_TOML_BYTES = 1024 * 1024;

export type TomlTable = Readonly<Record<string, unknown>>;

export type TomlFile =
  | { readonly status: "ok"; readonly path: string; readonly table: TomlTable }
  | { readonly status: "missing"; readonly path: string }
  | { readonly status: "invalid"; readonly path: string; readonly reason: string };

export async function readTomlFile(path: string): Promise<TomlFile> {
  let text: string;
  try {
    const st = await stat(path);
    if (!st.isFile()) return { status: "invalid", path, reason: "not a regular file" };
    if (st.size > MAX_TOML_BYTES) return { status: "invalid", path, reason: "too large" };
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = failureOf(err)?.code ?? "UNREADABLE";
    if (code === "ENOENT" || code === "ENOTDIR") return { status: "missing", path };
    return { status: "invalid", path, reason: code };
  }
  const { parse } = await import("smol-toml");
  try {
    return { status: "ok", path, table: parse(text) };
  } catch (err) {
    return { status: "invalid", path, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** `table[k1][k2]…`, or undefined when any step is not a table. */
export function tomlGet(table: unknown, ...keys: string[]): unknown {
  let cur = table;
  for (const k of keys) {
    if (!isTable(cur) || !Object.hasOwn(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export function isTable(v: unknown): v is TomlTable {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}
