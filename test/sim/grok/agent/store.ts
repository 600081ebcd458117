/**
 * Session persistence under `$GROK_HOME/sessions/<encoded cwd>/<session id>/`
 * (session/persistence.rs): `summary.json` (pretty, written at creation) and `updates.jsonl`, one
 * SessionUpdateEnvelope per line: `{"timestamp":<secs>,"method":"session/update" |
 * "_x.ai/session/update","params":<notification params>}` (session/storage/mod.rs). Older
 * builds wrote the bare ACP notification params without the envelope (the "legacy format" that
 * `SessionUpdateEnvelope::from_str` still reads as an ACP update); `GROK_SIM_LEGACY_UPDATES=1`
 * writes ACP lines that way (xAI lines keep their envelope: the legacy reader would take a bare
 * one for ACP).
 *
 * The persistence actor's merge buffer (persistence.rs `maybe_merge_notification`): every ACP
 * `session/update` is held back as the pending line until the next one arrives. Consecutive
 * agent_message_chunk (or agent_thought_chunk) notifications whose content chunk has no `_meta`
 * and whose text blocks have no annotations/_meta are merged into the pending one: its text grows
 * and the notification `_meta` becomes the *incoming* (last) chunk's, so the merged line carries
 * the last chunk's eventId. Empty text chunks without `_meta` are never stored. xAI lines
 * (`_x.ai/session/update`) are written at once, without draining the pending ACP line, so while a
 * turn runs the file lags by one ACP update (and an xAI line can precede it). The pending line is
 * drained by `flush()`: at turn end before `turn_completed` (turn.rs `flush_to_disk`), before a
 * reload of a resident session replays (session_setup.rs `flush_session`), and when the actor
 * stops gracefully. `x.ai/session/updates` reads the file without flushing.
 *
 * Also the prompt artifacts: `system_prompt.txt` (acp_session.rs `save_system_prompt`, raw text)
 * and the conversation head in `chat_history.jsonl` (`{"type":"system","content":…}` lines,
 * ConversationItem in xai-grok-sampling-types conversation.rs; the simulator keeps only the
 * system head).
 */
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { rfc3339 } from "../clock.js";
import { field, isRecord, type JsonRecord, parseJson, str } from "../json.js";
import { sessionDir } from "../paths.js";

const MERGEABLE = new Set(["agent_message_chunk", "agent_thought_chunk"]);

/** A text content chunk that may merge: text block, no annotations, no block or chunk `_meta`. */
function plainText(update: unknown): string | undefined {
  if (!isRecord(update) || Object.hasOwn(update, "_meta")) return undefined;
  const content = update.content;
  if (!isRecord(content) || content.type !== "text") return undefined;
  if (content.annotations != null || Object.hasOwn(content, "_meta")) return undefined;
  return str(content.text);
}

/** is_empty_chunk: a message/thought chunk with empty text and no chunk `_meta`. */
function isEmptyChunk(update: unknown): boolean {
  if (!isRecord(update) || !MERGEABLE.has(String(update.sessionUpdate))) return false;
  return !Object.hasOwn(update, "_meta") && str(field(update.content, "text")) === "";
}

export interface StoredSummary {
  modelId: string | undefined;
}

function summaryJson(id: string, cwd: string, modelId: string, createdAt: string): string {
  return JSON.stringify(
    {
      info: { id, cwd },
      session_summary: "",
      created_at: createdAt,
      updated_at: createdAt,
      num_messages: 0,
      num_chat_messages: 0,
      current_model_id: modelId,
      next_trace_turn: 0,
      chat_format_version: 0,
    },
    null,
    2,
  );
}

export class SessionStore {
  readonly dir: string;
  /** The held-back ACP notification params (persistence.rs `pending_notification`). */
  private pending: JsonRecord | undefined;
  private readonly legacy = process.env.GROK_SIM_LEGACY_UPDATES === "1";
  constructor(cwd: string, sessionId: string) {
    this.dir = sessionDir(cwd, sessionId);
  }

  static exists(cwd: string, sessionId: string): boolean {
    return new SessionStore(cwd, sessionId).readSummary() !== undefined;
  }

  create(id: string, cwd: string, modelId: string): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    writeFileSync(join(this.dir, "summary.json"), summaryJson(id, cwd, modelId, rfc3339()));
    writeFileSync(join(this.dir, "updates.jsonl"), "", { flag: "a" });
  }

  readSummary(): StoredSummary | undefined {
    let text: string;
    try {
      text = readFileSync(join(this.dir, "summary.json"), "utf8");
    } catch {
      return undefined;
    }
    const json = parseJson(text);
    if (json === undefined) return undefined;
    return { modelId: str(field(json, "current_model_id")) };
  }

  /** Persist one update: method is "session/update" (merge buffer) or "_x.ai/session/update". */
  append(method: string, params: JsonRecord): void {
    if (method !== "session/update") {
      this.write(method, params);
      return;
    }
    if (isEmptyChunk(params.update)) return;
    const pending = this.pending;
    this.pending = params;
    if (pending === undefined) return;
    const kind = field(params.update, "sessionUpdate");
    if (MERGEABLE.has(String(kind)) && field(pending.update, "sessionUpdate") === kind) {
      const before = plainText(pending.update);
      const after = plainText(params.update);
      const head = pending.update;
      if (before !== undefined && after !== undefined && isRecord(head) && isRecord(head.content)) {
        const merged: JsonRecord = { ...head, content: { ...head.content, text: before + after } };
        const next: JsonRecord = { sessionId: params.sessionId, update: merged };
        if (Object.hasOwn(params, "_meta")) next._meta = params._meta;
        this.pending = next;
        return;
      }
    }
    this.write(method, pending);
  }

  /** Drain the merge buffer (PersistenceMsg::FlushAndAck). */
  flush(): void {
    const pending = this.pending;
    this.pending = undefined;
    if (pending !== undefined) this.write("session/update", pending);
  }

  private write(method: string, params: JsonRecord): void {
    const line =
      this.legacy && method === "session/update"
        ? JSON.stringify(params)
        : JSON.stringify({ timestamp: Math.floor(Date.now() / 1000), method, params });
    appendFileSync(join(this.dir, "updates.jsonl"), `${line}\n`);
  }

  /** save_system_prompt: the exact rendered prompt, raw text. */
  saveSystemPrompt(prompt: string): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(this.dir, "system_prompt.txt"), prompt);
  }

  /** persist_chat_history_jsonl_sync for the conversation head (the system item). */
  saveChatHead(systemPrompt: string): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = join(this.dir, "chat_history.jsonl.sync.tmp");
    writeFileSync(tmp, `${JSON.stringify({ type: "system", content: systemPrompt })}\n`);
    renameSync(tmp, join(this.dir, "chat_history.jsonl"));
  }

  /** The system head of chat_history.jsonl, when the session has one. */
  readChatHead(): string | undefined {
    const path = join(this.dir, "chat_history.jsonl");
    if (!existsSync(path)) return undefined;
    const first = readFileSync(path, "utf8").split("\n")[0] ?? "";
    const item = parseJson(first);
    return field(item, "type") === "system" ? str(field(item, "content")) : undefined;
  }

  readUpdates(): string {
    try {
      return readFileSync(join(this.dir, "updates.jsonl"), "utf8");
    } catch {
      return "";
    }
  }

  updatesLength(): number {
    return Buffer.byteLength(this.readUpdates());
  }
}
