/**
 * One transcript entry: one session update as Grok sent it live or stored it in `updates.jsonl`,
 * in the stable, uploadable shape the seat emits (README "Transcript"; docs/design/decisions.md
 * §12). Pure: the wire (lib/acp) and the file reader (native-transcript.ts) both build entries here.
 *
 * Where the fields come from (real sources, paths relative to `crates/codegen/`):
 * - `eventId`: `params._meta.eventId`, `{sessionId}-{n}` from one counter per agent process,
 *   raised past the persisted maximum on load, so `n` orders a session's whole history
 *   (xai-grok-shell-base `util/event_id.rs`). Broadcast-only updates carry none.
 * - `promptId`: `params._meta.promptId`, stamped on every update sent through `send_update`
 *   (`session/acp_session_impl/updates.rs`); the user echo and `current_mode_update` carry none
 *   (`turn.rs` `build_notification_meta`); `turn_completed` names its prompt in `prompt_id`.
 * - `method`, `params`: the notification as sent (`session/update`, `_x.ai/session_notification`)
 *   or the stored line's envelope `{timestamp, method, params}` (`session/storage/mod.rs`); a
 *   legacy line is the bare params (`SessionUpdateEnvelope::from_str` reads it as an ACP update).
 */
import * as v from "valibot";
import { boundedJson, cutText, isJsonValue, type JsonValue } from "../json.js";

/** The version of the entry shape (`v`). A change to a field's meaning gets a new number. */
export const TRANSCRIPT_ENTRY_VERSION = 1;
/** Default bound on one entry's `params`, in characters of its JSON text. */
export const TRANSCRIPT_ENTRY_MAX_CHARS = 256 * 1024;
/** Characters of the JSON text kept as `truncated.preview`. */
export const TRANSCRIPT_PREVIEW_CHARS = 1024;
/** How deep `params` may nest before it is treated like an oversize one. */
const MAX_PARAMS_DEPTH = 128;

/** The update kinds whose consecutive chunks Grok's persistence merges into one stored line. */
export const MERGED_CHUNK_KINDS: ReadonlySet<string> = new Set([
  "agent_message_chunk",
  "agent_thought_chunk",
]);

export interface TranscriptEntry {
  /** `TRANSCRIPT_ENTRY_VERSION`. */
  readonly v: 1;
  /** `live`: received on our ACP connection; `record`: a stored line of Grok's `updates.jsonl`. */
  readonly source: "live" | "record";
  /** `params._meta.eventId`; null when Grok gave none (broadcast-only updates, old lines). */
  readonly eventId: string | null;
  /** The prompt the update belongs to, where Grok names it; null otherwise. */
  readonly promptId: string | null;
  /** `params.update.sessionUpdate` (`agent_message_chunk`, `tool_call`, `turn_completed`, …). */
  readonly kind: string;
  /** The method as Grok sent it (live) or stored it (record). */
  readonly method: string;
  /** The params as Grok sent or stored them; null when they were larger than the bound. */
  readonly params: JsonValue | null;
  /** Set (and `params` null) when the params' JSON text was longer than `limitChars`. */
  readonly truncated: { readonly limitChars: number; readonly preview: string } | null;
  /**
   * Only on a stored merged chunk cut by `TranscriptReconciler`: the characters of its text left
   * out because the live chunks they came from were already in the transcript.
   */
  readonly skippedChars?: number;
  /** When this process received it (ISO 8601), for `live` entries; null for `record`. */
  readonly receivedAt: string | null;
  /** The stored line's `timestamp` (ISO 8601), for `record` entries; null otherwise. */
  readonly storedAt: string | null;
}

const MetaSchema = v.optional(
  v.nullable(
    v.looseObject({
      eventId: v.optional(v.nullable(v.unknown())),
      promptId: v.optional(v.nullable(v.unknown())),
      isReplay: v.optional(v.nullable(v.unknown())),
    }),
  ),
);

/** The params of every session update, live or stored: `{sessionId, update, _meta?}`. */
export const UpdateParamsSchema = v.looseObject({
  sessionId: v.string(),
  update: v.looseObject({ sessionUpdate: v.string(), prompt_id: v.optional(v.unknown()) }),
  _meta: MetaSchema,
});

/** What the transcript reads from an update's params. */
export interface UpdateFacts {
  readonly sessionId: string;
  readonly kind: string;
  readonly eventId: string | null;
  readonly promptId: string | null;
  /** `_meta.isReplay`: the line came from a replaying `session/load`. */
  readonly replay: boolean;
  readonly update: Readonly<Record<string, unknown>>;
}

function text(x: unknown): string | null {
  return typeof x === "string" ? x : null;
}

/** The facts of an update's params, or null when they are not a session update. */
export function updateFacts(params: unknown): UpdateFacts | null {
  const p = v.safeParse(UpdateParamsSchema, params);
  if (!p.success) return null;
  const { sessionId, update, _meta } = p.output;
  const kind = update.sessionUpdate;
  return {
    sessionId,
    kind,
    eventId: text(_meta?.eventId),
    promptId: text(_meta?.promptId) ?? (kind === "turn_completed" ? text(update.prompt_id) : null),
    replay: _meta?.isReplay === true,
    update,
  };
}

const SEQ = /-(\d{1,15})$/;

/**
 * The counter of an eventId of `sessionId` (`{sessionId}-{n}`), or null when it is not one. Real
 * counters are u64; beyond 15 digits (never reached in practice) an id has no usable order.
 */
export function eventSeq(eventId: string | null, sessionId: string): number | null {
  if (eventId === null || !eventId.startsWith(`${sessionId}-`)) return null;
  const m = SEQ.exec(eventId);
  return m?.[1] !== undefined && m.index === sessionId.length ? Number(m[1]) : null;
}

/** `params` if its JSON text fits in `maxChars` (and it nests sanely), else the marker. */
export function boundParams(
  params: unknown,
  maxChars: number,
): Pick<TranscriptEntry, "params" | "truncated"> {
  const json = boundedJson(params, maxChars + 1);
  if (json.length <= maxChars && isJsonValue(params, MAX_PARAMS_DEPTH)) {
    return { params, truncated: null };
  }
  return {
    params: null,
    truncated: { limitChars: maxChars, preview: cutText(json, TRANSCRIPT_PREVIEW_CHARS) },
  };
}

export interface EntryInput {
  readonly source: TranscriptEntry["source"];
  readonly method: string;
  readonly params: unknown;
  readonly facts: UpdateFacts;
  readonly receivedAt: string | null;
  readonly storedAt: string | null;
  readonly maxChars: number;
}

export function makeEntry(i: EntryInput): TranscriptEntry {
  return {
    v: TRANSCRIPT_ENTRY_VERSION,
    source: i.source,
    eventId: i.facts.eventId,
    promptId: i.facts.promptId,
    kind: i.facts.kind,
    method: i.method,
    ...boundParams(i.params, i.maxChars),
    receivedAt: i.receivedAt,
    storedAt: i.storedAt,
  };
}

const EnvelopeSchema = v.looseObject({
  timestamp: v.optional(v.nullable(v.number())),
  method: v.string(),
  params: v.unknown(),
});

/** A stored line, read: the envelope's method and params, or a legacy line's bare params. */
export interface StoredLine {
  readonly method: string;
  readonly params: unknown;
  readonly storedAt: string | null;
  readonly facts: UpdateFacts;
}

function isoFromSeconds(seconds: number | null | undefined): string | null {
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) return null;
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/**
 * One parsed line of `updates.jsonl` (as the file holds it or `x.ai/session/updates` returns
 * it), or why it is not a session update. An object with a string `method` is an envelope;
 * anything else is read as a legacy bare-params line, as `SessionUpdateEnvelope::from_str` does.
 */
export function storedLine(value: unknown): StoredLine | { readonly problem: string } {
  const env = v.safeParse(EnvelopeSchema, value);
  const method = env.success ? env.output.method : "session/update";
  const params = env.success ? env.output.params : value;
  const facts = updateFacts(params);
  if (facts === null) return { problem: "not a session update line" };
  return {
    method,
    params,
    storedAt: env.success ? isoFromSeconds(env.output.timestamp) : null,
    facts,
  };
}

/** The entry of a stored line of `sessionId`, or null for a line of another session. */
export function recordEntry(
  line: StoredLine,
  sessionId: string,
  maxChars: number,
): TranscriptEntry | null {
  if (line.facts.sessionId !== sessionId) return null;
  return makeEntry({
    source: "record",
    method: line.method,
    params: line.params,
    facts: line.facts,
    receivedAt: null,
    storedAt: line.storedAt,
    maxChars,
  });
}

/** The text of a chunk update (`content: {type: "text", text}`), or null. */
export function chunkText(update: Readonly<Record<string, unknown>>): string | null {
  const content = update.content;
  if (typeof content !== "object" || content === null) return null;
  if (Reflect.get(content, "type") !== "text") return null;
  return text(Reflect.get(content, "text"));
}

/** The text of a merged-chunk entry (null when it is not a text chunk or was truncated). */
export function entryChunkText(e: TranscriptEntry): string | null {
  if (!MERGED_CHUNK_KINDS.has(e.kind) || e.params === null) return null;
  const facts = updateFacts(e.params);
  return facts === null ? null : chunkText(facts.update);
}
