import { realpathSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type ProcessFacts, type ProcessRead, processFacts } from "../../lib/kernel/index.js";
import { checkIdentityStable, checkProcess, checkProcessRead } from "../../lib/proof/process.js";
import {
  cleanup,
  linuxOnly,
  readlinkOrNull,
  spawnChild,
  tempDir,
  waitFor,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the process proof tests on a real child");

const facts: ProcessFacts = {
  pid: 42,
  ppid: 1,
  uid: 1000,
  euid: 1000,
  executable: "/usr/bin/grok",
  executableDeleted: false,
  cwd: "/home/u/project",
  tty: "/dev/pts/3",
  startTimeUs: 1_700_000_000_000_000,
  startTimePrecisionUs: 10_000,
  identity: { kind: "linux-pidfs", value: "boot:1234" },
};

test("read checks: facts, gone, zombie and denied give distinct failed checks", () => {
  const ok = checkProcessRead(42, { ok: true, facts });
  assert.equal(
    ok.map((c) => [c.check, c.ok]),
    [
      ["process.exists", true],
      ["process.alive", true],
      ["process.readable", true],
    ],
  );
  const err = (code: string): ProcessRead => ({ ok: false, error: { code, message: code } });
  assert.equal(
    checkProcessRead(42, err("NO_SUCH_PROCESS")).map((c) => [c.check, c.ok]),
    [["process.exists", false]],
  );
  assert.equal(
    checkProcessRead(42, err("ZOMBIE")).map((c) => [c.check, c.ok]),
    [
      ["process.exists", true],
      ["process.alive", false],
    ],
  );
  const denied = checkProcessRead(42, err("ACCESS_DENIED"));
  assert.equal(
    denied.map((c) => [c.check, c.ok]),
    [
      ["process.exists", true],
      ["process.readable", false],
    ],
  );
  assert.is(denied[1]?.received, "ACCESS_DENIED");
  assert.is(checkProcessRead(42, err("NO_SUCH_PROCESS"), "leader")[0]?.check, "leader.exists");
});

test("identity stable: same passes, changed or unreadable fails", () => {
  assert.is(checkIdentityStable(facts.identity, { ok: true, facts }).ok, true);
  const other = { ...facts, identity: { kind: "linux-pidfs" as const, value: "boot:9999" } };
  const changed = checkIdentityStable(facts.identity, { ok: true, facts: other });
  assert.is(changed.ok, false);
  assert.equal(changed.received, { kind: "linux-pidfs", value: "boot:9999" });
  const gone = checkIdentityStable(facts.identity, {
    ok: false,
    error: { code: "NO_SUCH_PROCESS", message: "gone" },
  });
  assert.is(gone.ok, false);
});

test("checkProcess compares only what the expectation names, each with a reason", () => {
  assert.equal(checkProcess(facts, {}), []);
  const all = checkProcess(facts, {
    identity: facts.identity,
    executable: "/usr/bin/grok",
    cwd: "/home/u/project",
    uid: 1000,
    tty: "/dev/pts/3",
  });
  assert.equal(
    all.map((c) => [c.check, c.ok]),
    [
      ["process.identity", true],
      ["process.executable", true],
      ["process.cwd", true],
      ["process.uid", true],
      ["process.tty", true],
    ],
  );
  const bad = checkProcess(
    { ...facts, executableDeleted: true, euid: 0 },
    { executable: "/usr/bin/grok", uid: 1000, tty: null, cwd: "/elsewhere" },
    "leader",
  );
  assert.equal(
    bad.map((c) => [c.check, c.ok]),
    [
      ["leader.executable", false],
      ["leader.cwd", false],
      ["leader.uid", false],
      ["leader.tty", false],
    ],
  );
  assert.ok(bad.every((c) => typeof c.reason === "string" && c.reason.length > 0));
});

linuxTest("on a real child: the expectation built from ps-independent facts passes", async () => {
  const dir = tempDir("proc");
  const child = spawnChild("sleep", ["30"], { cwd: dir });
  const pid = child.pid ?? 0;
  await waitFor("exec", () => readlinkOrNull(`/proc/${pid}/exe`) === "/usr/bin/sleep");
  const f = processFacts(pid);
  const checks = checkProcess(f, {
    identity: f.identity,
    executable: "/usr/bin/sleep",
    cwd: realpathSync(dir),
    uid: process.getuid?.() ?? 0,
    tty: null,
  });
  assert.ok(
    checks.every((c) => c.ok),
    JSON.stringify(checks.filter((c) => !c.ok)),
  );
});

test.run();
