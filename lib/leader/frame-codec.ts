/**
 * Bytes <-> JSON values for the Grok leader socket: a 4-byte big-endian length, then exactly that
 * many bytes of UTF-8 JSON, no delimiter (docs/design/grok-leader-protocol.md §2; `leader/protocol.rs`,
 * `read_frame` / `write_frame`, `MAX_MESSAGE_SIZE` = 64 MiB).
 *
 * The decoder is stricter than the leader's own reader and than the stdio decoders surveyed in
 * docs/design/reliability-plan.md §4: an oversized announced length is refused from the 4 header bytes, before
 * any body byte is buffered or allocated; the body is kept as the received chunks and joined once
 * (no `Buffer.concat` per chunk); UTF-8 is checked, never replaced (`buffer.isUtf8`, the fatal
 * decoder's rule); and every rejection is a typed error. Timing (a partial frame that stalls, a frame
 * trickled byte by byte) is the connection's job, see `leader-connection.ts`.
 */
import { Buffer, isAscii, isUtf8, transcode } from "node:buffer";
import type { GrokSeatError } from "../errors.js";
import { LeaderError } from "./leader-error.js";

/** `MAX_MESSAGE_SIZE` in `leader/protocol.rs`: the largest frame body either side accepts. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** Bytes of the length prefix. */
export const FRAME_HEADER_BYTES = 4;

/**
 * V8's UTF-8 string paths are slow on Node 20 for non-ASCII text; ICU's UTF-16 transcoder is 2-4x
 * faster on large bodies and slower on small ones (scripts/bench/leader.bench.ts). These are the
 * sizes from which the transcoder is used when decoding and encoding.
 */
const TRANSCODE_DECODE_MIN_BYTES = 512;
const TRANSCODE_ENCODE_MIN_BYTES = 32 * 1024;

/**
 * UTF-8 bytes -> string, or null when they are not valid UTF-8 (never U+FFFD replacement: the
 * fatal decoder's rule, checked by simdutf). ASCII, most JSON-RPC traffic, is a plain byte copy.
 */
function utf8Text(body: Buffer): string | null {
  if (isAscii(body)) return body.toString("latin1");
  if (!isUtf8(body)) return null;
  if (body.length >= TRANSCODE_DECODE_MIN_BYTES) {
    try {
      return transcode(body, "utf8", "ucs2").toString("ucs2");
    } catch {
      // A Node built without ICU has no transcoder: use V8's decoder.
    }
  }
  return body.toString("utf8");
}

/** A JSON string -> a frame whose body is its `length` UTF-8 bytes. */
function writeFrame(json: string, length: number): Buffer {
  if (length >= TRANSCODE_ENCODE_MIN_BYTES && length !== json.length) {
    try {
      const body = transcode(Buffer.from(json, "ucs2"), "ucs2", "utf8");
      if (body.length === length) {
        const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
        header.writeUInt32BE(length, 0);
        return Buffer.concat([header, body], FRAME_HEADER_BYTES + length);
      }
    } catch {
      // No ICU: fall through to V8's encoder.
    }
  }
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.writeUInt32BE(length, 0);
  frame.write(json, FRAME_HEADER_BYTES, "utf8");
  return frame;
}

export type FrameErrorCode =
  | "FRAME_TOO_LARGE"
  | "INVALID_UTF8"
  | "INVALID_JSON"
  | "INVALID_MESSAGE"
  | "TRUNCATED_FRAME";

function frameError(
  code: FrameErrorCode,
  message: string,
  details: Record<string, unknown>,
  cause?: unknown,
): GrokSeatError {
  return new LeaderError(code, message, cause === undefined ? { details } : { details, cause });
}

function checkCap(maxFrameBytes: number): number {
  if (!Number.isInteger(maxFrameBytes) || maxFrameBytes < 1 || maxFrameBytes > MAX_FRAME_BYTES) {
    throw new LeaderError(
      "INVALID_FRAME_CAP",
      `maxFrameBytes must be an integer in 1..${MAX_FRAME_BYTES}, got ${maxFrameBytes}`,
      { details: { maxFrameBytes } },
    );
  }
  return maxFrameBytes;
}

/**
 * Serialize one message as a frame. `JSON.stringify` escapes lone surrogates, so the body is always
 * valid UTF-8 (ES2019 well-formed stringify). Throws FRAME_TOO_LARGE above the cap and
 * INVALID_MESSAGE for a value JSON cannot represent (undefined, a function, a bigint).
 */
export function encodeFrame(message: unknown, maxFrameBytes: number = MAX_FRAME_BYTES): Buffer {
  let json: string | undefined;
  try {
    json = JSON.stringify(message);
  } catch (cause) {
    throw frameError("INVALID_MESSAGE", "message is not serializable as JSON", {}, cause);
  }
  if (json === undefined) {
    throw frameError("INVALID_MESSAGE", "message is not serializable as JSON", {});
  }
  if (json.length <= ONE_PASS_MAX_CHARS) {
    // A UTF-16 code unit is at most 3 UTF-8 bytes (a surrogate pair is 4 for 2 units; lone
    // surrogates were escaped by stringify), so one write into the scratch needs no length scan;
    // the exact-size frame is then a plain copy. Synchronous, so one scratch serves every call.
    const length = scratch.write(json, FRAME_HEADER_BYTES, "utf8");
    checkLength(length, maxFrameBytes);
    const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
    frame.writeUInt32BE(length, 0);
    scratch.copy(frame, FRAME_HEADER_BYTES, FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length);
    return frame;
  }
  const length = Buffer.byteLength(json, "utf8");
  checkLength(length, maxFrameBytes);
  return writeFrame(json, length);
}

/** Strings up to this many code units are encoded in one pass through a 96 KiB scratch buffer. */
const ONE_PASS_MAX_CHARS = 32 * 1024;
const scratch = Buffer.allocUnsafeSlow(FRAME_HEADER_BYTES + ONE_PASS_MAX_CHARS * 3);

function checkLength(length: number, maxFrameBytes: number): void {
  if (length > maxFrameBytes) {
    throw frameError("FRAME_TOO_LARGE", `frame body of ${length} bytes exceeds ${maxFrameBytes}`, {
      length,
      maxFrameBytes,
    });
  }
}

export interface FrameDecoderOptions {
  /** Largest accepted body; at most (and by default) MAX_FRAME_BYTES. */
  readonly maxFrameBytes?: number;
}

/**
 * Incremental frame decoder. Feed it socket chunks with `push`; it calls `onFrame` with each parsed
 * JSON value, in order. A malformed frame throws a typed error *after* every earlier frame of the
 * same chunk was delivered, and poisons the decoder: the byte stream has lost its framing, so every
 * later `push` throws the same error (the leader itself drops such a connection, `server.rs`
 * `handle_client_inbound_message`).
 *
 * Chunks are referenced, not copied, until their frame completes: do not mutate a chunk after
 * pushing it (socket `data` chunks never are).
 */
export class FrameDecoder {
  readonly maxFrameBytes: number;
  readonly #header = Buffer.alloc(FRAME_HEADER_BYTES);
  #headerFill = 0;
  /** Announced body length of the frame being read; -1 while reading a header. */
  #bodyLength = -1;
  #parts: Buffer[] = [];
  #partsBytes = 0;
  #failure: GrokSeatError | null = null;
  #frames = 0;

  constructor(options: FrameDecoderOptions = {}) {
    this.maxFrameBytes = checkCap(options.maxFrameBytes ?? MAX_FRAME_BYTES);
  }

  /** True while part of a frame (header or body) has arrived but the frame is not complete. */
  get midFrame(): boolean {
    return this.#headerFill > 0 || this.#bodyLength >= 0;
  }

  /** Bytes of the incomplete frame currently held (header bytes included). */
  get pendingBytes(): number {
    return this.#bodyLength >= 0 ? FRAME_HEADER_BYTES + this.#partsBytes : this.#headerFill;
  }

  /** Frames decoded so far. */
  get frames(): number {
    return this.#frames;
  }

  /** The error that poisoned this decoder, or null. */
  get failure(): GrokSeatError | null {
    return this.#failure;
  }

  push(chunk: Uint8Array, onFrame: (value: unknown) => void): void {
    if (this.#failure) throw this.#failure;
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let off = 0;
    while (off < buf.length) {
      if (this.#bodyLength < 0) {
        off = this.#readHeader(buf, off);
        if (this.#bodyLength < 0) return;
      }
      const need = this.#bodyLength - this.#partsBytes;
      const avail = buf.length - off;
      if (this.#partsBytes === 0 && avail >= need) {
        // Fast path: the whole body is inside this chunk; no copy at all.
        const body = buf.subarray(off, off + need);
        off += need;
        this.#bodyLength = -1;
        onFrame(this.#decodeBody(body));
        continue;
      }
      const take = Math.min(need, avail);
      this.#parts.push(buf.subarray(off, off + take));
      this.#partsBytes += take;
      off += take;
      if (this.#partsBytes === this.#bodyLength) {
        // One join per frame: linear in the frame size however it was split.
        const body = this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts);
        this.#parts = [];
        this.#partsBytes = 0;
        this.#bodyLength = -1;
        onFrame(this.#decodeBody(body as Buffer));
      }
    }
  }

  /**
   * The stream ended. Returns null at a frame boundary, else a TRUNCATED_FRAME error (the leader's
   * `read_exact` reports the same case as an unexpected EOF).
   */
  finish(): GrokSeatError | null {
    if (this.#failure) return this.#failure;
    if (!this.midFrame) return null;
    const err = frameError("TRUNCATED_FRAME", "stream ended inside a frame", {
      pendingBytes: this.pendingBytes,
      announced: this.#bodyLength >= 0 ? this.#bodyLength : null,
    });
    this.#failure = err;
    this.#parts = [];
    this.#partsBytes = 0;
    return err;
  }

  #readHeader(buf: Buffer, off: number): number {
    let length: number;
    if (this.#headerFill === 0 && buf.length - off >= FRAME_HEADER_BYTES) {
      length = buf.readUInt32BE(off);
      off += FRAME_HEADER_BYTES;
    } else {
      const take = Math.min(FRAME_HEADER_BYTES - this.#headerFill, buf.length - off);
      buf.copy(this.#header, this.#headerFill, off, off + take);
      this.#headerFill += take;
      off += take;
      if (this.#headerFill < FRAME_HEADER_BYTES) return off;
      this.#headerFill = 0;
      length = this.#header.readUInt32BE(0);
    }
    // Refuse from the header alone: nothing of the body is buffered or allocated yet.
    if (length > this.maxFrameBytes) {
      this.#fail(
        frameError(
          "FRAME_TOO_LARGE",
          `announced frame of ${length} bytes exceeds ${this.maxFrameBytes}`,
          {
            announced: length,
            maxFrameBytes: this.maxFrameBytes,
          },
        ),
      );
    }
    if (length === 0) {
      this.#fail(frameError("INVALID_JSON", "empty frame body", { length: 0 }));
    }
    this.#bodyLength = length;
    return off;
  }

  #decodeBody(body: Buffer): unknown {
    // isUtf8 is the fatal decoder's rule (no U+FFFD replacement) at simdutf speed.
    const text = utf8Text(body);
    if (text === null) {
      this.#fail(
        frameError("INVALID_UTF8", "frame body is not valid UTF-8", { length: body.length }),
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      this.#fail(
        frameError("INVALID_JSON", "frame body is not valid JSON", { length: body.length }, cause),
      );
    }
    this.#frames++;
    return value;
  }

  #fail(err: GrokSeatError): never {
    this.#failure = err;
    this.#parts = [];
    this.#partsBytes = 0;
    throw err;
  }
}
