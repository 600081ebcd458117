/**
 * Valid delivery-journal contents (`lib/delivery/journal-record.ts`, version 1): an epoch, then per prompt
 * the records one controller writes in order (fence, dispatched, consumed, a result), encoded with
 * the journal's own `encodeRecord` so every line carries a correct CRC.
 */
import fc from "fast-check";
import { encodeRecord } from "../../../lib/delivery/codec.js";
import type { JournalRecord } from "../../../lib/delivery/journal-record.js";
import { fenceRecord } from "../../delivery/fixtures.js";
import { textArb } from "./text.js";

const at = fc.integer({ min: 0, max: 2 ** 41 });
const detail = fc.option(textArb(40), { nil: undefined });

/** One prompt's records, in the order a single controller writes them. */
function promptRecords(id: string, epoch: number): fc.Arbitrary<JournalRecord[]> {
  return fc
    .record({
      stage: fc.integer({ min: 0, max: 4 }),
      sha: fc
        .uint8Array({ minLength: 32, maxLength: 32 })
        .map((b) => Buffer.from(b).toString("hex")),
      len: fc.nat({ max: 100_000 }),
      at,
      kind: fc.constantFrom("queue-entry" as const, "running-prompt" as const),
      ch: fc.constantFrom(
        "rpc-response" as const,
        "prompt-complete" as const,
        "turn-completed" as const,
      ),
      stop: fc.constantFrom("end_turn", "max_tokens", "refusal", "error"),
      detail,
    })
    .map(({ stage, sha, len, at: t, kind, ch, stop, detail: d }) => {
      const out: JournalRecord[] = [fenceRecord({ id, sha256: sha, len, epoch, at: t })];
      if (stage >= 1) out.push({ v: 1, t: "dispatched", id, at: t + 1 });
      if (stage >= 2)
        out.push({
          v: 1,
          t: "consumed",
          id,
          at: t + 2,
          kind,
          ...(d === undefined ? {} : { detail: d }),
        });
      if (stage >= 3) out.push({ v: 1, t: "completed", id, at: t + 3, ch, stop });
      if (stage === 4)
        out.push({ v: 1, t: "compacted", id: `${id}-old`, state: "completed", at: t + 4 });
      return out;
    });
}

/** A journal: one epoch record, then up to `maxPrompts` prompts, as encoded lines. */
export function journalArb(maxPrompts = 5): fc.Arbitrary<Buffer[]> {
  return fc
    .tuple(fc.integer({ min: 1, max: 1_000 }), fc.nat({ max: maxPrompts }))
    .chain(([epoch, count]) =>
      fc
        .tuple(...Array.from({ length: count }, (_, i) => promptRecords(`p-${epoch}-${i}`, epoch)))
        .map((prompts) => [
          encodeRecord({ v: 1, t: "epoch", epoch, pid: 4242, at: 1 }),
          ...prompts.flat().map((r) => encodeRecord(r)),
        ]),
    );
}
