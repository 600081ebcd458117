/**
 * The raw-frame tap: every incoming ACP message passes through here before (or instead of) the
 * SDK, which drops update kinds it does not know (docs/design/acp-mcp-toolchain.md §1.6), and fans
 * Grok's typed events out to listeners. What is not modelled is counted and sampled; everything
 * kept is bounded whatever a peer sends, and nothing here throws into the connection
 * (docs/design/decisions.md §3.4-§3.5).
 */
import type { GrokSeatError } from "../errors.js";
import { AcpError } from "./acp-error.js";
import { classifyGrokMessage, type GrokEvent } from "./grok-extensions.js";
import type { RpcMessage } from "./json-rpc.js";

export interface TapRecord {
  /** `notification:<method>`, `request:<method>`, `grok_update:<kind>` or `malformed:<method>`. */
  readonly key: string;
  readonly atMs: number;
  /** The start of the message (or error) text, for diagnosis. */
  readonly sample: string;
}

export interface TapStats {
  /** Messages we keep but do not model, by key (at most `MAX_KEYS` keys, then `OVERFLOW_KEY`). */
  readonly unknown: Readonly<Record<string, number>>;
  /** Malformed payloads and extensions, by key (bounded the same way). */
  readonly malformed: Readonly<Record<string, number>>;
  /** The most recent unknown or malformed records, oldest first. */
  readonly recent: readonly TapRecord[];
}

export type TapListener = (event: GrokEvent) => void;

export interface TapOptions {
  /** Ring capacity for kept records (default 256). */
  readonly ringSize?: number;
  /** Where to log unknown/malformed messages and listener failures (default: nowhere). */
  readonly log?: (line: string) => void;
  /** Clock for record times (tests). */
  readonly now?: () => number;
}

/** Characters of a message (or error text) kept in a record's sample. */
export const SAMPLE_CHARS = 300;
/** Distinct keys per counter table (plus `OVERFLOW_KEY`, which counts every further one). */
export const MAX_KEYS = 256;
/** Characters of a key kept (a longer key is cut and marked with a trailing `…`). */
export const MAX_KEY_CHARS = 160;
/** The one key every distinct key past `MAX_KEYS` is counted under. */
export const OVERFLOW_KEY = "overflow:other-keys";

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

/** A key as the tap stores it: at most `MAX_KEY_CHARS` characters. */
export function boundedKey(key: string): string {
  return key.length <= MAX_KEY_CHARS ? key : `${cut(key, MAX_KEY_CHARS - 1)}…`;
}

/** `String(err)`, or a placeholder when even that throws (a hostile toString). */
function describe(err: unknown): string {
  try {
    return String(err);
  } catch {
    return "(an error that cannot be described)";
  }
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
      return JSON.stringify(cut(value, budget));
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
export function boundedJson(value: unknown, max: number = SAMPLE_CHARS): string {
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
      out += `${JSON.stringify(cut(key, max))}:`;
      write(item);
    }
  }
  return cut(out, max);
}

export class AcpTap {
  readonly #listeners = new Set<TapListener>();
  readonly #unknown = new Map<string, number>();
  readonly #malformed = new Map<string, number>();
  readonly #ring: TapRecord[] = [];
  readonly #ringSize: number;
  readonly #log: (line: string) => void;
  readonly #now: () => number;

  constructor(options: TapOptions = {}) {
    this.#ringSize = Math.max(1, options.ringSize ?? 256);
    this.#log = options.log ?? (() => {});
    this.#now = options.now ?? Date.now;
  }

  /** Subscribe to typed events; returns the unsubscribe function. */
  on(listener: TapListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Classify, record and publish one incoming request or notification. */
  observe(message: RpcMessage): GrokEvent {
    let event: GrokEvent;
    try {
      event = classifyGrokMessage(message);
      // The sample is bounded and built without recursion: JSON.stringify on a peer's 10^4-deep
      // params threw RangeError here and ended the ACP stream (T7 decoders-acp).
      if (event.type === "unknown") this.#keep(this.#unknown, event.key, boundedJson(message));
      else if (event.type === "grok_update") {
        this.#keep(this.#unknown, `grok_update:${event.kind}`, event.sessionId);
      } else if (event.type === "malformed") {
        this.#keep(this.#malformed, `malformed:${event.method}`, event.error.message);
      }
    } catch (cause) {
      // Defence in depth: observing is on the stream's read path, so whatever a message does to
      // the classifier it becomes a typed record, never a throw that ends the stream.
      const method = message.kind === "response" ? "response" : message.method;
      const error = new AcpError("ACP_MALFORMED_PAYLOAD", "the tap could not classify a message", {
        details: { methodPrefix: cut(method, 200) },
        cause,
      });
      event = { type: "malformed", method, error };
      this.#keep(this.#malformed, `malformed:${method}`, error.message);
    }
    this.#emit(event);
    return event;
  }

  /** Record a payload that was not JSON-RPC at all (ACP_MALFORMED_PAYLOAD). */
  malformedPayload(error: GrokSeatError): void {
    this.#keep(this.#malformed, "malformed:payload", error.message);
    this.#emit({ type: "malformed", method: "payload", error });
  }

  stats(): TapStats {
    return {
      unknown: Object.fromEntries(this.#unknown),
      malformed: Object.fromEntries(this.#malformed),
      recent: [...this.#ring],
    };
  }

  #keep(counts: Map<string, number>, rawKey: string, text: string): void {
    const bounded = boundedKey(rawKey);
    const key = counts.has(bounded) || counts.size < MAX_KEYS ? bounded : OVERFLOW_KEY;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    this.#ring.push({ key: bounded, atMs: this.#now(), sample: cut(text, SAMPLE_CHARS) });
    if (this.#ring.length > this.#ringSize) this.#ring.shift();
    this.#say(`acp tap: kept ${bounded}`);
  }

  /** Log without letting a throwing logger reach the stream's read path. */
  #say(line: string): void {
    try {
      this.#log(line);
    } catch {
      // The logger is the caller's; its failure has nowhere else to go.
    }
  }

  #emit(event: GrokEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (err) {
        this.#say(`acp tap: listener failed on ${event.type}: ${describe(err)}`);
      }
    }
  }
}
