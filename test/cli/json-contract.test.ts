/**
 * `--json` is a contract: the human printer may change, the JSON may not. Each subcommand's report
 * (test/cli/fixtures/reports.ts, hostile strings included) must print byte for byte what the
 * printer printed before the human output was rewritten (fixtures/json-golden.txt, captured from
 * that printer), and so must the two error documents (a thrown error, a usage error).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { main } from "../../lib/cli/main.js";
import { GrokSeatError } from "../../lib/errors.js";
import { FIXTURES, stub } from "./fixtures/reports.js";

const golden = new Map(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), "fixtures", "json-golden.txt"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const tab = l.indexOf("\t");
      return [l.slice(0, tab), `${l.slice(tab + 1)}\n`] as const;
    }),
);

async function jsonOf(
  name: string,
  outcome: Parameters<typeof stub>[1],
  argv: string[],
): Promise<string> {
  let out = "";
  await main(
    argv,
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true }, env: {} },
    [stub(name, outcome)],
  );
  return out;
}

for (const [id, command, report] of FIXTURES) {
  test(`${id}: --json is byte-identical to the contract`, async () => {
    const want = golden.get(id);
    assert.ok(want !== undefined, `a golden line for ${id}`);
    assert.is(await jsonOf(command, report, [command, "x", "--json"]), want);
    assert.is(await jsonOf(command, report, [command, "x", "--leader", "--json"]), want);
  });
}

test("a thrown error and a usage error: the same error documents", async () => {
  const thrown = new GrokSeatError("SYSCALL_FAILED", "SYSCALL_FAILED: lstat \u001b[31mboom");
  assert.is(await jsonOf("socket", thrown, ["socket", "x", "--json"]), golden.get("thrown"));
  assert.is(await jsonOf("socket", thrown, ["nope\u001b[2J", "--json"]), golden.get("usage"));
});

test.run();
