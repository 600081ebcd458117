/**
 * A session's prompt artifacts on disk, read-only: `system_prompt.txt` (raw text, written when
 * the session is initialized and on every prompt replace: xai-grok-shell
 * `session/acp_session_impl/session_setup.rs`, `session/acp_session.rs` `save_system_prompt`) and
 * the head of `chat_history.jsonl`, the conversation the model is sent, whose first line is the
 * system item `{"type":"system","content":…}` (ConversationItem, xai-grok-sampling-types
 * `conversation.rs`). Both live in `$GROK_HOME/sessions/<encoded cwd>/<session id>/`, the cwd
 * encoded by xai-grok-config `paths.rs` `encode_cwd_dirname`.
 *
 * The files are Grok's, so every byte is treated as untrusted: opened without following a
 * symlink, required to be regular files, read with a size bound.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";

/** A name component longer than this is hashed by Grok (`MAX_DIRNAME_BYTES`). */
const MAX_DIRNAME_BYTES = 255;
/** A system prompt is tens of kilobytes; 8 MiB is far above any real one. */
export const MAX_PROMPT_BYTES = 8 * 1024 * 1024;

const UNRESERVED = /^[A-Za-z0-9\-_.~]$/;

/**
 * `urlencoding::encode(cwd)`: every UTF-8 byte but `A-Za-z0-9-_.~` as `%XX` (upper-case hex); null
 * when the result is longer than a file name may be (Grok then names the directory
 * `<slug>-<blake3 prefix>`, which is found by the session id instead).
 */
export function encodeCwdDirname(cwd: string): string | null {
  let out = "";
  for (const byte of Buffer.from(cwd, "utf8")) {
    const ch = String.fromCharCode(byte);
    out +=
      byte < 0x80 && UNRESERVED.test(ch)
        ? ch
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return Buffer.byteLength(out) <= MAX_DIRNAME_BYTES ? out : null;
}

/** A file read with its outcome: the bytes, or why they are not there. */
export type FileRead =
  | { readonly ok: true; readonly path: string; readonly bytes: Buffer }
  | { readonly ok: false; readonly path: string; readonly reason: "absent" | "unreadable" };

/**
 * Read at most `limit` bytes of a regular file (no symlink followed); with `firstLine`, stop at
 * the first newline. A file longer than the bound (or a first line longer) is unreadable.
 */
export function readBounded(path: string, limit: number, firstLine = false): FileRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = err instanceof Error && "code" in err ? err.code : null;
    return { ok: false, path, reason: code === "ENOENT" ? "absent" : "unreadable" };
  }
  try {
    if (!fstatSync(fd).isFile()) return { ok: false, path, reason: "unreadable" };
    const buf = Buffer.alloc(Math.min(limit + 1, 64 * 1024));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const chunk = Buffer.from(buf.subarray(0, n));
      if (firstLine) {
        const nl = chunk.indexOf(0x0a);
        if (nl >= 0) {
          chunks.push(chunk.subarray(0, nl));
          total += nl;
          break;
        }
      }
      chunks.push(chunk);
      total += n;
      if (total > limit) return { ok: false, path, reason: "unreadable" };
    }
    if (total > limit) return { ok: false, path, reason: "unreadable" };
    return { ok: true, path, bytes: Buffer.concat(chunks) };
  } catch {
    return { ok: false, path, reason: "unreadable" };
  } finally {
    closeSync(fd);
  }
}

/**
 * The session's directory: `sessions/<encoded cwd>/<id>` when the encoded cwd fits a file name,
 * else the one `sessions/*\/<id>` directory (a fresh UUID names one session). Null when none.
 */
export function findSessionDir(grokHome: string, cwd: string, sessionId: string): string | null {
  const root = join(grokHome, "sessions");
  const encoded = encodeCwdDirname(cwd);
  if (encoded !== null) return join(root, encoded, sessionId);
  let found: string | null = null;
  try {
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      try {
        const inner = readdirSync(join(root, entry.name), { withFileTypes: true });
        if (inner.some((e) => e.isDirectory() && e.name === sessionId)) {
          if (found !== null) return null;
          found = join(root, entry.name, sessionId);
        }
      } catch {
        // not ours to read: not the session's directory
      }
    }
  } catch {
    return null;
  }
  return found;
}

const SystemItem = v.object({ type: v.literal("system"), content: v.string() });

export interface PromptArtifacts {
  /** The session directory looked in (null when it could not be found). */
  readonly dir: string | null;
  /** `system_prompt.txt`. */
  readonly systemPrompt: FileRead | null;
  /**
   * The system item heading `chat_history.jsonl`: its content, or why there is none (`absent`:
   * no file; `unreadable`; `not_system`: the first line is not a system item).
   */
  readonly chatHead:
    | { readonly ok: true; readonly path: string; readonly content: string }
    | {
        readonly ok: false;
        readonly path: string;
        readonly reason: "absent" | "unreadable" | "not_system";
      }
    | null;
}

/** Read both artifacts of a session now (no waiting; the caller polls). */
export function readPromptArtifacts(
  grokHome: string,
  cwd: string,
  sessionId: string,
): PromptArtifacts {
  const dir = findSessionDir(grokHome, cwd, sessionId);
  if (dir === null) return { dir: null, systemPrompt: null, chatHead: null };
  const systemPrompt = readBounded(join(dir, "system_prompt.txt"), MAX_PROMPT_BYTES);
  const historyPath = join(dir, "chat_history.jsonl");
  const first = readBounded(historyPath, MAX_PROMPT_BYTES, true);
  let chatHead: PromptArtifacts["chatHead"];
  if (!first.ok) chatHead = { ok: false, path: historyPath, reason: first.reason };
  else {
    let item: unknown;
    try {
      item = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(first.bytes));
    } catch {
      item = null;
    }
    const parsed = v.safeParse(SystemItem, item);
    chatHead = parsed.success
      ? { ok: true, path: historyPath, content: parsed.output.content }
      : { ok: false, path: historyPath, reason: "not_system" };
  }
  return { dir, systemPrompt, chatHead };
}
