/**
 * readNativeTranscript over updates.jsonl files written the way Grok writes them
 * (session/storage/mod.rs envelopes, session/persistence.rs merged chunks and the held-back line
 * that lags behind xAI lines), and the pure pieces: the entry bound and the reconciler.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { LiveTranscript } from "../../lib/acp/live-transcript.js";
import { GrokSeatError } from "../../lib/errors.js";
import { nativeTranscriptPath, readNativeTranscript } from "../../lib/grok/native-transcript.js";
import type { TranscriptEntry } from "../../lib/grok/transcript-entry.js";
import { TranscriptReconciler } from "../../lib/grok/transcript-reconcile.js";

const S = "0198b0c2-1111-7222-8333-444455556666";
const P = "prompt-a";

function acp(
  n: number | null,
  update: Record<string, unknown>,
  promptId: string | null = P,
): unknown {
  const meta: Record<string, unknown> = {};
  if (n !== null) meta.eventId = `${S}-${n}`;
  if (promptId !== null) meta.promptId = promptId;
  return {
    timestamp: 1_780_000_000 + (n ?? 0),
    method: "session/update",
    params: { sessionId: S, update, _meta: meta },
  };
}
function xai(n: number, update: Record<string, unknown>): unknown {
  return {
    timestamp: 1_780_000_000 + n,
    method: "_x.ai/session/update",
    params: { sessionId: S, update, _meta: { eventId: `${S}-${n}` } },
  };
}
const chunk = (text: string): Record<string, unknown> => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
});

interface Home {
  readonly home: string;
  readonly cwd: string;
  readonly file: string;
  write(lines: readonly unknown[], tail?: string): void;
  remove(): void;
}

function home(): Home {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "native-transcript-")));
  chmodSync(home, 0o700);
  const cwd = "/home/owner/my project/ü";
  const file = nativeTranscriptPath(home, cwd, S);
  if (file === null) throw new Error("no path");
  mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
  return {
    home,
    cwd,
    file,
    write: (lines, tail = "") =>
      writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n${tail}`, {
        mode: 0o600,
      }),
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}

const ids = (es: readonly TranscriptEntry[]): (string | null)[] => es.map((e) => e.eventId);
const code = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (err) {
    return err instanceof GrokSeatError ? err.code : String(err);
  }
};

// The chunk line S-2 was held back to merge the next chunk into it; the xAI line S-3 was written at
// once, before it; the tool call S-4 drained the held line (session/persistence.rs).
const LAGGING = [
  acp(1, { sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } }, null),
  xai(3, { sessionUpdate: "model_changed", model_id: "grok-build" }),
  acp(2, chunk("Grüße, 👩‍👩‍👧 — hello")),
  acp(4, { sessionUpdate: "tool_call", toolCallId: "t1", title: "read", status: "pending" }),
  xai(5, { sessionUpdate: "turn_completed", prompt_id: P, stop_reason: "end_turn" }),
];

test("the path is $GROK_HOME/sessions/<urlencoded cwd>/<id>/updates.jsonl", () => {
  assert.is(
    nativeTranscriptPath("/g", "/home/owner/my project/ü", S),
    `/g/sessions/%2Fhome%2Fowner%2Fmy%20project%2F%C3%BC/${S}/updates.jsonl`,
  );
  assert.is(
    code(() => nativeTranscriptPath("/g", "/x", "../../etc")),
    "TRANSCRIPT_QUERY_INVALID",
  );
});

test("ordered by eventId though the held-back line lags; pages with since are exclusive and lose nothing", () => {
  const h = home();
  try {
    h.write(LAGGING);
    const all = readNativeTranscript({ grokHome: h.home, cwd: h.cwd, sessionId: S });
    assert.equal(
      ids(all.entries),
      [1, 2, 3, 4, 5].map((n) => `${S}-${n}`),
    );
    assert.is(all.hasMore, false);
    assert.is(all.tornTail, null);
    const e4 = all.entries[1];
    assert.is(e4?.kind, "agent_message_chunk");
    assert.is(e4?.promptId, P);
    assert.is(e4?.source, "record");
    assert.is(e4?.storedAt, new Date((1_780_000_000 + 2) * 1000).toISOString());
    // Page by page, one entry at a time.
    const seen: (string | null)[] = [];
    let since: string | undefined;
    for (let i = 0; i < 10; i++) {
      const p = readNativeTranscript({
        grokHome: h.home,
        cwd: h.cwd,
        sessionId: S,
        limit: 1,
        ...(since === undefined ? {} : { since }),
      });
      seen.push(...ids(p.entries));
      since = p.entries.at(-1)?.eventId ?? since;
      if (!p.hasMore) break;
    }
    assert.equal(seen, ids(all.entries));
    const after3 = readNativeTranscript({
      grokHome: h.home,
      cwd: h.cwd,
      sessionId: S,
      since: `${S}-3`,
    });
    assert.equal(ids(after3.entries), [`${S}-4`, `${S}-5`]);
    const after1 = readNativeTranscript({
      grokHome: h.home,
      cwd: h.cwd,
      sessionId: S,
      since: `${S}-1`,
    });
    assert.equal(
      ids(after1.entries),
      [2, 3, 4, 5].map((n) => `${S}-${n}`),
    );
  } finally {
    h.remove();
  }
});

test("a torn last line is reported and skipped; a legacy bare-params line is read; a bad middle line is listed", () => {
  const h = home();
  try {
    const legacy = {
      sessionId: S,
      update: chunk("legacy"),
      _meta: { eventId: `${S}-6`, promptId: P },
    };
    h.write([...LAGGING, "not an update", legacy], '{"timestamp":1,"method":"session/up');
    const t = readNativeTranscript({ grokHome: h.home, cwd: h.cwd, sessionId: S });
    assert.equal(ids(t.entries).at(-1), `${S}-6`);
    assert.is(t.entries.at(-1)?.method, "session/update");
    assert.ok(t.tornTail !== null && t.tornTail.bytes > 0);
    assert.is(t.unreadableCount, 1);
    assert.is(t.unreadable[0]?.line, 6);
  } finally {
    h.remove();
  }
});

test("an oversize update keeps its place with a truncation marker instead of its params", () => {
  const h = home();
  try {
    h.write([acp(1, chunk("x".repeat(5000))), acp(2, chunk("small"))]);
    const t = readNativeTranscript({
      grokHome: h.home,
      cwd: h.cwd,
      sessionId: S,
      maxEntryChars: 1000,
    });
    const [big, small] = t.entries;
    assert.is(big?.params, null);
    assert.is(big?.truncated?.limitChars, 1000);
    assert.ok(big?.truncated?.preview.startsWith('{"sessionId"'));
    assert.is(big?.eventId, `${S}-1`);
    assert.is(small?.truncated, null);
    // Live entries are bounded the same way.
    const live = new LiveTranscript(S, { maxEntryChars: 1000 });
    const u = live.accept(
      "session/update",
      (acp(9, chunk("y".repeat(5000))) as { params: unknown }).params,
    );
    assert.is(u?.entry.params, null);
    assert.is(u?.entry.truncated?.limitChars, 1000);
  } finally {
    h.remove();
  }
});

test("a file or directory another user could write is refused; a missing one is not found; a foreign since is a usage error", () => {
  const h = home();
  try {
    h.write(LAGGING);
    const read = (): unknown =>
      readNativeTranscript({ grokHome: h.home, cwd: h.cwd, sessionId: S });
    chmodSync(h.file, 0o666);
    assert.is(code(read), "TRANSCRIPT_UNTRUSTED");
    chmodSync(h.file, 0o600);
    chmodSync(join(h.file, ".."), 0o777);
    assert.is(code(read), "TRANSCRIPT_UNTRUSTED");
    chmodSync(join(h.file, ".."), 0o700);
    assert.is(
      code(() =>
        readNativeTranscript({ grokHome: h.home, cwd: h.cwd, sessionId: S, since: "other-1" }),
      ),
      "TRANSCRIPT_QUERY_INVALID",
    );
    rmSync(h.file);
    assert.is(code(read), "TRANSCRIPT_NOT_FOUND");
  } finally {
    h.remove();
  }
});

test("live: a replayed update we had is dropped, another session's is never an entry", () => {
  const live = new LiveTranscript(S);
  const params = (n: number, replay = false): unknown => {
    const p = (acp(n, chunk(`c${n}`)) as { params: { _meta: Record<string, unknown> } }).params;
    if (replay) p._meta.isReplay = true;
    return p;
  };
  assert.ok(live.accept("session/update", params(1)) !== null);
  assert.ok(live.accept("session/update", params(2)) !== null);
  assert.is(live.accept("session/update", params(1, true)), null);
  assert.is(live.accept("session/update", params(2, true)), null);
  assert.ok(live.accept("session/update", params(3, true)) !== null, "new to us: kept");
  assert.is(
    live.accept("session/update", {
      sessionId: "other",
      update: chunk("x"),
      _meta: { eventId: "other-9" },
    }),
    null,
  );
});

test("reconcile: a merged stored line covering live chunks adds only the text not yet written", () => {
  const live = new LiveTranscript(S);
  const r = new TranscriptReconciler(S);
  const text = (e: TranscriptEntry | null): string =>
    e === null
      ? ""
      : ((e.params as { update: { content: { text: string } } }).update.content.text ?? "");
  let out = "";
  // Live: chunks 2 and 3 of the reply; then the connection dropped before chunk 4.
  for (const [n, t] of [
    [2, "Grü"],
    [3, "ße 👩‍"],
  ] as const) {
    const u = live.accept("session/update", (acp(n, chunk(t)) as { params: unknown }).params);
    out += text(u === null ? null : r.push(u.entry));
  }
  // The store merged 2, 3 and 4 into one line carrying eventId 4.
  const h = home();
  try {
    h.write([
      acp(4, chunk("Grüße 👩‍👩‍👧")),
      xai(5, { sessionUpdate: "turn_completed", prompt_id: P, stop_reason: "end_turn" }),
    ]);
    const page = readNativeTranscript({ grokHome: h.home, cwd: h.cwd, sessionId: S });
    const merged = r.push(page.entries[0] as TranscriptEntry);
    assert.is(merged?.skippedChars, "Grüße 👩‍".length);
    out += text(merged);
    assert.is(out, "Grüße 👩‍👩‍👧");
    assert.ok(r.push(page.entries[1] as TranscriptEntry) !== null);
    // The same page again: nothing new.
    assert.is(r.push(page.entries[0] as TranscriptEntry), null);
  } finally {
    h.remove();
  }
});

test.run();
