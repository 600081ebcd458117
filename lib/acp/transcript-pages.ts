/**
 * `seat.transcript({ since, limit })`: a page of our session's stored transcript over
 * `x.ai/session/updates` (`extensions/session_updates.rs`), a read-only tail of `updates.jsonl`
 * with no replay and no side effect on the owner's TUI (docs/design/decisions.md §13.3). Pages are
 * chosen by `PageSelector` exactly as `readNativeTranscript` chooses them from the file.
 *
 * The method pages by line offset (`offset < 0`: a tail); a cursor is an eventId. So a `since`
 * query first walks back from the tail, one window at a time, to the last line at or below the
 * cursor, then reads forward from a little before it (a stored line can lag behind later ones by
 * the merge buffer, `TRANSCRIPT_LOOKAHEAD`). A cursor near the end costs two requests.
 */
import * as v from "valibot";
import { UsageError } from "../errors.js";
import type { GrokErrorCode } from "../grok/grok-error.js";
import {
  eventSeq,
  recordEntry,
  storedLine,
  TRANSCRIPT_ENTRY_MAX_CHARS,
} from "../grok/transcript-entry.js";
import {
  cursorSeq,
  PageSelector,
  pageLimit,
  TRANSCRIPT_LOOKAHEAD,
  type TranscriptPage,
} from "../grok/transcript-page.js";
import { AcpError } from "./acp-error.js";

export interface TranscriptQuery {
  /** An eventId of this session: only entries after it (exclusive). */
  readonly since?: string;
  /** Entries per page (default 500, at most 10,000). */
  readonly limit?: number;
  /** Bound on one entry's params, in characters of JSON (default 256 Ki). */
  readonly maxEntryChars?: number;
}

/** The raw answer (no `{"result": …}` envelope): stored lines verbatim and the line count. */
const UpdatesAnswerSchema = v.looseObject({
  updates: v.array(v.unknown()),
  totalCount: v.pipe(v.number(), v.integer(), v.minValue(0)),
  hasMore: v.boolean(),
});

type Request = (method: string, params: unknown) => Promise<unknown>;

/** Lines per walk-back window. */
const WINDOW = 256;

async function fetchLines(
  request: Request,
  sessionId: string,
  cwd: string,
  offset: number,
  limit: number,
): Promise<v.InferOutput<typeof UpdatesAnswerSchema>> {
  const raw = await request("_x.ai/session/updates", { sessionId, cwd, offset, limit });
  const parsed = v.safeParse(UpdatesAnswerSchema, raw);
  if (!parsed.success) {
    throw new AcpError("ACP_UPDATES_INVALID", "x.ai/session/updates answer has the wrong shape", {
      details: { issue: v.summarize(parsed.issues).slice(0, 500) },
    });
  }
  return parsed.output;
}

function lineSeq(line: unknown, sessionId: string): number | null {
  const stored = storedLine(line);
  return "problem" in stored ? null : eventSeq(stored.facts.eventId, sessionId);
}

/** Where the lines after the cursor start: the absolute index after the last line at or below it. */
async function cursorStart(
  request: Request,
  sessionId: string,
  cwd: string,
  since: number,
  window: number,
): Promise<number> {
  const tail = await fetchLines(request, sessionId, cwd, -window, window);
  let start = Math.max(tail.totalCount - tail.updates.length, 0);
  let lines = tail.updates;
  for (;;) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const seq = lineSeq(lines[i], sessionId);
      if (seq !== null && seq <= since) return start + i + 1;
    }
    if (start === 0) return 0;
    const from = Math.max(start - window, 0);
    lines = (await fetchLines(request, sessionId, cwd, from, start - from)).updates;
    start = from;
  }
}

export async function readTranscriptPage(
  request: Request,
  sessionId: string,
  cwd: string,
  query: TranscriptQuery,
): Promise<TranscriptPage> {
  const cursor = cursorSeq(query.since, sessionId);
  const limit = pageLimit(query.limit);
  if (!cursor.ok || limit === null) {
    throw new UsageError<GrokErrorCode>(
      "TRANSCRIPT_QUERY_INVALID",
      cursor.ok ? "limit must be an integer in 1..10000" : cursor.reason,
      { details: { since: query.since ?? null, limit: query.limit ?? null } },
    );
  }
  const maxChars = query.maxEntryChars ?? TRANSCRIPT_ENTRY_MAX_CHARS;
  const want = limit + TRANSCRIPT_LOOKAHEAD;
  let from = 0;
  if (cursor.seq !== null) {
    const start = await cursorStart(request, sessionId, cwd, cursor.seq, Math.max(WINDOW, want));
    from = Math.max(start - TRANSCRIPT_LOOKAHEAD, 0);
  }
  // The lines before the cursor's place (a lagging one may be among them) and a full page after.
  const page = await fetchLines(
    request,
    sessionId,
    cwd,
    from,
    want + (cursor.seq === null ? 0 : TRANSCRIPT_LOOKAHEAD),
  );
  const selector = new PageSelector(sessionId, cursor.seq, limit);
  let more = page.hasMore;
  for (const line of page.updates) {
    if (selector.full) {
      more = true;
      break;
    }
    const stored = storedLine(line);
    if ("problem" in stored) continue;
    const entry = recordEntry(stored, sessionId, maxChars);
    if (entry !== null) selector.offer(entry);
  }
  return selector.page(more);
}
