// The golden wire lines of docs/design/herdr-socket-api.md, byte for byte, produced by the simulator's own
// state machine and encoder from a fixed state (the live tests check the same shapes with real
// processes, whose pids, cwds and terminal ids cannot be fixed).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { harnessCases } from "../../../fixtures/herdr/harness-cases.js";
import { TerminalAgentState } from "../agent-state.js";
import { envelope } from "../event-hub.js";
import { paneInfo, type StateView } from "../info.js";
import { singlePaneTab, type Tab, type Terminal, type Workspace } from "../model.js";
import { DEFAULT_SWITCHES, mergeSwitches, type PartialSwitches } from "../switches.js";
import { errorLine, successLine, toJson } from "../wire.js";

const SESSION = "0198c2d4-7f3a-7b21-9e55-3c1d2a4b5e6f";
const G = {
  absent: `{"id":"req_absent","result":{"type":"pane_info","pane":{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"unknown","scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}}}`,
  topOnly: `{"id":"req_top_only","result":{"type":"pane_info","pane":{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","agent":"grok","terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"working","scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}}}`,
  nestedOnly: `{"id":"req_nested_only","result":{"type":"pane_info","pane":{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"unknown","agent_session":{"source":"herdr:grok","agent":"grok","kind":"id","value":"${SESSION}"},"scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}}}`,
  agree: `{"id":"req_both_agree","result":{"type":"pane_info","pane":{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","agent":"grok","terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"idle","agent_session":{"source":"herdr:grok","agent":"grok","kind":"id","value":"${SESSION}"},"scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}}}`,
  disagree: `{"id":"req_both_disagree","result":{"type":"pane_info","pane":{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","agent":"grok-leader","terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"working","agent_session":{"source":"herdr:grok","agent":"grok","kind":"id","value":"${SESSION}"},"scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}}}`,
  agentNull: `{"id":"req_agent_null","result":{"type":"pane_info","pane":{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","agent":null,"terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"idle","agent_session":{"source":"herdr:grok","agent":"grok","kind":"id","value":"${SESSION}"},"scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}}}`,
  missingSource: `{"id":"req_missing_source","result":{"type":"pane_info","pane":{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","agent":"grok","terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"idle","agent_session":{"agent":"grok","kind":"id","value":"${SESSION}"},"scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}}}`,
  missingValue: `{"id":"req_missing_value","result":{"type":"pane_info","pane":{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","agent":"grok","terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"idle","agent_session":{"source":"herdr:grok","agent":"grok","kind":"id"},"scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}}}`,
  idNotValue: `{"id":"req_id_key","result":{"type":"pane_info","pane":{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","agent":"grok","terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"idle","agent_session":{"source":"herdr:grok","agent":"grok","kind":"id","id":"${SESSION}"},"scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}}}`,
  list: `{"id":"req_list","result":{"type":"pane_list","panes":[{"pane_id":"w1:p1","terminal_id":"term_64a1f3c2a77101","workspace_id":"w1","tab_id":"w1:t1","focused":false,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","agent_status":"unknown","scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":0},{"pane_id":"w1:p2","terminal_id":"term_64a1f3c2b9e0d5","workspace_id":"w1","tab_id":"w1:t2","focused":true,"cwd":"/home/dev/repo","foreground_cwd":"/home/dev/repo","label":"grok leader","agent":"grok","terminal_title":"grok","terminal_title_stripped":"grok","agent_status":"idle","agent_session":{"source":"herdr:grok","agent":"grok","kind":"id","value":"${SESSION}"},"scroll":{"offset_from_bottom":0,"max_offset_from_bottom":0,"viewport_rows":48},"revision":7}]}}`,
};

function terminal(
  id: string,
  pid: number,
  tmuxPane: string,
  extra: Partial<Terminal> = {},
): Terminal {
  return {
    id,
    launchArgv: null,
    launchCwd: "/home/dev/repo",
    manualLabel: undefined,
    agentName: undefined,
    agent: new TerminalAgentState(),
    terminalTitle: undefined,
    revision: 0,
    shellPid: pid,
    shellStartTime: "1",
    tmuxPaneId: tmuxPane,
    tmuxWindowId: "@1",
    tty: "/dev/pts/9",
    gone: false,
    ...extra,
  };
}

/** w1 with a shell in t1 (p1) and the grok pane in t2 (p2), t2 active and focused. */
function fixture(switches: PartialSwitches = {}) {
  const shell = terminal("term_64a1f3c2a77101", 101, "%1");
  const grok = terminal("term_64a1f3c2b9e0d5", 102, "%2", {
    launchArgv: ["grok", "--leader"],
    manualLabel: "grok leader",
    terminalTitle: "grok",
    revision: 7,
  });
  const t1 = singlePaneTab(1, 1, "@1");
  const t2: Tab = { ...singlePaneTab(2, 2, "@2"), customName: "leader" };
  const ws: Workspace = {
    id: "w1",
    customName: undefined,
    tabs: [t1, t2],
    activeTab: 1,
    nextTabNumber: 3,
    nextPaneNumber: 3,
    panes: new Map([
      [1, { number: 1, terminal: shell, seen: true }],
      [2, { number: 2, terminal: grok, seen: true }],
    ]),
    initialCwd: "/home/dev/repo",
  };
  const facts = { historySize: 0, height: 48, scrollPosition: 0, title: "" };
  const view: StateView = {
    procs: { cwd: () => "/home/dev/repo", foregroundCwd: () => "/home/dev/repo" },
    workspaces: [ws],
    active: 0,
    switches: mergeSwitches(DEFAULT_SWITCHES, switches),
    liveFacts: new Map([
      ["%1", { paneId: "%1", pid: 101, ...facts }],
      ["%2", { paneId: "%2", pid: 102, ...facts }],
    ]),
    home: "/root",
  };
  const grokPane = ws.panes.get(2);
  const shellPane = ws.panes.get(1);
  if (!grokPane || !shellPane) throw new Error("fixture");
  return {
    grok: grok.agent,
    line: (id: string) =>
      successLine(id, { type: "pane_info", pane: paneInfo(view, 0, ws, t2, grokPane) }),
    list: (id: string) =>
      successLine(id, {
        type: "pane_list",
        panes: [paneInfo(view, 0, ws, t1, shellPane), paneInfo(view, 0, ws, t2, grokPane)],
      }),
  };
}

const grokSession = (a: TerminalAgentState) =>
  a.reportSession("herdr:grok", "grok", { kind: "id", value: SESSION }, undefined, undefined);

/** The G4 state: the official session reported, then detection sees grok idle. */
function agreeing(switches: PartialSwitches = {}) {
  const f = fixture(switches);
  grokSession(f.grok);
  f.grok.observeDetection("grok", "idle");
  return f;
}

test("G1: no agent identity at all", () => {
  assert.is(fixture().line("req_absent"), G.absent);
});

test("G2: process detection only (no session report)", () => {
  const f = fixture();
  f.grok.observeDetection("grok", "working");
  assert.is(f.line("req_top_only"), G.topOnly);
});

test("G3: a herdr:grok session report before detection gives only the nested agent", () => {
  const f = fixture();
  // pane.report_agent from the reserved source: its `working` state is discarded.
  f.grok.reportAgent("herdr:grok", "grok", "working", { kind: "id", value: SESSION }, undefined);
  assert.is(f.line("req_nested_only"), G.nestedOnly);
});

test("G4: detection plus the official session agree", () => {
  assert.is(agreeing().line("req_both_agree"), G.agree);
});

test("G5: a custom authority label, then the official session: they contradict", () => {
  const f = fixture();
  f.grok.reportAgent("custom:x", "grok-leader", "working", null, undefined);
  grokSession(f.grok);
  assert.is(f.line("req_both_disagree"), G.disagree);
  // and the fault switch produces the same line on a plain G4 state
  const g = fixture({ agentOverride: "grok-leader", detectedStatus: "working" });
  grokSession(g.grok);
  g.grok.observeDetection("grok", "working");
  assert.is(g.line("req_both_disagree"), G.disagree);
});

test("G6, G7a, G7b, G7c: fault switches break the G4 record", () => {
  const cases: Array<[PartialSwitches, string, string]> = [
    [{ agentNull: true }, "req_agent_null", G.agentNull],
    [{ sessionFault: "missing_source" }, "req_missing_source", G.missingSource],
    [{ sessionFault: "missing_value" }, "req_missing_value", G.missingValue],
    [{ sessionFault: "id_instead_of_value" }, "req_id_key", G.idNotValue],
  ];
  for (const [switches, id, golden] of cases) {
    assert.is(agreeing(switches).line(id), golden, id);
  }
  // faultPane limits the faults to one pane
  const other = agreeing({ agentNull: true, faultPane: "w1:p9" });
  assert.is(other.line("req_both_agree"), G.agree);
});

test("pane.list with a shell pane (G1 shape) and the grok pane (G4)", () => {
  assert.is(agreeing().list("req_list"), G.list);
});

test("ping, ok, subscription and error lines", () => {
  assert.is(
    successLine("req_ping", {
      type: "pong",
      version: "0.8.0",
      protocol: 19,
      capabilities: DEFAULT_SWITCHES.capabilities,
    }),
    `{"id":"req_ping","result":{"type":"pong","version":"0.8.0","protocol":19,"capabilities":{"live_handoff":true,"detached_server_daemon":true}}}`,
  );
  assert.is(successLine("req_ok", { type: "ok" }), `{"id":"req_ok","result":{"type":"ok"}}`);
  assert.is(
    successLine("sub1", { type: "subscription_started" }),
    `{"id":"sub1","result":{"type":"subscription_started"}}`,
  );
  assert.is(
    errorLine("req_x", "pane_not_found", "pane w1:p9 not found"),
    `{"id":"req_x","error":{"code":"pane_not_found","message":"pane w1:p9 not found"}}`,
  );
  // Pong.capabilities has no skip_serializing_if: None is written as null.
  assert.is(
    successLine("p", { type: "pong", version: "0.8.0", protocol: 19, capabilities: null }),
    `{"id":"p","result":{"type":"pong","version":"0.8.0","protocol":19,"capabilities":null}}`,
  );
});

test("lifecycle event lines: struct order as in the note, sorted as Herdr writes them", () => {
  const exited = envelope({ kind: "pane_exited", data: { pane_id: "w1:p2", workspace_id: "w1" } });
  assert.is(
    toJson(exited),
    `{"event":"pane_exited","data":{"type":"pane_exited","pane_id":"w1:p2","workspace_id":"w1"}}`,
  );
  assert.is(
    toJson(exited, true),
    `{"data":{"pane_id":"w1:p2","type":"pane_exited","workspace_id":"w1"},"event":"pane_exited"}`,
  );
  const released = envelope({
    kind: "pane_agent_detected",
    data: {
      pane_id: "w1:p2",
      workspace_id: "w1",
      agent: "grok",
      released: true,
      final_status: "idle",
    },
  });
  assert.is(
    toJson(released),
    `{"event":"pane_agent_detected","data":{"type":"pane_agent_detected","pane_id":"w1:p2","workspace_id":"w1","agent":"grok","released":true,"final_status":"idle"}}`,
  );
  assert.is(
    toJson(released, true),
    `{"data":{"agent":"grok","final_status":"idle","pane_id":"w1:p2","released":true,"type":"pane_agent_detected","workspace_id":"w1"},"event":"pane_agent_detected"}`,
  );
});

test("the OpenCode and Pi goldens are what the simulator's rules produce now (regenerated, never hand-edited)", () => {
  const file = JSON.parse(
    readFileSync(
      join(import.meta.dirname, "..", "..", "..", "fixtures", "herdr", "agent-golden.json"),
      "utf8",
    ),
  ) as {
    cases: Array<{
      name: string;
      herdr?: string;
      title: string;
      line: string;
      binding?: unknown;
      expected: unknown;
    }>;
  };
  const fresh = harnessCases();
  const stored = file.cases.filter((c) => c.binding !== undefined);
  assert.equal(
    stored.map((c) => c.name),
    fresh.map((c) => c.name),
  );
  for (const c of fresh) {
    const s = stored.find((x) => x.name === c.name);
    assert.is(s?.line, c.line, c.name);
    assert.is(s?.herdr, c.herdr, c.name);
    assert.is(s?.title, c.title, c.name);
    assert.equal(s?.binding, c.binding, c.name);
    assert.equal(s?.expected, c.expected, c.name);
  }
  // The cases cover absent, agreeing, contradictory and parked for both harnesses, and pi's path;
  // the 0.9.3 ones are the same drivings encoded under the 0.9.3 preset.
  for (const name of ["PI2", "PI2-0.9.3"]) {
    const pi2 = JSON.parse(fresh.find((c) => c.name === name)?.line ?? "{}");
    assert.is(pi2.result.pane.agent_session.kind, "path", name);
  }
  for (const prefix of ["OC", "PI"]) {
    const reasons = fresh
      .filter((c) => c.name.startsWith(prefix) && c.herdr === "0.8.0")
      .map((c) => JSON.stringify(c.expected));
    for (const want of [
      "agent_absent",
      "agent_contradiction",
      '"agentFrom":"both"',
      '"agentFrom":"top_level"',
    ])
      assert.ok(
        reasons.some((r) => r.includes(want)),
        `${prefix}: ${want}`,
      );
  }
});

test.run();
