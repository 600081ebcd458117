/**
 * Newline framing with a hard cap (herdr-socket-api.md §1.2: one compact JSON line plus `\n`).
 * Bytes are split on 0x0A before decoding, so a multi-byte character split across chunks is
 * never mis-decoded, and a line (complete or still growing) longer than the cap is reported at
 * once instead of buffering without bound.
 */
export type LineResult =
  | { readonly kind: "lines"; readonly lines: readonly string[] }
  | { readonly kind: "too_long"; readonly bytes: number }
  | { readonly kind: "bad_utf8" };

export class LineBuffer {
  readonly #maxBytes: number;
  #parts: Buffer[] = [];
  #pending = 0;
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes received after the last newline. */
  get pendingBytes(): number {
    return this.#pending;
  }

  push(chunk: Buffer): LineResult {
    const lines: string[] = [];
    let start = 0;
    let nl = chunk.indexOf(0x0a, start);
    while (nl >= 0) {
      const size = this.#pending + (nl - start);
      if (size > this.#maxBytes) return { kind: "too_long", bytes: size };
      this.#parts.push(chunk.subarray(start, nl));
      const bytes = Buffer.concat(this.#parts);
      this.#parts = [];
      this.#pending = 0;
      try {
        lines.push(this.#decoder.decode(bytes));
      } catch {
        return { kind: "bad_utf8" };
      }
      start = nl + 1;
      nl = chunk.indexOf(0x0a, start);
    }
    const rest = chunk.length - start;
    if (this.#pending + rest > this.#maxBytes) {
      return { kind: "too_long", bytes: this.#pending + rest };
    }
    if (rest > 0) {
      this.#parts.push(chunk.subarray(start));
      this.#pending += rest;
    }
    return { kind: "lines", lines };
  }
}
