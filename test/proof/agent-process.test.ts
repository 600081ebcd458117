/**
 * Herdr's process identification as the `pane.agent_process` check applies it (src/detect/mod.rs:
 * lookup_agent, normalized_process_name, identify_agent_in_job), case by case from its own unit
 * tests' shapes: names and aliases, runtimes looked through to their script, known package paths,
 * the foreground leader first, the kernel's executable last; a member off the pane's terminal and
 * the HERDR_AGENT hint are never evidence.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  type AgentProcessFacts,
  agentOfName,
  agentOfProcess,
  agentProcessCheck,
  detectAgentProcess,
  evidenceBasis,
  type JobMember,
} from "../../lib/proof/agent-process.js";

const proc = (pid: number, name: string, argv?: string[]): JobMember => ({
  pid,
  name,
  argv: argv ?? [name],
  cmdline: (argv ?? [name]).join(" "),
});

test("names and aliases map to Herdr's labels; lookup is case-blind and drops one suffix", () => {
  const table: [string, string | null][] = [
    ["grok", "grok"],
    ["grok-build", "grok"],
    ["GROK", "grok"],
    ["opencode2", "opencode"],
    ["claude-code", "claude"],
    ["antigravity", "agy"],
    ["cursor-agent.exe", "cursor"],
    ["pi.js", "pi"],
    ["qwen-code", "qwen"],
    ["grok.exe.js", null],
    ["grokk", null],
    ["sleep", null],
    ["bash", null],
  ];
  for (const [name, label] of table) assert.is(agentOfName(name), label, name);
});

test("one process: its name, a runtime's script, argv[0], a known package path", () => {
  const cases: [JobMember, string | null, string | null][] = [
    [proc(1, "grok"), "grok", "name"],
    [
      proc(1, "node", ["node", "/opt/x/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"]),
      "pi",
      "package_path",
    ],
    [proc(1, "node", ["node", "--import", "tsx", "/usr/local/bin/opencode"]), "opencode", "script"],
    [proc(1, "node", ["node", "-e", "require('/usr/bin/grok')"]), null, null],
    [proc(1, "bun", ["bun", "--", "/home/u/.bun/bin/kilo"]), "kilo", "script"],
    [proc(1, "python3.12", ["python3.12", "/usr/local/bin/hermes"]), "hermes", "script"],
    [proc(1, "python3", ["python3", "-m", "grok"]), null, null],
    [proc(1, "sh", ["/bin/sh", "/tmp/t/grok"]), "grok", "script"],
    [proc(1, "sh", ["/bin/sh", "-c", "grok"]), null, null],
    [proc(1, "MainThread", ["/usr/local/bin/codex", "--yolo"]), "codex", "argv"],
    [
      proc(1, "node", ["node", "/srv/node_modules/mastracode/dist/cli.js"]),
      "mastracode",
      "package_path",
    ],
    [proc(1, "sleep", ["sleep", "600"]), null, null],
  ];
  for (const [p, agent, via] of cases) {
    const found = agentOfProcess(p);
    assert.equal([found?.agent ?? null, found?.via ?? null], [agent, via], p.argv?.join(" "));
  }
});

const facts = (
  members: JobMember[],
  pgid: number | null,
  opts: { exe?: string | null; off?: number[] } = {},
): AgentProcessFacts => ({
  boundPid: 100,
  boundExecutable: opts.exe ?? null,
  job: { processGroupId: pgid, members },
  onPaneTerminal: new Set(members.map((m) => m.pid).filter((p) => !(opts.off ?? []).includes(p))),
});

test("the job: the leader first, then the best priority; members off the terminal never count", () => {
  // A shell leads the job, an agent runs in it: the agent is found among the members.
  let seen = detectAgentProcess(facts([proc(100, "bash"), proc(101, "grok")], 100));
  assert.equal([seen.agent, seen.pid], ["grok", 101]);
  // The leader wins over another member.
  seen = detectAgentProcess(facts([proc(100, "codex"), proc(101, "grok")], 100));
  assert.equal([seen.agent, seen.pid], ["codex", 100]);
  // A runtime-wrapped agent (priority 3) beats a plain name (2) among non-leaders.
  seen = detectAgentProcess(
    facts(
      [
        proc(100, "bash"),
        proc(101, "codex"),
        proc(102, "node", ["node", "/x/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"]),
      ],
      100,
    ),
  );
  assert.equal([seen.agent, seen.pid], ["pi", 102]);
  // A member the kernel does not place on the pane's terminal is not the pane's process.
  seen = detectAgentProcess(facts([proc(100, "bash"), proc(101, "grok")], 100, { off: [101] }));
  assert.equal(seen, { agent: null, pid: null, via: null, matched: null });
});

test("the kernel's canonical executable stands in for Herdr's canonicalize of argv[0]", () => {
  // `g` is a symlink to grok: the name and argv say nothing, the canonical path does.
  const seen = detectAgentProcess(
    facts([proc(100, "g", ["./g"])], 100, { exe: "/home/u/.grok/bin/grok" }),
  );
  assert.equal(seen, {
    agent: "grok",
    pid: 100,
    via: "executable",
    matched: "/home/u/.grok/bin/grok",
  });
  // No job at all (Herdr gave none): the executable alone.
  const alone = detectAgentProcess({
    boundPid: 7,
    boundExecutable: "/usr/bin/sleep",
    job: null,
    onPaneTerminal: new Set([7]),
  });
  assert.is(alone.agent, null);
});

test("pane.agent_process passes only on the expected label, and says what the pane runs otherwise", () => {
  const grok = detectAgentProcess(facts([proc(100, "grok")], 100));
  assert.ok(agentProcessCheck("grok", grok).ok);
  const other = agentProcessCheck("pi", grok);
  assert.is(other.ok, false);
  assert.match(other.reason ?? "", /is grok \(grok\), not pi/);
  const none = agentProcessCheck("grok", detectAgentProcess(facts([proc(100, "sleep")], 100)));
  assert.is(none.ok, false);
  assert.match(none.reason ?? "", /no process of the pane is an agent/);
  assert.equal(
    [
      evidenceBasis(true, true),
      evidenceBasis(true, false),
      evidenceBasis(false, true),
      evidenceBasis(false, false),
    ],
    ["both", "herdr_report", "process", "none"],
  );
});

test.run();
