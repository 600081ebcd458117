// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
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
import { launchPane } from "../../lib/herdr/launch.js";
import { type HerdrSimHandle, startHerdrSim } from "../helpers/herdr-sim.js";
import { kill, launchAndBind, newClient, psTty, reportAs, waitGone } from "../herdr/sim-support.js";
import { fakeAgentsDir, fakeGrokDir } from "../sim/herdr/tests/support.js";
import { CheckJson } from "./fixtures/check-json.js";

let sim: HerdrSimHandle;
let dir: string;
let grok: ReturnType<typeof fakeGrokDir>;
let agents: ReturnType<typeof fakeAgentsDir>;
const pids: number[] = [];
test.before(async () => {
  sim = await startHerdrSim({ switches: { detectMs: 100 } });
  dir = mkdtempSync(join(tmpdir(), "gs-cli-pane-"));
  grok = fakeGrokDir();
  agents = fakeAgentsDir([]);
});
test.after(async () => {
  for (const pid of pids) kill(pid);
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
  grok.cleanup();
  agents.cleanup();
});

/** Launch an argv pane without any agent hint in its environment, and wait for its process. */
async function launchPlain(argv: string[]): Promise<string> {
  const launched = await launchPane(newClient(sim.socketPath), {
    argv,
    label: "plain",
    target: { newWorkspace: { label: "plain" } },
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const info = await newClient(sim.socketPath).request("pane.process_info", {
      pane_id: launched.paneId,
    });
    const pid = info.process_info.shell_pid;
    const name = info.process_info.foreground_processes?.find((p) => p.pid === pid)?.name;
    if (pid !== undefined && pid !== null && name !== undefined && name !== "sh") {
      pids.push(pid);
      return launched.paneId;
    }
    if (Date.now() > deadline) throw new Error(`${argv.join(" ")} did not start`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const Evidence = v.looseObject({
  agent: v.nullable(v.string()),
  basis: v.picklist(["both", "herdr_report", "process", "none"]),
  process: v.looseObject({ agent: v.nullable(v.string()), via: v.nullable(v.string()) }),
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

/** `grok-seat pane <paneId> --herdr-socket <the simulator> ...extra`. */
function paneCli(paneId: string, ...extra: string[]) {
  return run(["pane", paneId, "--herdr-socket", sim.socketPath, ...extra]);
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
  checks: v.array(CheckJson),
  error: v.optional(v.object({ code: v.string(), message: v.string() })),
});

test("a proven pane: exit 0, --json with herdr, pane, process, agent and every check", async () => {
  const { record } = await launchAndBind(newClient(sim.socketPath), sim.sessionName, {
    argv: [join(grok.dir, "grok")],
  });
  pids.push(record.process.pid);
  const r = await paneCli(record.pane.paneId, "--expect-agent", "grok", "--json");
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
    "pane.agent_process",
  ]) {
    assert.ok(names.includes(name), name);
  }
  assert.ok(doc.checks.every((c) => c.ok));
  // The process is grok by its name, as Herdr detects it; Herdr names it too.
  const evidence = v.parse(Evidence, doc.facts.agentEvidence);
  assert.equal([evidence.agent, evidence.basis], ["grok", "both"]);
  assert.equal([evidence.process.agent, evidence.process.via], ["grok", "name"]);
});

test("--expect-agent grok on a pane where no grok runs, after a herdr:grok report: exit 1 on pane.agent_process", async () => {
  // Any same-uid process can send this report; Herdr then names grok only in agent_session.
  const paneId = await launchPlain(["sleep", "600"]);
  await reportAs(sim.socketPath, "pane.report_agent_session", {
    pane_id: paneId,
    source: "herdr:grok",
    agent: "grok",
    agent_session_id: "0198c2d4-0000-7000-8000-0000000000cc",
  });
  const r = await paneCli(paneId, "--expect-agent", "grok", "--json");
  assert.is(r.code, 1, r.out);
  const doc = v.parse(JsonReport, JSON.parse(r.out));
  const failed = doc.checks.filter((c) => !c.ok).map((c) => c.check);
  assert.equal(failed, ["pane.agent_process"]);
  const agent = v.parse(v.looseObject({ ok: v.boolean(), agentFrom: v.string() }), doc.facts.agent);
  assert.equal([agent.ok, agent.agentFrom], [true, "nested"], "Herdr's report alone says grok");
  const evidence = v.parse(Evidence, doc.facts.agentEvidence);
  assert.equal([evidence.basis, evidence.process.agent], ["herdr_report", null]);
  // Without an agent claim the same pane passes, and the evidence still says what it rests on.
  const plain = await paneCli(paneId, "--json");
  assert.is(plain.code, 0, plain.out);
  const plainDoc = v.parse(JsonReport, JSON.parse(plain.out));
  assert.is(
    plainDoc.checks.find((c) => c.check === "pane.agent_process"),
    undefined,
  );
  assert.is(v.parse(Evidence, plainDoc.facts.agentEvidence).basis, "herdr_report");
});

test("--expect-agent pi: a node-run Pi with its session path claimed and reported passes on both", async () => {
  const session = join(dir, "pi-session.jsonl");
  const paneId = await launchPlain([process.execPath, agents.piCli]);
  const claim = { pane_id: paneId, source: "herdr:pi", agent: "pi", agent_session_path: session };
  await reportAs(sim.socketPath, "pane.report_agent_session", {
    ...claim,
    session_start_source: "startup",
    seq: 1,
  });
  await reportAs(sim.socketPath, "pane.report_agent", { ...claim, state: "working", seq: 2 });
  let doc: v.InferOutput<typeof JsonReport> | undefined;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await paneCli(paneId, "--expect-agent", "pi", "--expect-session", session, "--json");
    doc = v.parse(JsonReport, JSON.parse(r.out));
    if (r.code === 0 || Date.now() > deadline) break;
    await new Promise((res) => setTimeout(res, 100)); // Herdr's detection anchors the claim
  }
  assert.ok(doc.ok, JSON.stringify(doc.checks.filter((c) => !c.ok)));
  const agent = v.parse(
    v.looseObject({
      agent: v.string(),
      nativeSessionId: v.string(),
      nativeSessionKind: v.string(),
    }),
    doc.facts.agent,
  );
  assert.equal(
    [agent.agent, agent.nativeSessionId, agent.nativeSessionKind],
    ["pi", session, "path"],
  );
  const evidence = v.parse(Evidence, doc.facts.agentEvidence);
  assert.equal(
    [evidence.basis, evidence.process.agent, evidence.process.via],
    ["both", "pi", "package_path"],
  );
  // grok is not what runs there: by Herdr's report and by the process.
  const asGrok = await paneCli(paneId, "--expect-agent", "grok", "--json");
  assert.is(asGrok.code, 1);
  const grokDoc = v.parse(JsonReport, JSON.parse(asGrok.out));
  const failed = grokDoc.checks.filter((c) => !c.ok).map((c) => c.check);
  assert.ok(failed.includes("pane.agent") || failed.includes("pane.agent_process"), failed.join());
});

test("the human report says PROVEN and lists the checks", async () => {
  const { record } = await launchAndBind(newClient(sim.socketPath), sim.sessionName);
  pids.push(record.process.pid);
  const r = await paneCli(record.pane.paneId);
  assert.is(r.code, 0);
  assert.match(r.out, /\npane: PROVEN \(\d+ checks passed\)\n$/, r.out);
  assert.ok(r.out.includes("pane.process_identity"));
});

test("an unknown pane: exit 1 with pane.present failing on pane_not_found", async () => {
  const r = await paneCli("w9:p9", "--json");
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
  const first = await paneCli(record.pane.paneId, "--json");
  assert.is(first.code, 0);
  const file = join(dir, "proof.json");
  writeFileSync(file, first.out);
  const again = await paneCli(record.pane.paneId, "--record", file);
  assert.is(again.code, 0, again.out);
  kill(record.process.pid);
  await waitGone(record.process.pid);
  const after = await paneCli(record.pane.paneId, "--record", file, "--json");
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
  const r = await paneCli(
    record.pane.paneId,
    "--expect-session",
    "0198c2d4-0000-7000-8000-0000000000bb",
    "--json",
  );
  assert.is(r.code, 1);
  const doc = v.parse(JsonReport, JSON.parse(r.out));
  assert.ok(doc.checks.some((c) => c.check === "pane.native_session" && !c.ok));
});

test("usage errors exit 2: missing pane id, unreadable record", async () => {
  assert.is((await run(["pane"])).code, 2);
  const bad = join(dir, "bad.json");
  writeFileSync(bad, "{}");
  const r = await paneCli("w1:p2", "--record", bad, "--json");
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
