/**
 * The pane proof as pure functions of recorded facts: binding refusals and every re-verification
 * check, each tampering refused by its check name. The end-to-end version against real panes is
 * test/herdr/pane-proof.test.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { type CheckResult, firstFailure } from "../../lib/check.js";
import type { PaneInfo, PaneProcessInfo } from "../../lib/herdr/wire-pane.js";
import type { ProcessFacts } from "../../lib/kernel/index.js";
import type { HerdrTie } from "../../lib/proof/herdr-trust.js";
import {
  bindPaneProof,
  checkPaneProof,
  type PaneObservation,
  type PaneProofRecord,
  PaneProofRecordSchema,
} from "../../lib/proof/pane.js";
import { checkPaneTerminal, type TerminalTie } from "../../lib/proof/pane-terminal.js";
import type { SessionDescriptor } from "../../lib/proof/session-descriptor.js";

const SESSION = "0198c2d4-7f3a-7b21-9e55-3c1d2a4b5e6f";
const descriptor: SessionDescriptor = {
  socketPath: "/home/dev/.config/herdr/herdr.sock",
  sessionName: "default",
  version: "0.8.0",
  protocol: 19,
  capabilities: { liveHandoff: true, detachedServerDaemon: true },
  socketFile: { device: "65024", inode: "2229794", uid: 1000, mode: 0o600 },
  server: {
    pid: 4000,
    uid: 1000,
    identity: { kind: "linux-pidfs", value: "boot:4001" },
    method: "SO_PEERPIDFD",
  },
};
const pane: PaneInfo = {
  pane_id: "w1:p2",
  terminal_id: "term_64a1f3c2b9e0d5",
  workspace_id: "w1",
  tab_id: "w1:t2",
  focused: true,
  label: "grok leader",
  agent: "grok",
  agent_status: "idle",
  agent_session: { source: "herdr:grok", agent: "grok", kind: "id", value: SESSION },
  revision: 7,
};
const info: PaneProcessInfo = {
  pane_id: "w1:p2",
  shell_pid: 48211,
  foreground_process_group_id: 48211,
};
const facts: ProcessFacts = {
  pid: 48211,
  ppid: 4000,
  uid: 1000,
  euid: 1000,
  executable: "/usr/local/bin/grok",
  executableDeleted: false,
  cwd: "/home/dev/repo",
  tty: "/dev/pts/7",
  startTimeUs: 1_795_981_962_134_586,
  startTimePrecisionUs: 10_000,
  identity: { kind: "linux-pidfs", value: "boot:48212" },
};
const dirEntry = (path: string, uid: number, mode: number) => ({
  path,
  type: "directory" as const,
  uid,
  mode,
  device: "65024",
  inode: String(path.length),
});
const trust: HerdrTie = {
  uid: 1000,
  socketDir: [
    dirEntry("/home/dev/.config/herdr", 1000, 0o755),
    dirEntry("/home/dev/.config", 1000, 0o700),
    dirEntry("/home/dev", 1000, 0o750),
    dirEntry("/home", 0, 0o755),
    dirEntry("/", 0, 0o755),
  ],
};
/** The real Herdr: the server (4000) holds the master of the pane's /dev/pts/7 itself. */
const terminal: TerminalTie = {
  tty: "/dev/pts/7",
  ancestry: [48211, 4000],
  masters: [{ pid: 4000, holds: true }],
};
const good: PaneObservation = { descriptor, pane, processInfo: info, facts, trust, terminal };
/** The good observation with the socket directory chain replaced. */
const withSocketDir = (socketDir: HerdrTie["socketDir"]): PaneObservation => ({
  ...good,
  trust: { ...trust, socketDir },
});

function bind(
  obs: PaneObservation = good,
  extra: Partial<Parameters<typeof bindPaneProof>[0]> = {},
) {
  return bindPaneProof({
    paneId: "w1:p2",
    launch: { argv: ["grok", "--leader"], cwd: "/home/dev/repo" },
    observation: obs,
    processInfoAfter: info,
    execSettled: true,
    nativeSessionId: SESSION,
    expectedAgent: "grok",
    now: new Date("2026-10-04T12:00:00Z"),
    ...extra,
  });
}

function record(): PaneProofRecord {
  const r = bind().record;
  if (r === null) throw new Error("good observation did not bind");
  return r;
}

function failedNames(checks: readonly CheckResult[]): string[] {
  return checks.filter((c) => !c.ok).map((c) => c.check);
}

test("a good observation binds into a versioned, JSON-round-tripping record", () => {
  const { record: r, checks } = bind();
  assert.equal(failedNames(checks), []);
  assert.ok(r);
  assert.is(r?.version, 1);
  assert.is(r?.process.tty, "/dev/pts/7");
  const back = v.parse(PaneProofRecordSchema, JSON.parse(JSON.stringify(r)));
  assert.equal(back, r);
  assert.not.ok(v.safeParse(PaneProofRecordSchema, { ...r, version: 2 }).success);
});

test("binding refuses by name", () => {
  const cases: [string, ReturnType<typeof bind>][] = [
    ["pane.terminal", bind({ ...good, facts: { ...facts, tty: null } })],
    ["pane.shell_pid", bind({ ...good, processInfo: { pane_id: "w1:p2" } })],
    ["pane.shell_pid_stable", bind(good, { processInfoAfter: { ...info, shell_pid: 50000 } })],
    ["pane.process_settled", bind(good, { execSettled: false })],
    ["pane.herdr_tty", bind({ ...good, processInfo: { ...info, tty: "/dev/pts/1" } })],
    ["pane.agent", bind({ ...good, pane: { ...pane, agent: "grok-leader" } })],
    ["pane.native_session", bind(good, { nativeSessionId: "another" })],
    [
      "pane.process_facts",
      bind({ ...good, facts: { unavailable: true, code: "NO_SUCH_PROCESS", message: "gone" } }),
    ],
    [
      "pane.present",
      bind({ ...good, pane: { unavailable: true, code: "pane_not_found", message: "x" } }),
    ],
    [
      "herdr.pane_terminal",
      bind({ ...good, terminal: { ...terminal, masters: [{ pid: 4000, holds: false }] } }),
    ],
  ];
  for (const [name, result] of cases) {
    assert.is(result.record, null, name);
    assert.ok(failedNames(result.checks).includes(name), `${name}: ${failedNames(result.checks)}`);
  }
});

test("re-verification of an unchanged pane passes every check", () => {
  const checks = checkPaneProof(record(), good);
  assert.equal(failedNames(checks), []);
  assert.ok(checks.length >= 17);
});

test("birth is compared within the recorded precision (one Linux tick)", () => {
  const jitter = checkPaneProof(record(), {
    ...good,
    facts: { ...facts, startTimeUs: facts.startTimeUs + 37 },
  });
  assert.equal(failedNames(jitter), []);
  const other = checkPaneProof(record(), {
    ...good,
    facts: { ...facts, startTimeUs: facts.startTimeUs + 20_001 },
  });
  assert.equal(failedNames(other), ["pane.process_birth"]);
});

const gone = { unavailable: true as const, code: "NO_SUCH_PROCESS", message: "gone" };
const tampering: [string, PaneObservation, string[]][] = [
  [
    "pane replaced (pane_not_found)",
    {
      ...good,
      pane: { unavailable: true, code: "pane_not_found", message: "pane w1:p2 not found" },
      processInfo: { unavailable: true, code: "pane_not_found", message: "x" },
    },
    ["pane.present", "pane.terminal_id", "pane.shell_pid", "pane.agent", "pane.native_session"],
  ],
  [
    "process restarted in the same pane",
    { ...good, processInfo: { ...info, shell_pid: 50001 }, facts: gone },
    [
      "pane.shell_pid",
      "pane.process_identity",
      "pane.process_birth",
      "pane.process_executable",
      "pane.process_cwd",
      "pane.process_uid",
      "pane.terminal",
      "pane.agent",
    ],
  ],
  [
    "pid reused by another process",
    {
      ...good,
      facts: {
        ...facts,
        identity: { kind: "linux-pidfs", value: "boot:99999" },
        startTimeUs: facts.startTimeUs + 9e6,
      },
    },
    ["pane.process_identity", "pane.process_birth"],
  ],
  [
    "terminal changed (terminal_id)",
    { ...good, pane: { ...pane, terminal_id: "term_other" } },
    ["pane.terminal_id", "pane.agent"],
  ],
  [
    "terminal changed (tty)",
    { ...good, facts: { ...facts, tty: "/dev/pts/9" } },
    ["pane.terminal", "pane.agent"],
  ],
  [
    "session id changed",
    {
      ...good,
      pane: {
        ...pane,
        agent_session: { source: "herdr:grok", agent: "grok", kind: "id", value: "other" },
      },
    },
    ["pane.agent", "pane.native_session"],
  ],
  ["contradictory report", { ...good, pane: { ...pane, agent: "grok-leader" } }, ["pane.agent"]],
  [
    "descriptor changed (server restarted)",
    {
      ...good,
      descriptor: {
        ...descriptor,
        socketFile: { ...descriptor.socketFile, inode: "2229999" },
        server: {
          ...descriptor.server,
          pid: 4100,
          identity: { kind: "linux-pidfs", value: "boot:4101" },
        },
      },
    },
    ["herdr.socket_file", "herdr.server_pid", "herdr.server_identity", "herdr.pane_terminal"],
  ],
  [
    "Herdr upgraded",
    { ...good, descriptor: { ...descriptor, version: "0.8.1", protocol: 20 } },
    ["herdr.version"],
  ],
  [
    "executable replaced",
    { ...good, facts: { ...facts, executableDeleted: true } },
    ["pane.process_executable"],
  ],
  ["cwd changed", { ...good, facts: { ...facts, cwd: "/tmp" } }, ["pane.process_cwd"]],
  ["uid changed", { ...good, facts: { ...facts, uid: 0 } }, ["pane.process_uid"]],
  [
    "Herdr unreachable",
    { ...good, descriptor: { unavailable: true, code: "HERDR_CONNECT_FAILED", message: "x" } },
    [
      "herdr.socket_path",
      "herdr.socket_file",
      "herdr.server_pid",
      "herdr.server_identity",
      "herdr.version",
      "herdr.socket_owner",
      "herdr.socket_dir",
      "herdr.server_uid",
      "herdr.pane_terminal",
    ],
  ],
  [
    "another user's server now answers on the path",
    {
      ...good,
      descriptor: {
        ...descriptor,
        socketFile: { ...descriptor.socketFile, uid: 1001 },
        server: { ...descriptor.server, uid: 1001 },
      },
    },
    ["herdr.socket_owner", "herdr.server_uid"],
  ],
  [
    "the pane's terminal is not the server's",
    {
      ...good,
      terminal: { ...terminal, ancestry: [48211, 1], masters: [{ pid: 4000, holds: false }] },
    },
    ["herdr.pane_terminal"],
  ],
];

for (const [name, obs, expected] of tampering) {
  test(`tampering refused by name: ${name}`, () => {
    const checks = checkPaneProof(record(), obs);
    assert.equal(failedNames(checks), expected);
    for (const c of checks.filter((x) => !x.ok)) assert.type(c.reason, "string");
  });
}

test("a server that is not ours: refused by name, and its pane answers are not even looked at", () => {
  const cases: [string, PaneObservation][] = [
    [
      "herdr.server_uid",
      { ...good, descriptor: { ...descriptor, server: { ...descriptor.server, uid: 65534 } } },
    ],
    [
      "herdr.socket_owner",
      {
        ...good,
        descriptor: { ...descriptor, socketFile: { ...descriptor.socketFile, uid: 65534 } },
      },
    ],
    [
      "herdr.socket_dir",
      withSocketDir([
        dirEntry("/tmp/herdr", 65534, 0o755),
        dirEntry("/tmp", 0, 0o1777),
        dirEntry("/", 0, 0o755),
      ]),
    ],
    [
      "herdr.socket_dir",
      withSocketDir([
        dirEntry("/srv/herdr", 1000, 0o700),
        dirEntry("/srv", 0, 0o777),
        dirEntry("/", 0, 0o755),
      ]),
    ],
  ];
  for (const [name, obs] of cases) {
    const r = bind(obs);
    assert.is(r.record, null, name);
    assert.equal(failedNames(r.checks), [name]);
    assert.not.ok(
      r.checks.some((c) => c.check.startsWith("pane.")),
      `${name}: no pane check made`,
    );
  }
  const sticky = bind(
    withSocketDir([
      dirEntry("/tmp/herdr", 1000, 0o700),
      dirEntry("/tmp", 0, 0o1777),
      dirEntry("/", 0, 0o755),
    ]),
  );
  assert.equal(failedNames(sticky.checks), [], "Herdr's own <tmp>/herdr, made by us");
});

test("herdr.pane_terminal: the server's master, a terminal host it started, or (weaker) ancestry", () => {
  const tmux: TerminalTie = {
    tty: "/dev/pts/7",
    ancestry: [48211, 4500, 4000],
    masters: [
      { pid: 4000, holds: false },
      { pid: 4500, holds: true },
    ],
  };
  assert.equal(
    failedNames(bind({ ...good, terminal: tmux }).checks),
    [],
    "the simulator's tmux -D child",
  );
  const elsewhere: TerminalTie = {
    tty: "/dev/pts/7",
    ancestry: [48211, 4500, 1],
    masters: [{ pid: 4000, holds: false }],
  };
  assert.equal(failedNames(bind({ ...good, terminal: elsewhere }).checks), ["herdr.pane_terminal"]);
  const weaker = checkPaneTerminal(4000, {
    tty: "/dev/ttys004",
    ancestry: [48211, 4000],
    masters: null,
  });
  assert.ok(weaker.ok);
  assert.match(JSON.stringify(weaker.received), /ancestry \(weaker/);
  assert.not.ok(
    checkPaneTerminal(4000, { tty: "/dev/ttys004", ancestry: [48211, 1], masters: null }).ok,
  );
});

test("the agent refusal code is carried in `received.reason`", () => {
  const checks = checkPaneProof(record(), { ...good, pane: { ...pane, agent: null } });
  const agent = firstFailure(checks);
  assert.is(agent?.check, "pane.agent");
  const received = agent?.received as { reason?: unknown } | undefined;
  assert.is(received?.reason, "agent_null");
});

test("without an agent claim, a pane with no agent yet is consistent (G1)", () => {
  const { agent: _a, agent_session: _s, ...bare } = pane;
  const r = bind({ ...good, pane: bare }, { expectedAgent: null, nativeSessionId: null }).record;
  assert.ok(r);
  if (r === null) return;
  assert.equal(failedNames(checkPaneProof(r, { ...good, pane: bare })), []);
  const claimed = { ...r, expectedAgent: "grok" };
  assert.equal(failedNames(checkPaneProof(claimed, { ...good, pane: bare })), ["pane.agent"]);
});

test.run();
