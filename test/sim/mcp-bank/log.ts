/** Read the operator bank's JSON-lines log (main.ts `--log`), checked with valibot. */
import { existsSync, readFileSync } from "node:fs";
import * as v from "valibot";

const Ready = v.object({ event: v.literal("ready"), pid: v.number(), url: v.optional(v.string()) });
const Call = v.object({
  event: v.picklist(["received", "answered"]),
  seq: v.number(),
  name: v.string(),
  argumentsJson: v.optional(v.string()),
  resultJson: v.optional(v.string()),
  errorJson: v.optional(v.string()),
});

export type BankReady = v.InferOutput<typeof Ready>;
export type BankLoggedCall = v.InferOutput<typeof Call>;

function lines(file: string): unknown[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l): unknown => JSON.parse(l));
}

/** The bank's ready line (pid, and url in HTTP mode), once written. */
export function bankReady(file: string): BankReady | undefined {
  for (const l of lines(file)) {
    const r = v.safeParse(Ready, l);
    if (r.success) return r.output;
  }
  return undefined;
}

/** Every call the bank received (`phase: "received"`) or answered, in log order. */
export function bankCalls(file: string, phase: "received" | "answered"): BankLoggedCall[] {
  const out: BankLoggedCall[] = [];
  for (const l of lines(file)) {
    const r = v.safeParse(Call, l);
    if (r.success && r.output.event === phase) out.push(r.output);
  }
  return out;
}

/** How many times the bank's tools changed (SIGUSR2). */
export function bankToolChanges(file: string): number {
  return lines(file).filter((l) => v.is(v.object({ event: v.literal("tools_changed") }), l)).length;
}
