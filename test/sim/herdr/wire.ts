// Compact JSON output as serde_json::to_string writes it: fields in the order the Rust struct
// declares them (we build objects in that order), `None` options and empty maps omitted (we
// leave them `undefined`), internally tagged `type` first, f32 printed shortest-round-trip.
// Lines that Herdr first turns into a `serde_json::Value` (events pushed on events.subscribe:
// src/api/subscriptions.rs `serde_json::to_value(event)`) come out with every object's keys
// sorted, because Herdr's serde_json has no `preserve_order` feature (Cargo.lock: serde_json
// depends on neither indexmap nor preserve_order) and `Value::Object` is then a BTreeMap.
import { formatF32 } from "./serde-json-read.js";

/** An f32 field (layout split ratios): serde_json prints the shortest f32 round-trip form. */
export class F32 {
  readonly value: number;
  constructor(value: number) {
    this.value = Math.fround(value);
  }
}

export type Wire =
  | string
  | number
  | boolean
  | null
  | undefined
  | F32
  | readonly Wire[]
  | WireObject;
export type WireObject = { readonly [key: string]: Wire };

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

export function toJson(value: Wire, sortKeys = false): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "null";
    return Number.isInteger(value) ? value.toFixed(0) : String(value);
  }
  if (value instanceof F32) return Number.isFinite(value.value) ? formatF32(value.value) : "null";
  if (Array.isArray(value))
    return `[${value.map((item: Wire) => toJson(item, sortKeys)).join(",")}]`;
  const obj = value as WireObject;
  let keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  if (sortKeys) keys = keys.sort(compareBytes);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${toJson(obj[k], sortKeys)}`).join(",")}}`;
}

export function successLine(id: string, result: WireObject): string {
  return toJson({ id, result });
}

export function errorLine(id: string, code: string, message: string): string {
  return toJson({ id, error: { code, message } });
}

/** The `pane_not_found` error every pane-targeted method answers for an unknown pane id. */
export function paneNotFound(id: string, pane: string): string {
  return errorLine(id, "pane_not_found", `pane ${pane} not found`);
}
