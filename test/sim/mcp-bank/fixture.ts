/**
 * The operator bank's tools and the call cases that go with them, from
 * test/fixtures/mcp/ (provenance: docs/design/acp-mcp-toolchain.md §2.1 and §3.1, whose shapes they
 * reproduce, plus the draft-07/2020-12 and `__proto__` cases named in issue 7).
 */
import { readFileSync } from "node:fs";
import * as v from "valibot";

const here = new URL("../../fixtures/mcp/", import.meta.url);

const BankFile = v.object({ tools: v.array(v.unknown()) });
const CallsFile = v.object({
  calls: v.array(
    v.object({
      tool: v.string(),
      arguments: v.record(v.string(), v.unknown()),
      valid: v.boolean(),
      note: v.string(),
    }),
  ),
});

export type CallCase = v.InferOutput<typeof CallsFile>["calls"][number];

function load(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, here), "utf8"));
}

/** A fresh copy of the bank's tool entries, exactly as in the fixture. */
export function loadBankTools(): unknown[] {
  return v.parse(BankFile, load("operator-bank.json")).tools;
}

/**
 * The call cases. Checked with `v.is`, not parsed: parsing copies `arguments` key by key and
 * would drop an own `__proto__` key, which is one of the cases.
 */
export function loadCallCases(): CallCase[] {
  const raw = load("operator-calls.json");
  if (!v.is(CallsFile, raw)) throw new Error("operator-calls.json does not match its schema");
  return raw.calls;
}

/** Names of the bank tools that can never be an object (reported, never listed). */
export const NEVER_OBJECT_TOOLS = ["spell_word", "scalar_union", "refuse_all"] as const;
