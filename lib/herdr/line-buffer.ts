/**
 * Newline framing with a hard cap (docs/design/herdr-socket-api.md §1.2): split on 0x0A before
 * decoding, a line over the cap reported at once, lines completed before a failure delivered
 * first, then the buffer poisoned; decoding as strict as serde_json's (docs/design/decisions.md
 * §11).
 */
export type LineFailure =
  | { readonly kind: "too_long"; readonly bytes: number }
  | { readonly kind: "bad_utf8" };

export type LineResult =
  | { readonly kind: "lines"; readonly lines: readonly string[] }
  | (LineFailure & { readonly lines: readonly string[] });

export class LineBuffer {
  readonly #maxBytes: number;
  #parts: Buffer[] = [];
  #pending = 0;
  #failure: LineFailure | null = null;
  readonly #decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes received after the last newline. */
  get pendingBytes(): number {
    return this.#pending;
  }

  push(chunk: Buffer): LineResult {
    if (this.#failure !== null) return { ...this.#failure, lines: [] };
    const lines: string[] = [];
    let start = 0;
    let nl = chunk.indexOf(0x0a, start);
    while (nl >= 0) {
      const size = this.#pending + (nl - start);
      if (size > this.#maxBytes) return this.#fail({ kind: "too_long", bytes: size }, lines);
      this.#parts.push(chunk.subarray(start, nl));
      const bytes = Buffer.concat(this.#parts);
      this.#parts = [];
      this.#pending = 0;
      try {
        lines.push(this.#decoder.decode(bytes));
      } catch {
        return this.#fail({ kind: "bad_utf8" }, lines);
      }
      start = nl + 1;
      nl = chunk.indexOf(0x0a, start);
    }
    const rest = chunk.length - start;
    if (this.#pending + rest > this.#maxBytes) {
      return this.#fail({ kind: "too_long", bytes: this.#pending + rest }, lines);
    }
    if (rest > 0) {
      this.#parts.push(chunk.subarray(start));
      this.#pending += rest;
    }
    return { kind: "lines", lines };
  }

  #fail(failure: LineFailure, lines: readonly string[]): LineResult {
    this.#failure = failure;
    // Nothing after a framing fault can be trusted; drop what was held.
    this.#parts = [];
    this.#pending = 0;
    return { ...failure, lines };
  }
}
