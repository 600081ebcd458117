/**
 * Narrowing helpers for JSON that arrives from outside (socket payloads, files). The leader routes
 * arbitrary ACP JSON exactly like the real one (leader/server.rs works on serde_json::Value), so
 * the simulator handles it as `unknown` and narrows field by field instead of casting.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON.parse that never throws: undefined for text that is not JSON. */
export function parseJson(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed;
  } catch {
    return undefined;
  }
}

export function field(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function bool(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/** A non-negative integer that fits serde's u64 (as a JS number). */
export function u64(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

export function has(value: unknown, key: string): boolean {
  return isRecord(value) && Object.hasOwn(value, key);
}

/** `_meta` of a params object, created when missing (serde `entry().or_insert_with`). */
export function ensureMeta(params: JsonRecord): JsonRecord | undefined {
  if (!Object.hasOwn(params, "_meta")) params._meta = {};
  const meta = params._meta;
  return isRecord(meta) ? meta : undefined;
}
