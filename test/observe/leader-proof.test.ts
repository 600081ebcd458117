/**
 * The leader proof flow end to end against a real leader *process* (test/helpers/fake-leader.ts run
 * as a child: lock file with its pid, flock held, listening socket): this test process plays the
 * TUI that spawned it. The same proof against the grok simulator is test/proof/leader.test.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { CheckResult } from "../../lib/check.js";
import { processFacts } from "../../lib/kernel/index.js";
import { connectLeader, type LeaderConnection } from "../../lib/leader/leader-connection.js";
import { proveLeader } from "../../lib/observe/leader-proof.js";
import { WRONG_PID_FAILS } from "../proof/leader-checks.js";

let dir = "";
let child: ChildProcess | null = null;
let conn: LeaderConnection | null = null;

async function startLeader(extra: string[] = []): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), "grok-seat-leader-proof-"));
  const socketPath = join(dir, "leader.sock");
  child = spawn(
    process.execPath,
    ["--import", "tsx", "test/helpers/fake-leader.ts", socketPath, ...extra],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child?.stdout?.once("data", () => resolve());
    child?.once("exit", (code) => reject(new Error(`fake leader exited ${code}`)));
  });
  return socketPath;
}

test.after.each(async () => {
  await conn?.close();
  conn = null;
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child?.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  }
  child = null;
  rmSync(dir, { recursive: true, force: true });
});

function tui() {
  const f = processFacts(process.pid);
  return { pid: f.pid, identity: f.identity, cwd: f.cwd ?? "" };
}

function failed(checks: readonly CheckResult[]): string[] {
  return checks.filter((c) => !c.ok).map((c) => `${c.check}: ${c.reason}`);
}

test("a leader process spawned by us passes every leader check", async () => {
  const socketPath = await startLeader();
  conn = await connectLeader(socketPath, { keepaliveIntervalMs: 0 });
  const proof = await proveLeader(conn, {
    socketPath,
    tui: tui(),
    grokExecutable: realpathSync(process.execPath),
  });
  assert.equal(failed(proof.checks), []);
  assert.is(proof.leaderInfo?.pid, child?.pid);
  assert.is(proof.peer?.pid, child?.pid);
  assert.ok(proof.checks.some((c) => c.check === "leader.flock_holder"));
  assert.ok(proof.checks.some((c) => c.check === "leader.peer_socket_file"));
});

test("a lying leader (reports our pid) fails leader.peer_pid", async () => {
  const socketPath = await startLeader([String(process.pid)]);
  conn = await connectLeader(socketPath, { keepaliveIntervalMs: 0 });
  const proof = await proveLeader(conn, {
    socketPath,
    tui: tui(),
    grokExecutable: realpathSync(process.execPath),
  });
  const names = proof.checks.filter((c) => !c.ok).map((c) => c.check);
  for (const n of WRONG_PID_FAILS) {
    assert.ok(names.includes(n), `${n} in ${names.join(",")}`);
  }
});

test("a rewritten lock file fails leader.lock_pid only", async () => {
  const socketPath = await startLeader();
  writeFileSync(join(dir, "leader.lock"), "1");
  conn = await connectLeader(socketPath, { keepaliveIntervalMs: 0 });
  const proof = await proveLeader(conn, {
    socketPath,
    tui: tui(),
    grokExecutable: realpathSync(process.execPath),
  });
  assert.equal(
    proof.checks.filter((c) => !c.ok).map((c) => c.check),
    ["leader.lock_pid"],
  );
});

test("a leader without control fails leader.info and claims nothing else", async () => {
  const { FakeLeader } = await import("../helpers/fake-leader.js");
  const fake = await FakeLeader.start({
    registerReply: (id) => ({ type: "registered", client_id: id }),
  });
  dir = mkdtempSync(join(tmpdir(), "grok-seat-leader-proof-"));
  try {
    conn = await connectLeader(fake.socketPath, { keepaliveIntervalMs: 0 });
    const proof = await proveLeader(conn, {
      socketPath: fake.socketPath,
      tui: null,
      grokExecutable: null,
    });
    assert.equal(
      proof.checks.map((c) => [c.check, c.ok, c.received]),
      [["leader.info", false, "CONTROL_UNSUPPORTED"]],
    );
    assert.is(proof.leaderInfo, null);
  } finally {
    await conn?.close();
    conn = null;
    await fake.stop();
  }
});

test.run();
