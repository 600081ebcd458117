import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { parseReply } from "../../lib/herdr/client.js";
import { PaneInfoResultSchema } from "../../lib/herdr/wire-envelope.js";
import {
  type AgentBinding,
  harnessBinding,
  observedNativeSession,
  reconcileAgent,
} from "../../lib/proof/agent-reconcile.js";

const fixtures = join(import.meta.dirname, "..", "fixtures", "herdr");
const Golden = v.object({
  provenance: v.string(),
  cases: v.array(
    v.object({
      name: v.string(),
      title: v.string(),
      provenance: v.string(),
      /** The Herdr version whose line this is (the OpenCode and Pi cases); grok's say it in the name. */
      herdr: v.optional(v.picklist(["0.8.0", "0.9.3"])),
      line: v.string(),
      /** The harness a case is judged for; grok's (G1-G7c, 0.9.3) when absent. */
      binding: v.optional(
        v.object({
          expectedAgent: v.string(),
          expectedSessionKind: v.picklist(["id", "path"]),
          nativeSession: v.string(),
        }),
      ),
      expected: v.looseObject({ ok: v.boolean() }),
    }),
  ),
});
const golden = v.parse(
  Golden,
  JSON.parse(readFileSync(join(fixtures, "agent-golden.json"), "utf8")),
);
const SESSION = "0198c2d4-7f3a-7b21-9e55-3c1d2a4b5e6f";
const binding: AgentBinding = {
  pid: 48211,
  terminalId: "term_64a1f3c2b9e0d5",
  tty: "/dev/pts/7",
  nativeSessionId: SESSION,
  expectedAgent: "grok",
  expectedSessionKind: "id",
};

function paneOf(lineText: string) {
  const id = String(JSON.parse(lineText).id);
  return parseReply(lineText, id, "pane.get", PaneInfoResultSchema).pane;
}

const HARNESS = ["OC1", "OC2", "OC3", "OC4", "PI1", "PI2", "PI3", "PI4", "PI5"];

test("the fixture covers G1-G7c, the 0.9.3 omission, OpenCode and Pi under 0.8.0 and 0.9.3, each with provenance", () => {
  assert.equal(
    golden.cases.map((c) => c.name),
    [
      ...["G1", "G2", "G3", "G4", "G5", "G6", "G7a", "G7b", "G7c", "0.9.3-omission"],
      ...HARNESS,
      ...HARNESS.map((n) => `${n}-0.9.3`),
    ],
  );
  for (const c of golden.cases.filter((x) => x.binding !== undefined)) {
    assert.is(c.herdr, c.name.endsWith("-0.9.3") ? "0.9.3" : "0.8.0", c.name);
    // Each line is what that version's headless server reports: 80x24 on 0.8.0, 120x40 on 0.9.3.
    assert.is(paneOf(c.line).scroll?.viewport_rows, c.herdr === "0.9.3" ? 40 : 24, c.name);
  }
  for (const c of golden.cases) assert.ok(c.provenance.length > 20, c.name);
});

for (const c of golden.cases) {
  test(`golden ${c.name}: ${c.title}`, () => {
    // Every golden line, even the synthetic G6/G7 ones, parses as a pane: the refusal comes from
    // the reconciler by name, not from a generic parse error.
    const pane = paneOf(c.line);
    const b: AgentBinding =
      c.binding === undefined
        ? binding
        : {
            ...binding,
            expectedAgent: c.binding.expectedAgent,
            expectedSessionKind: c.binding.expectedSessionKind,
            nativeSessionId: c.binding.nativeSession,
          };
    const verdict = reconcileAgent(b, { pane, shellPid: 48211, tty: "/dev/pts/7" });
    for (const [key, want] of Object.entries(c.expected)) {
      assert.equal((verdict as Record<string, unknown>)[key], want, `${c.name}.${key}`);
    }
    if (verdict.ok) {
      assert.is(verdict.agent, b.expectedAgent);
      if (verdict.nativeSessionId !== null)
        assert.is(verdict.nativeSessionKind, b.expectedSessionKind);
    }
  });
}

test("Herdr 0.9.3 hides the contradiction of OC3 and PI3 from the record: the nested agent alone is accepted", () => {
  // After any pane.report_agent 0.9.3 omits the top-level agent, so the contradicting label that
  // 0.8.0 shows is gone; the verdict must then say it rests on the nested agent only, which is why
  // verify-proof pane also checks the pane's process when an agent is expected.
  for (const name of ["OC3", "PI3"]) {
    const on08 = golden.cases.find((c) => c.name === name);
    const on093 = golden.cases.find((c) => c.name === `${name}-0.9.3`);
    if (on08?.binding === undefined || on093?.binding === undefined) throw new Error(name);
    const pane08 = paneOf(on08.line);
    const pane093 = paneOf(on093.line);
    assert.ok(typeof pane08.agent === "string" && pane08.agent !== on08.binding.expectedAgent);
    assert.not.ok(Object.hasOwn(pane093, "agent"), `${name}-0.9.3 has no top-level agent`);
    assert.equal(pane093.agent_session, pane08.agent_session, name);
    const b: AgentBinding = {
      ...binding,
      expectedAgent: on093.binding.expectedAgent,
      expectedSessionKind: on093.binding.expectedSessionKind,
      nativeSessionId: on093.binding.nativeSession,
    };
    const verdict = reconcileAgent(b, { pane: pane093, shellPid: 48211, tty: "/dev/pts/7" });
    assert.equal(verdict.ok ? verdict.agentFrom : verdict.reason, "nested", name);
  }
});

test("the Pi goldens hold only for a path-kind binding; grok's id binding refuses PI2", () => {
  const pi2 = golden.cases.find((c) => c.name === "PI2");
  if (pi2?.binding === undefined) throw new Error("no PI2 binding");
  const pane = paneOf(pi2.line);
  const asId = reconcileAgent(
    { ...binding, expectedAgent: "pi", nativeSessionId: pi2.binding.nativeSession },
    { pane, shellPid: 48211, tty: "/dev/pts/7" },
  );
  assert.equal(asId.ok ? null : asId.reason, "agent_session_not_id");
  const opencodeAsPath = golden.cases.find((c) => c.name === "OC2");
  if (opencodeAsPath?.binding === undefined) throw new Error("no OC2 binding");
  const oc = reconcileAgent(
    {
      ...binding,
      expectedAgent: "opencode",
      expectedSessionKind: "path",
      nativeSessionId: opencodeAsPath.binding.nativeSession,
    },
    { pane: paneOf(opencodeAsPath.line), shellPid: 48211, tty: "/dev/pts/7" },
  );
  assert.equal(oc.ok ? null : oc.reason, "agent_session_not_path");
});

test("harnessBinding is Herdr's rule: pi and omp report a path, every other agent an id", () => {
  assert.equal(
    ["grok", "pi", "omp", "opencode", "claude"].map((a) => harnessBinding(a).expectedSessionKind),
    ["id", "path", "path", "id", "id"],
  );
});

test("G7c's `id` is never read as a session id", () => {
  const g7c = golden.cases.find((c) => c.name === "G7c");
  if (g7c === undefined) throw new Error("no G7c");
  const pane = paneOf(g7c.line);
  assert.equal(observedNativeSession(pane), {
    kind: "unreadable",
    reason: "agent_session_missing_value",
  });
  const unbound = reconcileAgent(
    { ...binding, nativeSessionId: null },
    { pane, shellPid: 48211, tty: "/dev/pts/7" },
  );
  assert.is(unbound.ok, false);
});

const base = (): Record<string, unknown> => ({
  pane_id: "w1:p2",
  terminal_id: "term_64a1f3c2b9e0d5",
  agent: "grok",
  agent_session: { source: "herdr:grok", agent: "grok", kind: "id", value: SESSION },
});
const ok = { shellPid: 48211, tty: "/dev/pts/7" };
const table: [
  string,
  Record<string, unknown>,
  { shellPid: number | null; tty: string | null },
  string,
][] = [
  [
    "pid changed (process restarted in the pane)",
    base(),
    { ...ok, shellPid: 50001 },
    "pid_changed",
  ],
  ["no shell_pid", base(), { ...ok, shellPid: null }, "pid_changed"],
  ["terminal_id changed", { ...base(), terminal_id: "term_other" }, ok, "terminal_changed"],
  ["tty changed", base(), { ...ok, tty: "/dev/pts/9" }, "terminal_changed"],
  [
    "native session changed",
    {
      ...base(),
      agent_session: { source: "herdr:grok", agent: "grok", kind: "id", value: "other" },
    },
    ok,
    "native_session_changed",
  ],
  ["agent_session null", { ...base(), agent_session: null }, ok, "agent_session_null"],
  ["agent_session a string", { ...base(), agent_session: "x" }, ok, "agent_session_malformed"],
  [
    "agent_session field null",
    { ...base(), agent_session: { source: null, agent: "grok", kind: "id", value: SESSION } },
    ok,
    "agent_session_field_null",
  ],
  [
    "agent_session missing agent",
    { ...base(), agent_session: { source: "herdr:grok", kind: "id", value: SESSION } },
    ok,
    "agent_session_missing_agent",
  ],
  [
    "agent_session kind path",
    {
      ...base(),
      agent_session: { source: "herdr:grok", agent: "grok", kind: "path", value: "/x" },
    },
    ok,
    "agent_session_not_id",
  ],
  [
    "agent_session relative path (Herdr stores only absolute ones)",
    {
      ...base(),
      agent_session: { source: "herdr:grok", agent: "grok", kind: "path", value: "x.jsonl" },
    },
    ok,
    "agent_session_path_relative",
  ],
  [
    "agent_session unknown kind",
    {
      ...base(),
      agent_session: { source: "herdr:grok", agent: "grok", kind: "uuid", value: SESSION },
    },
    ok,
    "agent_session_malformed",
  ],
  ["agent empty string", { ...base(), agent: "" }, ok, "agent_malformed"],
  ["agent a number", { ...base(), agent: 7 }, ok, "agent_malformed"],
  [
    "another agent",
    {
      ...base(),
      agent: "claude",
      agent_session: { source: "herdr:claude", agent: "claude", kind: "id", value: SESSION },
    },
    ok,
    "agent_unexpected",
  ],
];

for (const [name, pane, obs, reason] of table) {
  test(`refuses: ${name} → ${reason}`, () => {
    const paneIn = pane as { terminal_id: string };
    const verdict = reconcileAgent(binding, { pane: paneIn, ...obs });
    assert.is(verdict.ok, false);
    if (!verdict.ok) {
      assert.is(verdict.reason, reason);
      assert.is(verdict.retryable, false);
    }
  });
}

test("accepts any agent label when none is expected; no bound session accepts the observed one", () => {
  const verdict = reconcileAgent(
    { ...binding, expectedAgent: null, nativeSessionId: null },
    { pane: { ...base(), terminal_id: "term_64a1f3c2b9e0d5" }, ...ok },
  );
  assert.equal(verdict, {
    ok: true,
    agent: "grok",
    agentFrom: "both",
    nativeSessionId: SESSION,
    nativeSessionKind: "id",
    sessionSource: "herdr:grok",
  });
});

test("absent is the only retryable refusal", () => {
  const verdict = reconcileAgent(binding, { pane: { terminal_id: "term_64a1f3c2b9e0d5" }, ...ok });
  assert.equal(verdict.ok ? null : [verdict.reason, verdict.retryable], ["agent_absent", true]);
});

test.run();
