/**
 * Human-mode verify-proof: what a hostile Herdr server, leader or file name puts into a string
 * reaches the terminal escaped (C0/C1 controls, DEL, bidi overrides and isolates, separators),
 * everywhere it is printed (facts, check reasons, expected/received, the error, stderr); the
 * report reads as aligned `name  value` groups, one line per check, the verdict last; colour only
 * on a terminal without NO_COLOR; a kernel message is not prefixed with its code twice.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { escapeForTerminal } from "../../lib/cli/escape.js";
import { main } from "../../lib/cli/main.js";
import { renderHuman } from "../../lib/cli/output.js";
import { GrokSeatError } from "../../lib/errors.js";
import { FIXTURES, PANE, stub } from "./fixtures/reports.js";

/** Anything a terminal could act on: controls but LF, format characters, separators. */
const ACTIVE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

function activeIn(text: string): string[] {
  return [...text.replaceAll("\n", "")]
    .filter((c) => ACTIVE.test(c))
    .map((c) => escapeForTerminal(c));
}

async function run(
  name: string,
  outcome: Parameters<typeof stub>[1],
  argv: string[],
  opts: { tty?: boolean; env?: Record<string, string> } = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(
    argv,
    {
      stdout: { isTTY: opts.tty === true, write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      env: opts.env ?? {},
    },
    [stub(name, outcome)],
  );
  return { code, out, err };
}

test("escapeForTerminal: controls, DEL, C1, bidi, separators, lone surrogates, backslash", () => {
  const cases: [string, string][] = [
    ["a\u001b[2Kb", "a\\x1b[2Kb"],
    ["\n\r\t\u0000\u007f\u0085\u009b", "\\n\\r\\t\\x00\\x7f\\x85\\x9b"],
    ["x\u202ay\u202bz\u202c\u202d\u202e", "x\\u{202a}y\\u{202b}z\\u{202c}\\u{202d}\\u{202e}"],
    [
      "\u2066\u2067\u2068\u2069\u200e\u200f\u061c",
      "\\u{2066}\\u{2067}\\u{2068}\\u{2069}\\u{200e}\\u{200f}\\u{61c}",
    ],
    ["\u2028\u2029\ufeff\u200b\udc00", "\\u{2028}\\u{2029}\\u{feff}\\u{200b}\\u{dc00}"],
    ["C:\\x1b", "C:\\\\x1b"],
    ["plain /tmp/ünï-cödé ✓ 日本", "plain /tmp/ünï-cödé ✓ 日本"],
  ];
  for (const [raw, shown] of cases) assert.is(escapeForTerminal(raw), shown, JSON.stringify(raw));
});

for (const [id, command, report] of FIXTURES) {
  test(`${id}: nothing a terminal acts on reaches stdout or stderr; the verdict is last`, async () => {
    const r = await run(command, report, [command, "x"]);
    assert.equal(activeIn(r.out), [], r.out);
    assert.equal(activeIn(r.err), [], r.err);
    const lines = r.out.trimEnd().split("\n");
    assert.match(lines.at(-1) ?? "", new RegExp(`^${command}: (PROVEN|NOT PROVEN) \\(`));
    assert.is(
      lines.filter((l) => /PROVEN/.test(l) && !l.includes("\\x1b")).length,
      1,
      "one verdict",
    );
    assert.not.match(r.out, /[=:] ?[{[]"/, "no raw JSON blob");
  });
}

test("the injected fake lines are shown as escapes, on the line they came with", () => {
  const out = renderHuman(PANE, false);
  assert.ok(
    out.includes("error: PANE_NOT_BOUND: Herdr said: pane gone\\x1b[1A\\x1b[2Kpane: PROVEN\n"),
  );
  assert.match(out, /\n {2}label +grok seat\\x9b31m\n/);
  assert.match(out, /\n {2}version +0\.8\.0\\u\{2066\}\\u\{2069\}\n/);
});

test("facts: one aligned group per object, modes in octal, checks one line each", () => {
  const out = renderHuman(PANE, false).split("\n");
  const start = out.indexOf("herdr.socketFile");
  assert.ok(start > 0, "a nested object is its own group");
  assert.equal(out.slice(start, start + 5), [
    "herdr.socketFile",
    "  device  66306",
    "  inode   777",
    "  uid     1000",
    "  mode    0600",
  ]);
  const checks = out.filter((l) => /^(✓ ok|✗ FAIL)/.test(l));
  assert.is(checks.length, PANE.checks.length);
  assert.match(
    checks[1] ?? "",
    /^✗ FAIL {2}pane\.process_identity {2}the pid now belongs to another process \(expected kind=linux-pidfs value=\S+, got kind=linux-pidfs value=other\)$/,
  );
});

test("colour only on a terminal, never with NO_COLOR", async () => {
  const [, command, report] = FIXTURES[0] ?? ["", "", PANE];
  const tty = await run(command, report, [command, "x"], { tty: true });
  assert.ok(tty.out.includes("\u001b[1;32mPROVEN\u001b[0m"), tty.out);
  const noColor = await run(command, report, [command, "x"], { tty: true, env: { NO_COLOR: "1" } });
  assert.not.ok(noColor.out.includes("\u001b"));
  const pipe = await run(command, report, [command, "x"]);
  assert.not.ok(pipe.out.includes("\u001b"));
});

test("stderr: a thrown message and a usage error are escaped; a code is printed once", async () => {
  const thrown = await run(
    "socket",
    new GrokSeatError(
      "INVALID_ARGUMENT",
      "INVALID_ARGUMENT: socketFacts: path \u001b]2;owned\u0007",
    ),
    ["socket", "x"],
  );
  assert.is(thrown.code, 2);
  assert.is(
    thrown.err.split("\n")[0],
    "verify-proof socket: INVALID_ARGUMENT: socketFacts: path \\x1b]2;owned\\x07",
  );
  const usage = await run("socket", PANE, ["no\u001b[2Jpe"]);
  assert.is(usage.code, 2);
  assert.is(usage.err.split("\n")[0], "verify-proof: unknown command: no\\x1b[2Jpe");
});

test("the real CLI: an invalid socket path prints INVALID_ARGUMENT once", async () => {
  let err = "";
  const code = await main(["socket", ""], {
    stdout: { write: () => true },
    stderr: { write: (s: string) => (err += s) },
    env: {},
  });
  assert.is(code, 2);
  assert.match(err, /\nverify-proof socket: INVALID_ARGUMENT: socketFacts: /);
  assert.not.match(err, /INVALID_ARGUMENT: INVALID_ARGUMENT/);
});

test.run();
