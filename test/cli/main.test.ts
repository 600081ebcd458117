import { test } from "uvu";
import * as assert from "uvu/assert";
import { fail, pass } from "../../lib/check.js";
import { parseCommandLine, usage } from "../../lib/cli/args.js";
import type { Command, Report } from "../../lib/cli/command.js";
import { commands } from "../../lib/cli/commands/index.js";
import { main } from "../../lib/cli/main.js";
import { renderHuman, reportJson, reportOk, useColor } from "../../lib/cli/output.js";
import { GrokSeatError } from "../../lib/errors.js";

function sink(isTTY = false): { write(s: string): boolean; text: () => string; isTTY: boolean } {
  let buf = "";
  return {
    isTTY,
    write(s: string) {
      buf += s;
      return true;
    },
    text: () => buf,
  };
}

/** A fake command whose outcome the test chooses: the registry contract without the kernel. */
function fake(outcome: Report | Error): Command {
  return {
    name: "fake",
    summary: "a test command",
    positionals: ["thing"],
    flags: {
      leader: { type: "string", description: "a string flag" },
      fast: { type: "boolean", description: "b" },
    },
    async run(input) {
      if (outcome instanceof Error) throw outcome;
      return {
        ...outcome,
        facts: { thing: input.positionals.thing ?? null, leader: String(input.flags.leader) },
      };
    },
  };
}

async function exitOf(
  outcome: Report | Error,
  argv: string[],
): Promise<{ code: number; out: string; err: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await main(argv, { stdout, stderr, env: {} }, [fake(outcome)]);
  return { code, out: stdout.text(), err: stderr.text() };
}

const passing: Report = { subject: "fake", facts: null, checks: [pass("fake.a", 1, 1)] };
const failing: Report = {
  subject: "fake",
  facts: null,
  checks: [pass("fake.a", 1, 1), fail("fake.b", 1, 2, "differs")],
};

test("exit codes: 0 all passed, 1 a check failed, 2 thrown I/O or usage error", async () => {
  assert.is((await exitOf(passing, ["fake", "x"])).code, 0);
  assert.is((await exitOf(failing, ["fake", "x"])).code, 1);
  assert.is(
    (await exitOf({ ...passing, checks: [] }, ["fake", "x"])).code,
    1,
    "no checks is not a proof",
  );
  const io = await exitOf(new GrokSeatError("SYSCALL_FAILED", "boom"), ["fake", "x", "--json"]);
  assert.is(io.code, 2);
  assert.equal(JSON.parse(io.out), {
    ok: false,
    subject: "fake",
    facts: null,
    checks: [],
    error: { code: "SYSCALL_FAILED", message: "boom" },
  });
  assert.is((await exitOf(passing, ["fake"])).code, 2);
  assert.is((await exitOf(passing, ["fake", "x", "--nope"])).code, 2);
});

test("a command's own flags are parsed from its spec (how --leader gets added to socket)", async () => {
  const r = await exitOf(passing, ["fake", "x", "--leader", "L1", "--json"]);
  assert.is(r.code, 0);
  assert.equal(JSON.parse(r.out).facts, { thing: "x", leader: "L1" });
  const parsed = parseCommandLine(["fake", "--fast", "y"], [fake(passing)]);
  assert.is(parsed.kind, "run");
  if (parsed.kind === "run")
    assert.equal(parsed.input, { positionals: { thing: "y" }, flags: { fast: true } });
  assert.is(parseCommandLine(["fake", "--help"], [fake(passing)]).kind, "help");
});

test("the registry lists process and socket (others add theirs); usage is built from it", () => {
  const names = commands.map((c) => c.name);
  assert.ok(names.includes("process") && names.includes("socket"), names.join(","));
  assert.is(new Set(names).size, names.length, "command names are unique");
  const text = usage(commands);
  assert.match(text, /verify-proof process <pid> \[--json\]/);
  assert.match(text, /verify-proof socket <path>/);
});

test("output: json shape, human lines, colour rule", () => {
  assert.equal(reportJson(failing), {
    ok: false,
    subject: "fake",
    facts: null,
    checks: [
      { check: "fake.a", ok: true, expected: 1, received: 1, reason: null },
      { check: "fake.b", ok: false, expected: 1, received: 2, reason: "differs" },
    ],
  });
  assert.is(reportOk(passing), true);
  const human = renderHuman(failing, false).split("\n");
  assert.is(human.at(-2), "fake: NOT PROVEN (1 of 2 checks failed)", "the verdict is last");
  assert.ok(human.includes("✗ FAIL  fake.b  differs (expected 1, got 2)"));
  assert.ok(human.includes("✓ ok    fake.a"));
  assert.is(useColor(sink(true), {}), true);
  assert.is(useColor(sink(true), { NO_COLOR: "1" }), false);
  assert.is(useColor(sink(false), {}), false);
});

test.run();
