/**
 * `x.ai/session/updates` (extensions/session_updates.rs `handle`): the persisted records of a
 * session, read from its `updates.jsonl` (resident or not; nothing is replayed and no session is
 * touched). Params `{sessionId, cwd, offset?, limit?, stream?, chunkSize?, turnIndex?, _meta?:
 * {clientId?}}`. Every element of `updates` is a stored line verbatim: the storage envelope
 * `{"timestamp","method","params"}` with method `session/update` or `_x.ai/session/update`.
 * The answer is raw (no `{"result":…}` ExtMethodResult envelope):
 *   `{"updates":[…],"totalCount":N,"hasMore":b[,"lastEventId":"…"],"promptStarts":[…]}`
 * and with `stream: true`, `{"totalCount":N,"chunkCount":C[,"lastEventId"],"promptStarts":[…]}`
 * after the page went out as `_x.ai/session/updates/chunk {sessionId,index,updates,done
 * [,_meta.targetClientId]}` notifications of `chunkSize` (default 64) lines each.
 * Paging: `offset < 0` is a tail of that many lines (then `promptStarts` is `[]`); `turnIndex: n`
 * (without `offset`) starts at the n-th last user prompt, `hasMore` = anything before it; else
 * `offset`/`limit` slice the lines, `hasMore` = anything after the page. Rewind dead branches
 * are dropped (rewind.ts). A missing file answers the empty shape; a file missing under the given
 * cwd is looked up by session id under every cwd (subagents persist under their own cwd).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { grokHome } from "../env.js";
import { field, isRecord, type JsonRecord, parseJson, str } from "../json.js";
import { sessionDir } from "../paths.js";
import { lineParams } from "./replay.js";
import { computePromptStarts, filterRewindLines, hasRewindMarker } from "./rewind.js";
import { internalError, invalidParams, notification, RpcFailure } from "./rpc.js";
import { readBool, readI64, readString, readUsize, SerdeError, SerdeStruct } from "./serde.js";

const DEFAULT_CHUNK_SIZE = 64;
const UPDATES_FILE = "updates.jsonl";

export interface UpdatesRequest {
  sessionId: string;
  cwd: string;
  offset: number | undefined;
  limit: number | undefined;
  stream: boolean;
  chunkSize: number | undefined;
  turnIndex: number | undefined;
  /** TargetClientId: `{instanceId, connId}` or undefined (None). */
  clientId: JsonRecord | undefined;
}

/** serde's view of the request struct; every failure is invalid params with serde's text. */
export function parseUpdatesRequest(params: JsonRecord): UpdatesRequest {
  try {
    return readRequest(new SerdeStruct(params));
  } catch (err) {
    if (err instanceof SerdeError) throw new RpcFailure(invalidParams(err.message));
    throw err;
  }
}

function readRequest(s: SerdeStruct): UpdatesRequest {
  const r: Partial<UpdatesRequest> & { stream: boolean } = { stream: false };
  for (const key of s.keys()) {
    const v = s.get(key);
    switch (key) {
      case "sessionId":
        r.sessionId = readString(s, key);
        break;
      case "cwd":
        r.cwd = readString(s, key);
        break;
      case "offset":
        r.offset = v === null ? undefined : readI64(s, key);
        break;
      case "limit":
        r.limit = v === null ? undefined : readUsize(s, key);
        break;
      case "stream":
        r.stream = readBool(s, key);
        break;
      case "chunkSize":
        r.chunkSize = v === null ? undefined : readUsize(s, key);
        break;
      case "turnIndex":
        r.turnIndex = v === null ? undefined : readUsize(s, key);
        break;
      case "_meta":
        if (v !== null) r.clientId = readRequestMeta(s.nested(key), s, key);
        break;
      default:
        break;
    }
  }
  if (r.sessionId === undefined) throw s.missing("sessionId");
  if (r.cwd === undefined) throw s.missing("cwd");
  return {
    sessionId: r.sessionId,
    cwd: r.cwd,
    offset: r.offset,
    limit: r.limit,
    stream: r.stream,
    chunkSize: r.chunkSize,
    turnIndex: r.turnIndex,
    clientId: r.clientId,
  };
}

/** routing.rs RequestMeta { clientId: TargetClientId (untagged: null | ClientId) }. */
function readRequestMeta(
  meta: SerdeStruct,
  parent: SerdeStruct,
  key: string,
): JsonRecord | undefined {
  if (!isRecord(parent.get(key))) throw parent.invalidType(key, "struct RequestMeta");
  if (!meta.has("clientId")) return undefined;
  const id = meta.get("clientId");
  if (id === null) return undefined;
  if (isRecord(id) && typeof id.instanceId === "string" && typeof id.connId === "string") {
    return { instanceId: id.instanceId, connId: id.connId };
  }
  throw meta.noVariant("clientId", "TargetClientId");
}

function nonBlankLines(text: string): string[] {
  return text.split(/\r?\n/).filter((l) => l.trim() !== "");
}

/** find_persisted_session_dir_by_id: any `sessions/<cwd>/<id>/` holding a summary.json. */
function findSessionDirById(sessionId: string): string | undefined {
  const root = join(grokHome(), "sessions");
  let cwds: string[];
  try {
    cwds = readdirSync(root);
  } catch {
    return undefined;
  }
  for (const cwd of cwds.sort()) {
    const dir = join(root, cwd, sessionId);
    if (existsSync(join(dir, "summary.json"))) return dir;
  }
  return undefined;
}

function updatesPath(req: UpdatesRequest): string | undefined {
  const direct = join(sessionDir(req.cwd, req.sessionId), UPDATES_FILE);
  if (existsSync(direct)) return direct;
  const found = findSessionDirById(req.sessionId);
  if (found !== undefined && existsSync(join(found, UPDATES_FILE))) {
    return join(found, UPDATES_FILE);
  }
  return undefined;
}

/** extract_last_event_id: `params._meta.eventId` of the last line that has one. */
function lastEventId(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    if (!line.includes("eventId")) continue;
    const id = str(field(field(lineParams(parseJson(line)), "_meta"), "eventId"));
    if (id !== undefined) return id;
  }
  return undefined;
}

interface Page {
  lines: string[];
  totalCount: number;
  hasMore: boolean;
  promptStarts: number[];
}

function turnIndexStart(promptStarts: readonly number[], tailTurns: number): number {
  return tailTurns >= promptStarts.length
    ? 0
    : (promptStarts[promptStarts.length - tailTurns] ?? 0);
}

/** try_stream_tail_page, then the full read: one page of the live lines. */
function readPage(req: UpdatesRequest, contents: string): Page {
  const all = nonBlankLines(contents);
  const turnTail =
    req.turnIndex !== undefined && req.turnIndex > 0 && req.offset === undefined
      ? req.turnIndex
      : undefined;
  if (req.offset !== undefined && req.offset < 0 && !all.some(hasRewindMarker)) {
    const total = all.length;
    const start = Math.max(total + req.offset, 0);
    const end = req.limit === undefined ? total : Math.min(start + req.limit, total);
    return {
      lines: all.slice(start, end),
      totalCount: total,
      hasMore: end < total,
      promptStarts: [],
    };
  }
  const live = filterRewindLines(all);
  const total = live.length;
  const promptStarts = computePromptStarts(live);
  let start: number;
  let end: number;
  let hasMore: boolean;
  if (turnTail !== undefined) {
    start = turnIndexStart(promptStarts, turnTail);
    end = req.limit === undefined ? total : Math.min(start + req.limit, total);
    hasMore = start > 0;
  } else {
    const off = req.offset;
    start = off === undefined ? 0 : off < 0 ? Math.max(total + off, 0) : Math.min(off, total);
    end = req.limit === undefined ? total : Math.min(start + req.limit, total);
    hasMore = end < total;
  }
  return { lines: live.slice(start, end), totalCount: total, hasMore, promptStarts };
}

export interface UpdatesAnswer {
  /** The raw result JSON, embedded verbatim in the response. */
  raw: string;
  /** `_x.ai/session/updates/chunk` lines to emit before the response (stream mode). */
  chunks: string[];
}

function promptStartsJson(starts: readonly number[]): string {
  return `,"promptStarts":[${starts.join(",")}]`;
}

function eventIdJson(id: string | undefined): string {
  return id === undefined ? "" : `,"lastEventId":${JSON.stringify(id)}`;
}

function chunkLines(req: UpdatesRequest, lines: readonly string[]): string[] {
  const size = Math.max(1, req.chunkSize ?? DEFAULT_CHUNK_SIZE);
  const count = Math.ceil(lines.length / size);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const updates: unknown[] = [];
    for (const line of lines.slice(i * size, (i + 1) * size)) {
      const parsed = parseJson(line);
      if (parsed !== undefined) updates.push(parsed);
    }
    const params: JsonRecord = {
      sessionId: req.sessionId,
      index: i,
      updates,
      done: i + 1 === count,
    };
    if (req.clientId !== undefined) params._meta = { targetClientId: req.clientId };
    out.push(notification("_x.ai/session/updates/chunk", params));
  }
  return out;
}

export function sessionUpdates(req: UpdatesRequest): UpdatesAnswer {
  const path = updatesPath(req);
  if (path === undefined) {
    return req.stream
      ? { raw: `{"totalCount":0,"chunkCount":0${promptStartsJson([])}}`, chunks: [] }
      : {
          raw: `{"updates":[],"totalCount":0,"hasMore":false${promptStartsJson([])}}`,
          chunks: [],
        };
  }
  let contents: string;
  try {
    contents = readFileSync(path, "utf8");
  } catch (err) {
    throw new RpcFailure(internalError(String(err)));
  }
  const page = readPage(req, contents);
  const eventId = lastEventId(page.lines);
  if (req.stream) {
    const chunks = chunkLines(req, page.lines);
    return {
      raw: `{"totalCount":${page.totalCount},"chunkCount":${chunks.length}${eventIdJson(eventId)}${promptStartsJson(page.promptStarts)}}`,
      chunks,
    };
  }
  const raw = `{"updates":[${page.lines.join(",")}],"totalCount":${page.totalCount},"hasMore":${page.hasMore}${eventIdJson(eventId)}${promptStartsJson(page.promptStarts)}}`;
  // RawValue::from_string refuses a page with a line that is not JSON: an internal error.
  if (parseJson(raw) === undefined) {
    throw new RpcFailure(internalError("a stored update line is not valid JSON"));
  }
  return { raw, chunks: [] };
}

/** User prompts recorded in updates.jsonl (a session loaded from disk resumes its count). */
export function recordedPromptCount(contents: string): number {
  return computePromptStarts(filterRewindLines(nonBlankLines(contents))).length;
}
