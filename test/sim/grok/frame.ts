/**
 * Leader frames (docs/design/grok-leader-protocol.md §2, leader/protocol.rs read_frame/write_frame): a u32
 * big-endian length, then exactly that many bytes of UTF-8 JSON, no delimiter. A length above
 * 64 MiB is refused before any payload byte is buffered.
 */

export const MAX_MESSAGE_SIZE = 64 * 1024 * 1024;

export function encodeFrame(json: string): Buffer {
  const body = Buffer.from(json, "utf8");
  if (body.length > MAX_MESSAGE_SIZE) throw new Error(`frame too large: ${body.length}`);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

export type FrameEvent = { kind: "frame"; body: Buffer } | { kind: "too_large"; length: number };

/** Incremental decoder: push socket chunks, get whole frames (or the one fatal too_large). */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failed = false;

  push(chunk: Buffer): FrameEvent[] {
    if (this.failed) return [];
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: FrameEvent[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const all = this.flatten();
      const length = all.readUInt32BE(0);
      if (length > MAX_MESSAGE_SIZE) {
        this.failed = true;
        out.push({ kind: "too_large", length });
        break;
      }
      if (this.buffered < 4 + length) break;
      out.push({ kind: "frame", body: all.subarray(4, 4 + length) });
      const rest = all.subarray(4 + length);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
    }
    return out;
  }

  /** Bytes of an incomplete frame still waiting (EOF with these is a truncated frame). */
  get pending(): number {
    return this.buffered;
  }

  private flatten(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0];
    if (first === undefined) throw new Error("frame reader: empty buffer");
    return first;
  }
}
