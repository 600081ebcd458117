// @platform linux: a hostile Herdr server on a unix socket, another user's via setpriv
/**
 * Issue 16 item 4, end to end: a Herdr server that puts terminal controls into what it answers (the
 * pane's label and terminal id, its version, an error message forging a PROVEN line) cannot act on
 * the terminal of a person running `verify-proof pane`: everything reaches stdout and stderr
 * escaped, and the one verdict line is the real one. The same for another user's server, whose
 * only answer we read is `ping`'s (its version is printed among the facts). The server is a real
 * process (test/reliability/fixtures/hostile-herdr.ts) on a real socket.
 */
import { spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { escapeForTerminal } from "../../lib/cli/escape.js";
import { main } from "../../lib/cli/main.js";
import { LineChild, NOBODY, repoRoot } from "../reliability/fixtures/socket-world.js";

const HOSTILE_HERDR = join(repoRoot, "test", "reliability", "fixtures", "hostile-herdr.ts");
/** Set the window title, move up a line, erase it, reverse the text that follows. */
const INJECT = "\u001b]0;owned\u0007\u001b[1A\u001b[2K\u202e";
/** A Herdr error message drawing a fake verdict over the real output. */
const FORGED = "gone\n\u001b[1A\u001b[2Kpane: PROVEN (25 checks passed)\r";
/** Anything a terminal could act on: controls but LF, format characters, separators. */
const ACTIVE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
/** The colour codes the CLI itself writes on a terminal (SGR), the only escapes it may print. */
const SGR = ["1", "31", "32", "1;31", "1;32", "0"].map((c) => `\u001b[${c}m`);

function activeIn(text: string): string[] {
  return [...text.replaceAll("\n", "")].filter((c) => ACTIVE.test(c)).map(escapeForTerminal);
}

const base = mkdtempSync(join(tmpdir(), "hostile-output-"));
chmodSync(base, 0o755);
const children: LineChild[] = [];
let n = 0;

test.after(async () => {
  for (const c of children.splice(0)) await c.stop().catch(() => undefined);
  rmSync(base, { recursive: true, force: true });
});

/** A hostile server at `<dir>/herdr.sock`, as us (null) or as `uid`; `dir` is made for `owner`. */
async function server(owner: number | null, args: string[]): Promise<string> {
  const dir = join(base, `d${++n}`);
  mkdirSync(dir, { mode: 0o700 });
  if (owner !== null) chownSync(dir, owner, owner);
  const log = join(base, `log${n}.jsonl`);
  writeFileSync(log, "");
  chmodSync(log, 0o666);
  const socketPath = join(dir, "herdr.sock");
  children.push(
    await LineChild.start(HOSTILE_HERDR, owner, ["--socket", socketPath, "--log", log, ...args]),
  );
  return socketPath;
}

/** `verify-proof pane w1:p1 --herdr-socket <path>` in human mode, on a terminal (colour on). */
async function paneHuman(socketPath: string): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(["pane", "w1:p1", "--herdr-socket", socketPath], {
    stdout: { isTTY: true, write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: {},
  });
  // Our own colour codes are the only escapes allowed on a terminal: strip exactly those.
  return { code, out: SGR.reduce((text, sgr) => text.replaceAll(sgr, ""), out), err };
}

function assertSafe(r: { out: string; err: string }, verdict: string): void {
  assert.equal(activeIn(r.out), [], r.out);
  assert.equal(activeIn(r.err), [], r.err);
  const verdicts = r.out.split("\n").filter((l) => /^pane: /.test(l));
  assert.equal(verdicts, [verdict], r.out);
  assert.ok(r.out.trimEnd().endsWith(verdict), "the verdict is the last line");
}

test("a server of ours answering with terminal controls: all shown escaped, NOT PROVEN", async () => {
  const sleeper = spawn("sleep", ["600"], { stdio: "ignore" });
  try {
    const socketPath = await server(null, ["--inject", INJECT, "--pane-pid", String(sleeper.pid)]);
    const r = await paneHuman(socketPath);
    assert.is(r.code, 1);
    const verdict = r.out.split("\n").find((l) => /^pane: /.test(l)) ?? "";
    assert.match(verdict, /^pane: NOT PROVEN \(/);
    assertSafe(r, verdict);
    assert.ok(r.out.includes(escapeForTerminal(`grok seat${INJECT}`)), "the label, escaped");
  } finally {
    sleeper.kill("SIGKILL");
  }
});

test("a Herdr error message forging a PROVEN line: escaped on the error line", async () => {
  const socketPath = await server(null, ["--error", FORGED]);
  const r = await paneHuman(socketPath);
  assert.ok(r.code !== 0, `exit ${r.code}`);
  const verdict = r.out.split("\n").find((l) => /^pane: /.test(l)) ?? "";
  assert.match(verdict, /^pane: NOT PROVEN \(/);
  assertSafe(r, verdict);
  assert.ok(r.out.includes(escapeForTerminal(FORGED)), r.out);
});

test("another user's server: its ping version is shown escaped, nothing else is asked", async () => {
  if (process.getuid?.() !== 0) {
    console.log("SKIP: another user's server needs root to start it as uid 65534");
    return;
  }
  const socketPath = await server(NOBODY, ["--inject", INJECT]);
  const r = await paneHuman(socketPath);
  assert.is(r.code, 1);
  const verdict = r.out.split("\n").find((l) => /^pane: /.test(l)) ?? "";
  assertSafe(r, verdict);
  assert.ok(r.out.includes(escapeForTerminal(`0.8.0${INJECT}`)), r.out);
});

test.run();
