/**
 * The raw-frame tap: every incoming ACP message passes through here before (or instead of) the
 * SDK, because the SDK's client app validates `session/update` with its own zod router and drops
 * any update kind it does not know before a handler runs (acp-mcp-toolchain.md §1.6). Grok's
 * evidence — queue changes, prompt completions, `turn_completed` records, model echoes, pending
 * interactions — lives exactly in those kinds and in `_x.ai/…` notifications, so we classify the
 * raw messages ourselves (`grok-extensions.ts`) and fan the typed events out to listeners.
 *
 * What we do not model is not an error: it is counted per method/kind and kept in a bounded ring
 * (newest last) so an operator can see what Grok sent. A malformed payload or extension is a typed
 * error event, also kept. Nothing in here throws into the connection: a listener that throws is
 * isolated and reported through `log`.
 */
import type { GrokSeatError } from "../errors.js";
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
  /** Messages we keep but do not model, by key. */
  readonly unknown: Readonly<Record<string, number>>;
  /** Malformed payloads and extensions, by key. */
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

const SAMPLE_CHARS = 300;

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
    const event = classifyGrokMessage(message);
    if (event.type === "unknown") this.#keep(this.#unknown, event.key, JSON.stringify(message));
    else if (event.type === "grok_update") {
      this.#keep(this.#unknown, `grok_update:${event.kind}`, event.sessionId);
    } else if (event.type === "malformed") {
      this.#keep(this.#malformed, `malformed:${event.method}`, event.error.message);
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

  #keep(counts: Map<string, number>, key: string, text: string): void {
    counts.set(key, (counts.get(key) ?? 0) + 1);
    this.#ring.push({ key, atMs: this.#now(), sample: text.slice(0, SAMPLE_CHARS) });
    if (this.#ring.length > this.#ringSize) this.#ring.shift();
    this.#log(`acp tap: kept ${key}`);
  }

  #emit(event: GrokEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (err) {
        this.#log(`acp tap: listener failed on ${event.type}: ${String(err)}`);
      }
    }
  }
}
