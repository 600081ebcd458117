/**
 * The tally behind every T7 decoder claim (docs/design/reliability-plan.md §6, T7): how many generated inputs
 * a decoder saw, how many it accepted, and how each rejection was typed. "0 untyped throws" means
 * every failure was a `GrokSeatError` whose `code` is one of the decoder's documented codes; an
 * exception of any other class (a `RangeError` from a stack overflow, a `TypeError`) or an
 * undocumented code is counted as a violation and the first few are kept for the report.
 */
import { GrokSeatError, WireError } from "../../../lib/errors.js";

/** How many violating inputs are kept verbatim (enough to reproduce, small enough to print). */
const KEEP_EXAMPLES = 5;

export class Tally {
  readonly decoder: string;
  readonly allowed: ReadonlySet<string>;
  inputs = 0;
  accepted = 0;
  readonly rejected = new Map<string, number>();
  /** Exceptions that are not GrokSeatError (crash-class failures: RangeError, TypeError, ...). */
  untyped = 0;
  /** GrokSeatErrors with a code the decoder does not document. */
  undocumented = 0;
  readonly examples: string[] = [];

  constructor(decoder: string, allowed: readonly string[]) {
    this.decoder = decoder;
    this.allowed = new Set(allowed);
  }

  /** Inputs that violated "typed and documented". */
  get violations(): number {
    return this.untyped + this.undocumented;
  }

  accept(): void {
    this.inputs++;
    this.accepted++;
  }

  /** A rejection reported as a value (a result kind, a status) rather than thrown. */
  reject(code: string, input?: () => string): void {
    this.inputs++;
    if (!this.allowed.has(code)) {
      this.undocumented++;
      this.#keep(`undocumented rejection ${code}`, input);
      return;
    }
    this.rejected.set(code, (this.rejected.get(code) ?? 0) + 1);
  }

  /** Classify a thrown value. Returns the typed error when it is one the decoder documents. */
  thrown(err: unknown, input?: () => string): GrokSeatError | null {
    const code = typedCode(err);
    if (code === null) {
      this.inputs++;
      this.untyped++;
      this.#keep(`untyped ${describe(err)}`, input);
      return null;
    }
    this.reject(code, input);
    return this.allowed.has(code) && err instanceof GrokSeatError ? err : null;
  }

  /** Run one input: returning normally is an acceptance, a throw is classified. */
  attempt(run: () => void, input?: () => string): GrokSeatError | null {
    try {
      run();
    } catch (err) {
      return this.thrown(err, input);
    }
    this.accept();
    return null;
  }

  /** The rejection counts, sorted by code, for `recordClaim` counts and the sentence. */
  rejections(): [string, number][] {
    return [...this.rejected.entries()].sort(([a], [b]) => a.localeCompare(b));
  }

  /** The tally as `recordClaim` counts: inputs, acceptances, violations and each rejection code. */
  counts(): Record<string, number> {
    return {
      inputs: this.inputs,
      accepted: this.accepted,
      untypedThrows: this.untyped,
      undocumentedCodes: this.undocumented,
      ...Object.fromEntries(this.rejections()),
    };
  }

  /** `{FRAME_TOO_LARGE 120, INVALID_JSON 33}`: the observed codes with their counts. */
  rejectionSummary(): string {
    const parts = this.rejections().map(([code, n]) => `${code} ${n.toLocaleString("en-US")}`);
    return `{${parts.join(", ")}}`;
  }

  /** Problems for an assertion message. */
  problems(): string {
    return this.examples.join("\n");
  }

  #keep(what: string, input?: () => string): void {
    if (this.examples.length >= KEEP_EXAMPLES) return;
    this.examples.push(`${this.decoder}: ${what}${input ? ` on ${input()}` : ""}`);
  }
}

/**
 * The stable code of a typed error: a `GrokSeatError`'s own code, or `WIRE:<peer>` for an error a
 * peer sent on the wire (its code is the peer's, any string).
 */
export function typedCode(err: unknown): string | null {
  if (err instanceof WireError) return `WIRE:${err.peer}`;
  if (err instanceof GrokSeatError) return err.code;
  return null;
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message.slice(0, 160)}`;
  return String(err).slice(0, 160);
}

/** Bytes as a short hex string for examples (first 64 bytes). */
export function hexPreview(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 64)).toString("hex");
  return `${bytes.length} bytes ${head}${bytes.length > 64 ? "…" : ""}`;
}

/** 1234567 -> "1,234,567": counts in claim sentences. */
export function n(count: number): string {
  return count.toLocaleString("en-US");
}
