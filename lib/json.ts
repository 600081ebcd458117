/**
 * JSON values, and bounded JSON text of any value (a sample that costs at most its budget, however
 * large or deep the value: the tap's samples, the transcript's truncation previews).
 */

/** A JSON value: what `--json` output, records and check results may contain (no bigint, no undefined). */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** How deep a JSON value may nest by default; recorded facts are a few levels deep. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `x` is a JSON value (finite numbers only), walked iteratively with a depth bound, so a
 * hostile record nested a million levels deep is refused instead of overflowing the stack.
 */
export function isJsonValue(x: unknown, maxDepth = MAX_JSON_DEPTH): x is JsonValue {
  const stack: { value: unknown; depth: number }[] = [{ value: x, depth: 0 }];
  for (;;) {
    const top = stack.pop();
    if (top === undefined) return true;
    const { value, depth } = top;
    if (value === null || typeof value === "string" || typeof value === "boolean") continue;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) return false;
      continue;
    }
    if (typeof value !== "object" || depth >= maxDepth) return false;
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
}

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

type Frame =
  | { readonly kind: "array"; readonly items: readonly unknown[]; next: number }
  | {
      readonly kind: "object";
      readonly record: object;
      readonly keys: readonly string[];
      next: number;
      wrote: boolean;
    };

/** A scalar's JSON text; null for what JSON has no form for (undefined, functions, symbols). */
function scalarJson(value: unknown, budget: number): string | null {
  switch (typeof value) {
    case "string":
      // Only the part that can fit is escaped: a 100 MB string costs `budget` characters.
      return JSON.stringify(cutText(value, budget));
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return String(value);
    case "object":
      return "null"; // only reached for null: containers are opened, not written
    default:
      return null;
  }
}

/**
 * The first `max` characters of `value`'s JSON text (as `JSON.stringify` writes it, for the plain
 * data `JSON.parse` yields), built iteratively with an explicit stack. Work and stack are bounded
 * by `max`: each level opened writes at least one character, so the walk ends once the budget is
 * spent, however deep or wide the value is. Never throws.
 */
export function boundedJson(value: unknown, max: number): string {
  let out = "";
  const stack: Frame[] = [];
  // Write one value: a container opens a frame, a scalar is written (or, for a member with no
  // JSON form, nothing is; the caller has already skipped those in objects).
  const write = (item: unknown): void => {
    if (Array.isArray(item)) {
      out += "[";
      stack.push({ kind: "array", items: item, next: 0 });
    } else if (typeof item === "object" && item !== null) {
      out += "{";
      stack.push({ kind: "object", record: item, keys: Object.keys(item), next: 0, wrote: false });
    } else {
      out += scalarJson(item, max - out.length) ?? "null";
    }
  };
  write(value);
  while (out.length < max) {
    const top = stack.at(-1);
    if (top === undefined) break;
    if (top.kind === "array") {
      if (top.next >= top.items.length) {
        out += "]";
        stack.pop();
        continue;
      }
      if (top.next > 0) out += ",";
      write(top.items[top.next]);
      top.next++;
    } else {
      if (top.next >= top.keys.length) {
        out += "}";
        stack.pop();
        continue;
      }
      const key = top.keys[top.next] ?? "";
      top.next++;
      const item: unknown = Reflect.get(top.record, key);
      // JSON.stringify leaves out members with no JSON form.
      if (typeof item !== "object" && scalarJson(item, 0) === null) continue;
      if (top.wrote) out += ",";
      top.wrote = true;
      out += `${JSON.stringify(cutText(key, max))}:`;
      write(item);
    }
  }
  return cutText(out, max);
}
