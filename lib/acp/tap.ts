/**
 * The raw-frame tap: every incoming ACP message passes through here before (or instead of) the
 * SDK, which drops update kinds it does not know (docs/design/acp-mcp-toolchain.md §1.6), and fans
 * Grok's typed events out to listeners. What is not modelled is counted and sampled; everything
 * kept is bounded whatever a peer sends, and nothing here throws into the connection
 * (docs/design/decisions.md §3.4-§3.5).
 */
import type { GrokSeatError } from "../errors.js";
import { boundedJson as boundedJsonText, cutText } from "../json.js";
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

/**
 * A tap subscriber: the typed event, and the message it was classified from (null for a payload
 * that was not JSON-RPC at all). The message is as parsed, unbounded: a subscriber that keeps any
 * of it bounds it itself (the transcript does, lib/grok/transcript-entry.ts).
 */
export type TapListener = (event: GrokEvent, message: RpcMessage | null) => void;

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

/** `boundedJson` with the tap's sample size as the default budget (lib/json.ts). */
export function boundedJson(value: unknown, max: number = SAMPLE_CHARS): string {
  return boundedJsonText(value, max);
}

/** A key as the tap stores it: at most `MAX_KEY_CHARS` characters. */
export function boundedKey(key: string): string {
  return key.length <= MAX_KEY_CHARS ? key : `${cutText(key, MAX_KEY_CHARS - 1)}…`;
}

/** `String(err)`, or a placeholder when even that throws (a hostile toString). */
function describe(err: unknown): string {
  try {
    return String(err);
  } catch {
    return "(an error that cannot be described)";
  }
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
        details: { methodPrefix: cutText(method, 200) },
        cause,
      });
      event = { type: "malformed", method, error };
      this.#keep(this.#malformed, `malformed:${method}`, error.message);
    }
    this.#emit(event, message);
    return event;
  }

  /** Record a payload that was not JSON-RPC at all (ACP_MALFORMED_PAYLOAD). */
  malformedPayload(error: GrokSeatError): void {
    this.#keep(this.#malformed, "malformed:payload", error.message);
    this.#emit({ type: "malformed", method: "payload", error }, null);
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
    this.#ring.push({ key: bounded, atMs: this.#now(), sample: cutText(text, SAMPLE_CHARS) });
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

  #emit(event: GrokEvent, message: RpcMessage | null): void {
    for (const listener of this.#listeners) {
      try {
        listener(event, message);
      } catch (err) {
        this.#say(`acp tap: listener failed on ${event.type}: ${describe(err)}`);
      }
    }
  }
}
