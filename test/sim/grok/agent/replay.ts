/**
 * session/storage/replay.rs prepare_replay_lines: the non-blank lines of updates.jsonl, the
 * highest event sequence seen (the agent's event counter is raised past it), and the cursor
 * rule: when `_meta.cursor` names the last line with that eventId and every later line has an
 * eventId, only the later lines are sent and they are not marked `isReplay`; otherwise the
 * whole transcript is replayed with `isReplay: true`.
 */
import { field, parseJson, str } from "../json.js";

export interface PreparedReplay {
  lines: string[];
  markReplay: boolean;
  maxEventSeq: number | undefined;
}

/** The line's params: the envelope's, or the line itself in the legacy (envelope-less) format. */
export function lineParams(line: unknown): unknown {
  return field(line, "method") !== undefined ? field(line, "params") : line;
}

function lineEventId(line: string): string | undefined {
  return str(field(field(lineParams(parseJson(line)), "_meta"), "eventId"));
}

function seqOf(eventId: string): number | undefined {
  const tail = eventId.slice(eventId.lastIndexOf("-") + 1);
  return /^\d+$/.test(tail) ? Number(tail) : undefined;
}

export function prepareReplay(contents: string, cursor: string | undefined): PreparedReplay {
  const lines = contents.split("\n").filter((l) => l.trim() !== "");
  let maxEventSeq: number | undefined;
  const ids = lines.map(lineEventId);
  for (const id of ids) {
    const seq = id === undefined ? undefined : seqOf(id);
    if (seq !== undefined) maxEventSeq = Math.max(maxEventSeq ?? seq, seq);
  }
  let cursorPos: number | undefined;
  if (cursor !== undefined) {
    const pos = ids.lastIndexOf(cursor);
    if (pos >= 0 && ids.slice(pos + 1).every((id) => id !== undefined)) cursorPos = pos;
  }
  return {
    lines: cursorPos === undefined ? lines : lines.slice(cursorPos + 1),
    markReplay: cursorPos === undefined,
    maxEventSeq,
  };
}
