// @platform linux: uses the grok simulator, not yet verified on macOS
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import {
  admitVersion,
  compareSemver,
  type GrokVersion,
  parseGrokVersion,
  parseSemver,
  probeGrokVersion,
  VERSION_FLOOR,
} from "../../lib/grok/version.js";
import { connectLeader } from "../../lib/leader/leader-connection.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import { CAPABILITIES } from "../helpers/fake-leader.js";
import {
  ensureGrokSim,
  type GrokLeader,
  grokHomeFixture,
  simEnv,
  startGrokLeader,
} from "../helpers/grok-sim.js";

const codeOf = (fn: () => unknown): string | null => codeOfError(fn, null);

// Lines as `version_text` prints them (xai-grok-version display tests + note §9).
const TABLE: [string, string, string | null, "alpha" | "stable" | null][] = [
  ["grok 1.0.48 (abc1234) [alpha]\n", "1.0.48", "abc1234", "alpha"],
  ["grok 1.0.48 (b94d5072c95f) [stable]\n", "1.0.48", "b94d5072c95f", "stable"],
  ["grok 1.0.50 (abc1234)\n", "1.0.50", "abc1234", null],
  ["grok 0.2.5 (abc1234)", "0.2.5", "abc1234", null], // no trailing newline
  ["grok 0.1.220-alpha.2 (def0) [alpha]\n", "0.1.220-alpha.2", "def0", "alpha"],
  ["grok 1.0.46 (unknown)\n", "1.0.46", "unknown", null], // build.rs without git
  ["grok 1.0.47\n", "1.0.47", null, null], // full_version() unstamped: plain VERSION
  ["grok 1.0.47 [stable]\n", "1.0.47", null, "stable"],
  ["grok 2.0.0-rc.1+build.5 (a1b2c3d)\n", "2.0.0-rc.1+build.5", "a1b2c3d", null],
];

test("version table: parses every shape version_text can print", () => {
  for (const [line, version, commit, channel] of TABLE) {
    const v = parseGrokVersion(line);
    assert.is(v.version, version, line);
    assert.is(v.commit, commit, line);
    assert.is(v.channel, channel, line);
  }
});

test("version table: garbage is GROK_VERSION_UNPARSEABLE", () => {
  const garbage = [
    "",
    "\n",
    "grok\n",
    "grok 1.0\n",
    "grok v1.0.48\n",
    "grok 1.0.48 (abc1234) [beta]\n",
    "grok 01.0.48\n",
    "grok 1.0.48 (abc 1234)\n",
    "Grok 1.0.48\n",
    "grok 1.0.48\n\n",
    "grok 1.0.48\ngrok 1.0.49\n",
    "claude 1.0.48 (abc1234)\n",
    "grok 1.0.48 (abc1234) [alpha] extra\n",
    "grok 99999999999999999999.0.0\n",
  ];
  for (const g of garbage)
    assert.is(
      codeOf(() => parseGrokVersion(g)),
      "GROK_VERSION_UNPARSEABLE",
      JSON.stringify(g),
    );
});

test("property: random text never parses into something else, nor throws untyped", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), (s) => {
      const code = codeOf(() => parseGrokVersion(s));
      assert.ok(code === null || code === "GROK_VERSION_UNPARSEABLE");
    }),
    { numRuns: 3000 },
  );
});

test("semver precedence (semver.org §11 example chain)", () => {
  const chain = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.45",
    "1.0.46-rc.1",
    "1.0.46",
    "1.0.47",
    "1.1.0",
    "2.0.0",
  ].map((t) => parseSemver(t));
  for (let i = 0; i + 1 < chain.length; i++) {
    const a = chain[i];
    const b = chain[i + 1];
    if (!a || !b) throw new Error("unparsed");
    assert.is(compareSemver(a, b), -1, `${a.text} < ${b.text}`);
    assert.is(compareSemver(b, a), 1);
  }
  const x = parseSemver("1.0.46+a");
  const y = parseSemver("1.0.46+b");
  if (!x || !y) throw new Error("unparsed");
  assert.is(compareSemver(x, y), 0, "build metadata is ignored");
});

const GOOD_REG = {
  leader_protocol_version: 1,
  leader_binary_version: "1.0.48",
  leader_capabilities: CAPABILITIES as {
    control_v1: boolean;
    runtime_cpu_profile: boolean;
    profile_formats: string[];
    workspace_exposure: boolean;
    relaunch_v1: boolean;
  },
};

function cli(line: string): GrokVersion {
  return parseGrokVersion(line);
}

function failed(checks: { check: string; ok: boolean }[]): string[] {
  return checks.filter((c) => !c.ok).map((c) => c.check);
}

test("admitVersion: 1.0.48 everywhere passes; the floor itself passes", () => {
  const ok = admitVersion({
    cli: cli("grok 1.0.48 (abc1234) [alpha]\n"),
    leaderRegistered: GOOD_REG,
    agent: { agentVersion: "1.0.48" },
  });
  assert.equal(failed(ok), []);
  assert.equal(
    ok.map((c) => c.check),
    [
      "version.floor",
      "version.leader_protocol",
      "version.leader_control_v1",
      "version.leader_agrees",
      "version.agent_agrees",
    ],
  );
  const floor = admitVersion({
    cli: cli(`grok ${VERSION_FLOOR} (abc1234)\n`),
    leaderRegistered: { ...GOOD_REG, leader_binary_version: VERSION_FLOOR },
  });
  assert.equal(failed(floor), []);
  assert.is(floor.length, 4, "no agent check without agent evidence");
});

test("admitVersion: below the floor, prerelease of the floor, legacy leader, no control_v1, disagreement", () => {
  const below = admitVersion({
    cli: cli("grok 1.0.45 (abc1234)\n"),
    leaderRegistered: { ...GOOD_REG, leader_binary_version: "1.0.45" },
  });
  assert.equal(failed(below), ["version.floor"]);
  assert.is(below[0]?.received, "1.0.45");
  assert.is(below[0]?.expected, ">=1.0.46");

  const pre = admitVersion({
    cli: cli("grok 1.0.46-rc.1 (abc1234)\n"),
    leaderRegistered: { ...GOOD_REG, leader_binary_version: "1.0.46-rc.1" },
  });
  assert.equal(failed(pre), ["version.floor"]);

  const legacy = admitVersion({
    cli: cli("grok 1.0.48 (abc1234)\n"),
    leaderRegistered: {
      leader_protocol_version: null,
      leader_binary_version: null,
      leader_capabilities: null,
    },
  });
  assert.equal(failed(legacy), [
    "version.leader_protocol",
    "version.leader_control_v1",
    "version.leader_agrees",
  ]);

  const noControl = admitVersion({
    cli: cli("grok 1.0.48 (abc1234)\n"),
    leaderRegistered: {
      ...GOOD_REG,
      leader_capabilities: { ...GOOD_REG.leader_capabilities, control_v1: false },
    },
  });
  assert.equal(failed(noControl), ["version.leader_control_v1"]);

  const proto2 = admitVersion({
    cli: cli("grok 1.0.48 (abc1234)\n"),
    leaderRegistered: { ...GOOD_REG, leader_protocol_version: 2 },
  });
  assert.equal(failed(proto2), ["version.leader_protocol"]);

  const leaderOlder = admitVersion({
    cli: cli("grok 1.0.49 (abc1234)\n"),
    leaderRegistered: GOOD_REG,
  });
  assert.equal(failed(leaderOlder), ["version.leader_agrees"]);
  const c = leaderOlder.find((x) => x.check === "version.leader_agrees");
  assert.is(c?.expected, "1.0.49");
  assert.is(c?.received, "1.0.48");
  assert.ok(c?.reason?.includes("1.0.49") && c.reason.includes("1.0.48"));

  const agentOff = admitVersion({
    cli: cli("grok 1.0.48 (abc1234)\n"),
    leaderRegistered: GOOD_REG,
    agent: { agentVersion: "1.0.47" },
  });
  assert.equal(failed(agentOff), ["version.agent_agrees"]);
  const agentNone = admitVersion({
    cli: cli("grok 1.0.48 (abc1234)\n"),
    leaderRegistered: GOOD_REG,
    agent: { agentVersion: null },
  });
  assert.equal(failed(agentNone), ["version.agent_agrees"]);
});

const dir = mkdtempSync(join(tmpdir(), "grok-seat-version-"));
function script(name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

test.after(() => rmSync(dir, { recursive: true, force: true }));

test("probe: runs <exe> --version without a shell and parses it", async () => {
  const exe = script(
    "grok",
    'if [ "$1" = "--version" ] && [ $# -eq 1 ]; then echo "grok 1.0.48 (abc1234) [alpha]"; else exit 3; fi',
  );
  const v = await probeGrokVersion(exe);
  assert.is(v.version, "1.0.48");
  // A path with shell metacharacters is just a path: nothing is interpreted.
  const odd = script("gr ok;$(touch pwned)", 'echo "grok 1.0.49 (abc1234)"');
  assert.is((await probeGrokVersion(odd)).version, "1.0.49");
});

async function probeCode(exe: string, opts = {}): Promise<string> {
  try {
    await probeGrokVersion(exe, opts);
  } catch (err) {
    if (err instanceof GrokSeatError) return err.code;
    throw err;
  }
  return "no error";
}

test("probe: timeout, output cap, failure exit, missing binary, garbage, non-UTF-8", async () => {
  assert.is(
    await probeCode(script("slow", "exec sleep 30"), { timeoutMs: 100 }),
    "GROK_VERSION_TIMEOUT",
  );
  assert.is(
    await probeCode(script("chatty", "exec yes grok"), { maxOutputBytes: 1024 }),
    "GROK_VERSION_OUTPUT_TOO_LARGE",
  );
  assert.is(
    await probeCode(script("fails", "echo 'grok 1.0.48 (a)'; exit 2")),
    "GROK_VERSION_FAILED",
  );
  assert.is(await probeCode(join(dir, "absent")), "GROK_NOT_FOUND");
  assert.is(await probeCode(script("garbage", "echo hello")), "GROK_VERSION_UNPARSEABLE");
  assert.is(
    await probeCode(script("latin1", "printf 'grok 1.0.48 (\\351)\\n'")),
    "GROK_VERSION_UNPARSEABLE",
  );
});

test("simulator: grok --version parses; admitted with its leader; refused on each disagreement", async () => {
  const grok = await ensureGrokSim();
  const cases: [Record<string, string>, string[], string | null][] = [
    [{}, [], null],
    [{ GROK_SIM_VERSION: "1.0.45", GROK_SIM_LEADER_VERSION: "1.0.45" }, ["version.floor"], null],
    [{ GROK_SIM_LEADER_VERSION: "1.0.47" }, ["version.leader_agrees"], null],
    [
      { GROK_SIM_LEGACY_REGISTERED: "1" },
      ["version.leader_protocol", "version.leader_control_v1", "version.leader_agrees"],
      null,
    ],
    [{ GROK_SIM_VERSION: "1.0.50", GROK_SIM_COMMIT: "b94d5072c95f" }, [], "stable"],
  ];
  for (const [env, expectedFailures, label] of cases) {
    const home = grokHomeFixture(
      label === null ? {} : { stableVersion: env.GROK_SIM_VERSION ?? "1.0.48" },
    );
    let leader: GrokLeader | null = null;
    try {
      const cli = await probeGrokVersion(grok, { env: simEnv(home.dir, env) });
      assert.is(cli.version, env.GROK_SIM_VERSION ?? "1.0.48");
      assert.is(cli.channel, label === null ? null : "stable");
      leader = await startGrokLeader({ grokHome: home.dir, cwd: home.cwd, env });
      const conn = await connectLeader(leader.paths.socketPath, { keepaliveIntervalMs: 0 });
      try {
        const checks = admitVersion({ cli, leaderRegistered: conn.registered });
        assert.equal(failed(checks), expectedFailures, JSON.stringify(env));
      } finally {
        await conn.close();
      }
    } finally {
      await leader?.stop();
      home.remove();
    }
  }
});

test.run();
