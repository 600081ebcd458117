/**
 * Session persistence under `$GROK_HOME/sessions/<encoded cwd>/<session id>/`
 * (session/persistence.rs): `summary.json` (pretty, written at creation) and `updates.jsonl`, one
 * SessionUpdateEnvelope per line: `{"timestamp":<secs>,"method":"session/update" |
 * "_x.ai/session/update","params":<notification params>}` (session/storage/mod.rs).
 */
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rfc3339 } from "../clock.js";
import { field, parseJson, str } from "../json.js";
import { sessionDir } from "../paths.js";

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

  /** Persist one update: method is "session/update" or "_x.ai/session/update". */
  append(method: string, params: unknown): void {
    const line = JSON.stringify({ timestamp: Math.floor(Date.now() / 1000), method, params });
    appendFileSync(join(this.dir, "updates.jsonl"), `${line}\n`);
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
