// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * `verify-proof pane` against the Herdr simulator: exit 0 for a proven pane, 1 for an unknown or
 * tampered pane, 2 for usage errors; `--json` carries the descriptor, pane, process facts, the
 * agent verdict and every check, and its `facts.record` re-verifies later with `--record`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { main } from "../../lib/cli/main.js";
import { type HerdrSimHandle, startHerdrSim } from "../helpers/herdr-sim.js";
import { kill, launchAndBind, newClient, psTty, reportAs, waitGone } from "../herdr/sim-support.js";

let sim: HerdrSimHandle;
let dir: string;
const pids: number[] = [];
test.before(async () => {
  sim = await startHerdrSim({ switches: { detectMs: 100 } });
  dir = mkdtempSync(join(tmpdir(), "gs-cli-pane-"));
});
test.after(async () => {
  for (const pid of pids) kill(pid);
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

function sink() {
  let buf = "";
  return {
    isTTY: false,
    write(s: string) {
      buf += s;
      return true;
    },
    text: () => buf,
  };
}

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await main(argv, { stdout, stderr, env: {} });
  return { code, out: stdout.text(), err: stderr.text() };
}

const JsonReport = v.object({
  ok: v.boolean(),
  subject: v.literal("pane"),
  facts: v.looseObject({
    herdr: v.unknown(),
    pane: v.unknown(),
    process: v.unknown(),
    agent: v.unknown(),
    record: v.unknown(),
  }),
  checks: v.array(
    v.object({
      check: v.string(),
      ok: v.boolean(),
      expected: v.unknown(),
      received: v.unknown(),
      reason: v.nullable(v.string()),
    }),
  ),
  error: v.optional(v.object({ code: v.string(), message: v.string() })),
});

test("a proven pane: exit 0, --json with herdr, pane, process, agent and every check", async () => {
  const { record } = await launchAndBind(newClient(sim.socketPath), sim.sessionName);
  pids.push(record.process.pid);
  const r = await run([
    "pane",
    record.pane.paneId,
    "--herdr-socket",
    sim.socketPath,
    "--expect-agent",
    "grok",
    "--json",
  ]);
  assert.is(r.code, 0, r.out);
  const doc = v.parse(JsonReport, JSON.parse(r.out));
  assert.is(doc.ok, true);
  assert.is(doc.error, undefined);
  const herdr = v.parse(
    v.looseObject({ server: v.looseObject({ pid: v.number() }), version: v.string() }),
    doc.facts.herdr,
  );
  assert.is(herdr.server.pid, sim.pid);
  const proc = v.parse(
    v.looseObject({ shell_pid: v.number(), kernel: v.looseObject({ tty: v.string() }) }),
    doc.facts.process,
  );
  assert.is(proc.shell_pid, record.process.pid);
  assert.is(proc.kernel.tty, psTty(record.process.pid));
  assert.is(
    v.parse(v.looseObject({ ok: v.boolean(), agent: v.string() }), doc.facts.agent).agent,
    "grok",
  );
  // The contract also names herdr, process and agent at the top level of the document.
  const top = v.parse(
    v.looseObject({ herdr: v.unknown(), process: v.unknown(), agent: v.unknown() }),
    JSON.parse(r.out),
  );
  assert.equal(top.herdr, doc.facts.herdr);
  assert.equal(top.process, doc.facts.process);
  assert.equal(top.agent, doc.facts.agent);
  const names = doc.checks.map((c) => c.check);
  for (const name of [
    "pane.process_settled",
    "herdr.server_identity",
    "pane.terminal",
    "pane.agent",
  ]) {
    assert.ok(names.includes(name), name);
  }
  assert.ok(doc.checks.every((c) => c.ok));
});

test("the human report says PROVEN and lists the checks", async () => {
  const { record } = await launchAndBind(newClient(sim.socketPath), sim.sessionName);
  pids.push(record.process.pid);
  const r = await run(["pane", record.pane.paneId, "--herdr-socket", sim.socketPath]);
  assert.is(r.code, 0);
  assert.match(r.out, /\npane: PROVEN \(\d+ checks passed\)\n$/, r.out);
  assert.ok(r.out.includes("pane.process_identity"));
});

test("an unknown pane: exit 1 with pane.present failing on pane_not_found", async () => {
  const r = await run(["pane", "w9:p9", "--herdr-socket", sim.socketPath, "--json"]);
  assert.is(r.code, 1);
  const doc = v.parse(JsonReport, JSON.parse(r.out));
  assert.is(doc.ok, false);
  assert.is(doc.error?.code, "PANE_NOT_BOUND");
  const present = doc.checks.find((c) => c.check === "pane.present");
  assert.equal(present?.received, { unavailable: "pane_not_found" });
});

test("--record re-verifies a saved proof: exit 1 once the process is gone", async () => {
  const { record } = await launchAndBind(newClient(sim.socketPath), sim.sessionName);
  pids.push(record.process.pid);
  const first = await run(["pane", record.pane.paneId, "--herdr-socket", sim.socketPath, "--json"]);
  assert.is(first.code, 0);
  const file = join(dir, "proof.json");
  writeFileSync(file, first.out);
  const again = await run([
    "pane",
    record.pane.paneId,
    "--herdr-socket",
    sim.socketPath,
    "--record",
    file,
  ]);
  assert.is(again.code, 0, again.out);
  kill(record.process.pid);
  await waitGone(record.process.pid);
  const after = await run([
    "pane",
    record.pane.paneId,
    "--herdr-socket",
    sim.socketPath,
    "--record",
    file,
    "--json",
  ]);
  assert.is(after.code, 1);
  const doc = v.parse(JsonReport, JSON.parse(after.out));
  const failed = doc.checks.filter((c) => !c.ok).map((c) => c.check);
  // The kernel says so at once; Herdr's view (pane removed) may trail by a probe interval.
  assert.ok(failed.includes("pane.process_identity"), failed.join());
});

test("--expect-session against another reported session: exit 1 on pane.native_session", async () => {
  const { record } = await launchAndBind(newClient(sim.socketPath), sim.sessionName);
  pids.push(record.process.pid);
  await reportAs(sim.socketPath, "pane.report_agent_session", {
    pane_id: record.pane.paneId,
    source: "herdr:grok",
    agent: "grok",
    agent_session_id: "0198c2d4-0000-7000-8000-0000000000aa",
  });
  const r = await run([
    "pane",
    record.pane.paneId,
    "--herdr-socket",
    sim.socketPath,
    "--expect-session",
    "0198c2d4-0000-7000-8000-0000000000bb",
    "--json",
  ]);
  assert.is(r.code, 1);
  const doc = v.parse(JsonReport, JSON.parse(r.out));
  assert.ok(doc.checks.some((c) => c.check === "pane.native_session" && !c.ok));
});

test("usage errors exit 2: missing pane id, unreadable record", async () => {
  assert.is((await run(["pane"])).code, 2);
  const bad = join(dir, "bad.json");
  writeFileSync(bad, "{}");
  const r = await run([
    "pane",
    "w1:p2",
    "--herdr-socket",
    sim.socketPath,
    "--record",
    bad,
    "--json",
  ]);
  assert.is(r.code, 2);
  assert.is(JSON.parse(r.out).error.code, "RECORD_INVALID");
});

test("the verify-proof bin finds the socket like Herdr (XDG_CONFIG_HOME + HERDR_SESSION)", async () => {
  const { record } = await launchAndBind(newClient(sim.socketPath), sim.sessionName);
  pids.push(record.process.pid);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: sim.configHome,
    HERDR_SESSION: sim.sessionName,
  };
  delete env.HERDR_SOCKET_PATH;
  const r = spawnSync(
    process.execPath,
    ["--import", "tsx", "lib/cli/verify-proof.ts", "pane", record.pane.paneId, "--json"],
    { env, encoding: "utf8", timeout: 30_000 },
  );
  assert.is(r.status, 0, r.stdout + r.stderr);
  const doc = v.parse(JsonReport, JSON.parse(r.stdout));
  const herdr = v.parse(
    v.looseObject({ socketPath: v.string(), sessionName: v.string() }),
    doc.facts.herdr,
  );
  assert.equal([herdr.socketPath, herdr.sessionName], [sim.socketPath, sim.sessionName]);
});

test.run();
