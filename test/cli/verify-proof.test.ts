import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import {
  asNobody,
  cleanup,
  exited,
  haveCommand,
  linuxOnly,
  pidExists,
  repoRoot,
  spawnChild,
  spawnListener,
  tempDir,
  waitFor,
} from "../helpers/kernel-children.js";
import { CheckJson } from "./fixtures/check-json.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the verify-proof CLI tests");

/** The escape that starts every ANSI colour sequence. */
const ESC = String.fromCharCode(0x1b);
const cli = join(repoRoot, "lib", "cli", "verify-proof.ts");

function run(
  args: readonly string[],
  env: Record<string, string> = {},
  prefix: readonly string[] = [],
) {
  const argv = [...prefix, process.execPath, "--import", "tsx", cli, ...args];
  const r = spawnSync(argv[0] ?? process.execPath, argv.slice(1), {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "", ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const Identity = v.strictObject({ kind: v.string(), value: v.string() });
const ProcessFactsJson = v.strictObject({
  pid: v.number(),
  ppid: v.number(),
  uid: v.number(),
  euid: v.number(),
  executable: v.nullable(v.string()),
  executableDeleted: v.boolean(),
  cwd: v.nullable(v.string()),
  tty: v.nullable(v.string()),
  startTimeUs: v.number(),
  startTimePrecisionUs: v.number(),
  identity: Identity,
});
const SocketFactsJson = v.strictObject({
  path: v.string(),
  type: v.string(),
  inode: v.string(),
  device: v.string(),
  uid: v.number(),
  mode: v.number(),
  dir: v.strictObject({
    path: v.string(),
    uid: v.number(),
    mode: v.number(),
    isSymlink: v.boolean(),
  }),
  listeners: v.array(v.number()),
  listeningSockets: v.nullable(v.number()),
});
const ErrorJson = v.strictObject({ code: v.string(), message: v.string() });
const Report = <F extends v.GenericSchema>(facts: F) =>
  v.strictObject({
    ok: v.boolean(),
    subject: v.picklist(["process", "socket"]),
    facts: v.nullable(facts),
    checks: v.array(CheckJson),
    error: v.optional(ErrorJson),
  });

/** --json prints exactly one JSON object on stdout. */
function json<S extends v.GenericSchema>(schema: S, stdout: string): v.InferOutput<S> {
  const lines = stdout.trim().split("\n");
  assert.is(lines.length, 1, `one line of JSON, got ${JSON.stringify(stdout)}`);
  return v.parse(schema, JSON.parse(lines[0] ?? ""));
}

linuxTest(
  "process <live pid>: exit 0, human table with one line per check, progress on stderr",
  () => {
    const child = spawnChild("sleep", ["30"]);
    const r = run(["process", String(child.pid)]);
    assert.is(r.code, 0, r.stderr);
    const checkLines = r.stdout.split("\n").filter((l) => /^(✓ ok|✗ FAIL)/.test(l));
    assert.equal(
      checkLines.map((l) => l.split(/\s+/)[2]),
      ["process.exists", "process.alive", "process.readable", "process.identity_stable"],
    );
    assert.ok(r.stderr.includes(`pid ${child.pid}`), "progress went to stderr");
    assert.not.ok(r.stdout.includes(ESC), "no colour when stdout is not a terminal");
  },
);

linuxTest("process --json: exactly one object with the contract's keys", () => {
  const child = spawnChild("sleep", ["30"]);
  const r = run(["process", String(child.pid), "--json"]);
  assert.is(r.code, 0, r.stderr);
  const out = json(Report(ProcessFactsJson), r.stdout);
  assert.is(out.ok, true);
  assert.is(out.subject, "process");
  assert.is(out.facts?.pid, child.pid);
  assert.is(out.facts?.startTimePrecisionUs, 10_000);
  assert.is(out.error, undefined);
});

linuxTest("process <dead pid>: exit 1 with process.exists failed and the error code", async () => {
  const child = spawnChild("true", []);
  await exited(child);
  await waitFor("reap", () => !pidExists(child.pid ?? 0));
  const r = run(["process", String(child.pid), "--json"]);
  assert.is(r.code, 1);
  const out = json(Report(ProcessFactsJson), r.stdout);
  assert.is(out.ok, false);
  assert.is(out.facts, null);
  assert.equal(
    out.checks.map((c) => [c.check, c.ok]),
    [["process.exists", false]],
  );
  assert.is(out.error?.code, "NO_SUCH_PROCESS");
  const human = run(["process", String(child.pid)]);
  assert.is(human.code, 1);
  assert.match(human.stdout, /✗ FAIL\s+process\.exists\s+pid \d+ does not exist/);
});

linuxTest("process as uid 65534 on root's process: ACCESS_DENIED is a failed check, exit 1", () => {
  const child = spawnChild("sleep", ["30"]);
  const r = run(["process", String(child.pid), "--json"], { HOME: "/tmp" }, asNobody);
  assert.is(r.code, 1, r.stderr);
  const out = json(Report(ProcessFactsJson), r.stdout);
  assert.equal(
    out.checks.map((c) => [c.check, c.ok]),
    [
      ["process.exists", true],
      ["process.readable", false],
    ],
  );
  assert.is(out.error?.code, "ACCESS_DENIED");
});

linuxTest("socket: a private listener passes (0); stale or missing fails (1)", async () => {
  const dir = join(tempDir("cli"), "d");
  mkdirSync(dir, { mode: 0o700 });
  const path = join(dir, "s.sock");
  const child = await spawnListener(path);
  const good = run(["socket", path, "--json"]);
  assert.is(good.code, 0, good.stdout);
  const out = json(Report(SocketFactsJson), good.stdout);
  assert.equal(out.facts?.listeners, [child.pid]);
  assert.is(out.facts?.dir.mode, 0o700);
  child.kill("SIGKILL");
  await exited(child);
  const stale = run(["socket", path, "--json"]);
  assert.is(stale.code, 1);
  const staleOut = json(Report(SocketFactsJson), stale.stdout);
  assert.equal(
    staleOut.checks.filter((c) => !c.ok).map((c) => c.check),
    ["socket.listener", "socket.listener_pid"],
  );
  assert.is(staleOut.facts?.listeningSockets, 0);
  const missing = run(["socket", join(dir, "nope.sock"), "--json"]);
  assert.is(missing.code, 1);
  const missingOut = json(Report(SocketFactsJson), missing.stdout);
  assert.equal(
    missingOut.checks.map((c) => [c.check, c.ok]),
    [["socket.exists", false]],
  );
  assert.is(missingOut.error?.code, "SYSCALL_FAILED");
});

linuxTest(
  "usage errors exit 2: no command, unknown command/flag, bad pid, extra args, long path",
  () => {
    const cases: string[][] = [
      [],
      ["frobnicate"],
      ["process"],
      ["process", "abc"],
      ["process", "0"],
      ["process", "1.5"],
      ["process", "1", "2"],
      ["process", "1", "--verbose"],
      ["socket", `/tmp/${"x".repeat(200)}`],
    ];
    for (const args of cases) {
      const r = run(args);
      assert.is(r.code, 2, `${JSON.stringify(args)}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /verify-proof/);
    }
    const withJson = run(["process", "abc", "--json"]);
    assert.is(withJson.code, 2);
    const out = json(Report(ProcessFactsJson), withJson.stdout);
    assert.is(out.ok, false);
    assert.ok(out.error);
    const help = run(["--help"]);
    assert.is(help.code, 0);
    assert.match(help.stdout, /verify-proof process <pid>/);
    assert.match(help.stdout, /verify-proof socket <path>/);
  },
);

linuxTest("colour only on a terminal and only without NO_COLOR", () => {
  if (!haveCommand("script")) {
    console.log("SKIP: script(1) is not installed, no terminal to test colour on");
    return;
  }
  const child = spawnChild("sleep", ["30"]);
  const cmd = `${process.execPath} --import tsx ${cli} process ${child.pid}`;
  const tty = (env: Record<string, string | undefined>) =>
    spawnSync("script", ["-qfc", cmd, "/dev/null"], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
  const colored = tty({ NO_COLOR: "" });
  assert.ok(colored.stdout.includes(`${ESC}[32m`), "green on a terminal");
  const plain = tty({ NO_COLOR: "1" });
  assert.not.ok(plain.stdout.includes(ESC), "NO_COLOR=1 disables colour");
  assert.match(plain.stdout, /process\.identity_stable/);
});

test.run();
