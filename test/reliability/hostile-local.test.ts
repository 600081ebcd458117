// @platform linux: setpriv, chown, /proc fdinfo and the simulators
/**
 * T11, hostile local users and files (issue 16 items 1, 2, 5, 6): each attack is run against the
 * library's real paths, the attacker as uid 65534 (`setpriv`) where it needs another user, and
 * must be refused by its own named check, with nothing reaching the attacker:
 * - another user's Herdr server (at `<tmp>/herdr/herdr.sock` with HOME and XDG_CONFIG_HOME unset,
 *   as under cron or `env -i`), a socket, a directory or a server of another user behind an
 *   explicit path, a directory anyone can write: `hire()` refuses in preflight and `verify-proof
 *   pane` fails, by `herdr.socket_owner` / `herdr.socket_dir` / `herdr.server_uid`, and the server's
 *   own log shows it received nothing but `ping`;
 * - a server of ours that invents a pane naming an unrelated process (on a terminal of its own):
 *   `verify-proof pane` fails `herdr.pane_terminal` (exit 1), never PROVEN;
 * - a runtime base another user can write to (0777, not sticky) while that user renames every fresh
 *   seat directory away and puts their own (with their config.toml) in its place: `runtime_dir.base`
 *   refuses before anything is made, so no TUI ever runs with GROK_HOME in their directory; a base
 *   owned by another user likewise; a 0777 GROK_HOME or one under a 0777 directory is refused;
 * - a FIFO or /dev/zero given as a record: RECORD_UNREADABLE within seconds;
 * - a journal whose epoch is at Number.MAX_SAFE_INTEGER: EPOCH_EXHAUSTED, nothing written;
 * and the legitimate cases pass: a Herdr simulator pane is PROVEN, a hire into a sticky base (like
 * /tmp) succeeds while the same attacker tries, and fails, to rename the seat directory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { main } from "../../lib/cli/main.js";
import { encodeRecord } from "../../lib/delivery/codec.js";
import { admitController } from "../../lib/delivery/index.js";
import { JOURNAL_FILE } from "../../lib/delivery/journal.js";
import { isErrorCode } from "../../lib/errors.js";
import { type HireOptions, hire } from "../../lib/seat/hire.js";
import { SeatRefusal } from "../../lib/seat/refusal.js";
import { recordClaim, scaled } from "../helpers/claims.js";
import { ensureGrokSim, type GrokHomeFixture, grokHomeFixture } from "../helpers/grok-sim.js";
import { launchAndBind, newClient } from "../herdr/sim-support.js";
import { type Stack, startStack } from "../seat/stack.js";
import { type Json, LineChild, NOBODY, repoRoot } from "./fixtures/socket-world.js";

const REPS = scaled(2, 20);
const RACES = scaled(2, 10);
const LEGIT = scaled(1, 3);
const startedAt = Date.now();
const HOSTILE_HERDR = join(repoRoot, "test", "reliability", "fixtures", "hostile-herdr.ts");
const ATTACKER = join(repoRoot, "test", "reliability", "fixtures", "rename-attacker.ts");

function skipReason(): string | null {
  if (process.platform !== "linux") return "T11 needs Linux (setpriv, /proc fdinfo)";
  if (process.getuid?.() !== 0) return "T11 builds its fixtures as root (CI runs as root)";
  return null;
}
const skip = skipReason();
if (skip !== null) console.log(`SKIP: ${skip}`);

let base = "";
let grok = "";
let home: GrokHomeFixture | null = null;
const children: LineChild[] = [];

test.before(async () => {
  if (skip !== null) return;
  base = mkdtempSync(join(tmpdir(), "t11-hostile-"));
  chmodSync(base, 0o755);
  grok = await ensureGrokSim();
  home = grokHomeFixture();
});
test.after(async () => {
  for (const c of children.splice(0)) await c.stop().catch(() => undefined);
  home?.remove();
  if (base !== "") rmSync(base, { recursive: true, force: true });
});

let n = 0;
function fresh(name: string, uid = 0, mode = 0o700): string {
  const dir = join(base, `${name}-${++n}`);
  mkdirSync(dir);
  chownSync(dir, uid, uid);
  chmodSync(dir, mode);
  return dir;
}

/** Per named reason: how often it was the outcome, and out of how many runs. */
const tally = new Map<string, { expected: string; matched: number; runs: number }>();
function count(setup: string, expected: string, got: string): void {
  const t = tally.get(setup) ?? { expected, matched: 0, runs: 0 };
  t.runs += 1;
  if (got === expected) t.matched += 1;
  tally.set(setup, t);
}
const herdrSeen = { requests: 0, beyondPing: 0 };
const race = { runs: 0, swaps: 0, tuisInTheirDir: 0, legitAdmitted: 0, legitRenamesRefused: 0 };
let legitPaneProven = 0;

/** A hostile Herdr server listening at `socketPath` as `uid` (bound elsewhere, then moved). */
async function hostileHerdr(
  socketPath: string,
  uid: number | null,
  opts: { panePid?: number; bindIn?: string } = {},
): Promise<{ logPath: string; child: LineChild }> {
  const logPath = join(base, `herdr-log-${++n}.jsonl`);
  writeFileSync(logPath, "");
  chmodSync(logPath, 0o666);
  const bindAt = opts.bindIn === undefined ? socketPath : join(opts.bindIn, `bind-${n}.sock`);
  const child = await LineChild.start(HOSTILE_HERDR, uid, [
    "--socket",
    bindAt,
    "--log",
    logPath,
    ...(opts.panePid === undefined ? [] : ["--pane-pid", String(opts.panePid)]),
  ]);
  children.push(child);
  if (bindAt !== socketPath) renameSync(bindAt, socketPath);
  return { logPath, child };
}

function methodsIn(logPath: string): string[] {
  return readFileSync(logPath, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => String((JSON.parse(l) as { method?: unknown }).method));
}

/** Run `fn` with these environment variables set (a string) or removed (undefined). */
async function withEnv<T>(
  patch: Record<string, string | undefined>,
  fn: () => Promise<T>,
): Promise<T> {
  const saved = new Map(Object.keys(patch).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

function hireOptions(extra: Partial<HireOptions> = {}): HireOptions {
  if (home === null) throw new Error("no home");
  return {
    cwd: home.cwd,
    profile: { kind: "grok-home", grokHome: home.dir },
    grok,
    timeouts: { leaderMs: 20_000, activeSessionMs: 15_000, agentMs: 10_000, requestMs: 10_000 },
    env: { GROK_DISABLE_AUTOUPDATER: "1", ANTHROPIC_API_KEY: "sk-secret-of-the-owner" },
    ...extra,
  };
}

/** Hires refused because `grok --version` timed out (a loaded machine), tried again. */
let probeRetries = 0;
const PROBE_TRIES = 3;

/**
 * `step/code/check` of a refused hire, or ADMITTED (the seat is released at once). A hire whose
 * `grok --version` probe timed out (GROK_VERSION_TIMEOUT, 5 s: seen under a load of 26 on two
 * cores) is tried again, counted in `probeRetries`: it stops in preflight before Herdr is asked
 * for anything or the runtime base is touched, so the attack was not yet played.
 */
async function hireOutcome(options: HireOptions): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const seat = await hire(options);
      await seat.release({ waitForTuiExitMs: 0 });
      return "ADMITTED";
    } catch (err) {
      if (!(err instanceof SeatRefusal)) throw err;
      if (attempt < PROBE_TRIES && isErrorCode(err.cause, "GROK_VERSION_TIMEOUT")) {
        probeRetries += 1;
        continue;
      }
      return `${err.step}/${err.code}/${err.check ?? "-"}`;
    }
  }
}

/** `verify-proof pane <id> [args] --json`: the exit code and the failing checks, in order. */
async function paneCli(
  paneId: string,
  args: string[],
): Promise<{ code: number; failing: string[] }> {
  let out = "";
  const code = await main(["pane", paneId, ...args, "--json"], {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: () => true },
    env: {},
  });
  const doc = JSON.parse(out) as { checks?: { check: string; ok: boolean }[] };
  return { code, failing: (doc.checks ?? []).filter((c) => !c.ok).map((c) => c.check) };
}

interface TrustSetup {
  readonly id: string;
  readonly check: string;
  /** The socket path, how the victim finds it, and the hostile server's log. */
  build(): Promise<{
    socketPath: string;
    logPath: string;
    env: Record<string, string | undefined>;
  }>;
}

const NO_DISCOVERY_ENV = { HERDR_SOCKET_PATH: undefined, HERDR_SESSION: undefined };

const TRUST: readonly TrustSetup[] = [
  {
    id: "herdr-tmp-fallback",
    check: "herdr.socket_owner",
    async build() {
      // HOME and XDG_CONFIG_HOME unset: Herdr and our discovery both land on <tmp>/herdr, which
      // uid 65534 made first, in a world-writable sticky tmp like /tmp.
      const tmp = fresh("tmp", 0, 0o1777);
      const theirs = join(tmp, "herdr");
      mkdirSync(theirs);
      chownSync(theirs, NOBODY, NOBODY);
      chmodSync(theirs, 0o755);
      const socketPath = join(theirs, "herdr.sock");
      const { logPath } = await hostileHerdr(socketPath, NOBODY);
      return {
        socketPath,
        logPath,
        env: { ...NO_DISCOVERY_ENV, HOME: undefined, XDG_CONFIG_HOME: undefined, TMPDIR: tmp },
      };
    },
  },
  {
    id: "herdr-foreign-server",
    check: "herdr.server_uid",
    async build() {
      // Our 0700 directory, a socket file chowned to us, but uid 65534 listens behind it.
      const dir = fresh("ours");
      const scratch = fresh("scratch", NOBODY);
      const socketPath = join(dir, "herdr.sock");
      const { logPath } = await hostileHerdr(socketPath, NOBODY, { bindIn: scratch });
      chownSync(socketPath, 0, 0);
      return { socketPath, logPath, env: NO_DISCOVERY_ENV };
    },
  },
  {
    id: "herdr-foreign-socket-file",
    check: "herdr.socket_owner",
    async build() {
      const dir = fresh("ours");
      const socketPath = join(dir, "herdr.sock");
      const { logPath } = await hostileHerdr(socketPath, null);
      chownSync(socketPath, NOBODY, NOBODY);
      return { socketPath, logPath, env: NO_DISCOVERY_ENV };
    },
  },
  {
    id: "herdr-foreign-dir",
    check: "herdr.socket_dir",
    async build() {
      const dir = fresh("theirs", NOBODY, 0o755);
      const socketPath = join(dir, "herdr.sock");
      const { logPath } = await hostileHerdr(socketPath, null);
      return { socketPath, logPath, env: NO_DISCOVERY_ENV };
    },
  },
  {
    id: "herdr-open-dir",
    check: "herdr.socket_dir",
    async build() {
      const dir = fresh("open", 0, 0o777);
      const socketPath = join(dir, "herdr.sock");
      const { logPath } = await hostileHerdr(socketPath, null);
      return { socketPath, logPath, env: NO_DISCOVERY_ENV };
    },
  },
  {
    id: "herdr-open-ancestor",
    check: "herdr.socket_dir",
    async build() {
      const open = fresh("open", 0, 0o777);
      const dir = join(open, "herdr");
      mkdirSync(dir, { mode: 0o700 });
      const socketPath = join(dir, "herdr.sock");
      const { logPath } = await hostileHerdr(socketPath, null);
      return { socketPath, logPath, env: NO_DISCOVERY_ENV };
    },
  },
];

for (const setup of TRUST) {
  test(`another user's or an exposed Herdr server gets nothing but ping: ${setup.id}`, async () => {
    if (skip !== null) return;
    for (let i = 0; i < REPS; i++) {
      const b = await setup.build();
      const explicit =
        setup.id === "herdr-tmp-fallback" ? {} : { herdr: { socketPath: b.socketPath } };
      const hired = await withEnv(b.env, () => hireOutcome(hireOptions(explicit)));
      count(`${setup.id}/hire`, `preflight/HERDR_UNTRUSTED/${setup.check}`, hired);
      const cliArgs = setup.id === "herdr-tmp-fallback" ? [] : ["--herdr-socket", b.socketPath];
      const cli = await withEnv(b.env, () => paneCli("w1:p1", cliArgs));
      count(
        `${setup.id}/verify-proof`,
        `exit 1/${setup.check}`,
        `exit ${cli.code}/${cli.failing[0]}`,
      );
      const methods = methodsIn(b.logPath);
      herdrSeen.requests += methods.length;
      herdrSeen.beyondPing += methods.filter((m) => m !== "ping").length;
      assert.is(hired, `preflight/HERDR_UNTRUSTED/${setup.check}`, `${setup.id} #${i}`);
      assert.is(cli.code, 1, `${setup.id} #${i}: verify-proof pane exits 1`);
      assert.is(cli.failing[0], setup.check, `${setup.id} #${i}: ${cli.failing.join()}`);
      assert.equal(
        methods.filter((m) => m !== "ping"),
        [],
        `${setup.id} #${i}: the server received nothing but ping`,
      );
    }
  });
}

/** `script` gives `sleep` a pty of its own: a process of ours on a terminal Herdr never made. */
async function unrelatedOnATerminal(): Promise<{ pid: number; child: ChildProcess }> {
  const child = spawn("script", ["-qfec", "exec sleep 600", "/dev/null"], { stdio: "ignore" });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim();
    const pid = Number(kids.split(" ")[0]);
    if (pid > 0 && readlinkSync(`/proc/${pid}/exe`).endsWith("/sleep")) return { pid, child };
    if (Date.now() > deadline) throw new Error("script did not start sleep");
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("a server of ours invents a pane naming an unrelated process: herdr.pane_terminal, exit 1", async () => {
  if (skip !== null) return;
  const unrelated = await unrelatedOnATerminal();
  try {
    for (let i = 0; i < REPS; i++) {
      const dir = fresh("ours");
      const socketPath = join(dir, "herdr.sock");
      await hostileHerdr(socketPath, null, { panePid: unrelated.pid });
      const cli = await paneCli("w1:p1", ["--herdr-socket", socketPath]);
      count(
        "herdr-invented-pane/verify-proof",
        "exit 1/herdr.pane_terminal",
        `exit ${cli.code}/${cli.failing.join("+")}`,
      );
      assert.is(cli.code, 1, `#${i}: never PROVEN`);
      assert.equal(cli.failing, ["herdr.pane_terminal"], `#${i}`);
    }
  } finally {
    unrelated.child.kill("SIGKILL");
  }
});

let stack: Stack | null = null;
test("legit: a Herdr simulator pane is PROVEN (its tmux server, the simulator's child, holds the pty)", async () => {
  if (skip !== null) return;
  stack = await startStack();
  for (let i = 0; i < LEGIT; i++) {
    const { record } = await launchAndBind(
      newClient(stack.herdr.socketPath),
      stack.herdr.sessionName,
    );
    const cli = await paneCli(record.pane.paneId, ["--herdr-socket", stack.herdr.socketPath]);
    assert.is(cli.code, 0, cli.failing.join());
    legitPaneProven += 1;
    process.kill(record.process.pid, "SIGKILL");
  }
});

/** Did any TUI run with its GROK_HOME, or write its socket, in a directory the attacker swapped in? */
function tuiInTheirDir(swapped: readonly string[]): boolean {
  for (const dir of swapped) {
    if (readdirSync(dir).some((e) => e !== "grok-home" && lstatSync(join(dir, e)).uid === 0))
      return true;
    for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
      try {
        const env = readFileSync(`/proc/${pid}/environ`, "latin1");
        if (env.includes(`GROK_HOME=${dir}/`)) return true;
      } catch {
        // gone, or a kernel thread
      }
    }
  }
  return false;
}

test("runtime base another user can write: refused before anything is made; no TUI in their directory", async () => {
  if (skip !== null || stack === null) return;
  const attacker = await LineChild.start(ATTACKER, NOBODY);
  children.push(attacker);
  for (let i = 0; i < RACES; i++) {
    const shared = fresh("shared", 0, 0o777);
    await attacker.request({ op: "arm", base: shared });
    const got = await hireOutcome(
      stack.options({
        runtimeBase: shared,
        profile: { kind: "temporary", loginFile: stack.home.authPath },
      }),
    );
    const report = await attacker.request({ op: "report" });
    const swapped = (report.swaps as string[] | undefined) ?? [];
    race.runs += 1;
    race.swaps += swapped.length;
    if (tuiInTheirDir(swapped)) race.tuisInTheirDir += 1;
    count("runtime-base-open", "runtime_dir/RUNTIME_DIR_UNSAFE/runtime_dir.base", got);
    assert.is(got, "runtime_dir/RUNTIME_DIR_UNSAFE/runtime_dir.base", `race #${i}`);
    assert.equal(readdirSync(shared), [], `race #${i}: nothing was created in the base`);
  }
  assert.is(race.tuisInTheirDir, 0, "no TUI ever ran in the attacker's directory");
});

test("legit: a sticky base (like /tmp) while the attacker tries; their renames are refused", async () => {
  if (skip !== null || stack === null) return;
  const attacker = children.at(-1);
  if (attacker === undefined) throw new Error("no attacker");
  for (let i = 0; i < LEGIT; i++) {
    const sticky = fresh("sticky", 0, 0o1777);
    await attacker.request({ op: "arm", base: sticky });
    const got = await hireOutcome(
      stack.options({
        runtimeBase: sticky,
        profile: { kind: "temporary", loginFile: stack.home.authPath },
      }),
    );
    const report: Json = await attacker.request({ op: "report" });
    assert.is(got, "ADMITTED", `#${i}`);
    assert.equal(report.swaps, [], "the sticky bit kept our directory ours");
    race.legitAdmitted += 1;
    race.legitRenamesRefused += ((report.refused as string[] | undefined) ?? []).length;
  }
  assert.ok(race.legitRenamesRefused >= LEGIT, "the attacker did try, and the kernel refused");
});

test("a base owned by another user, a 0777 GROK_HOME, a GROK_HOME under a 0777 directory", async () => {
  if (skip !== null || stack === null) return;
  for (let i = 0; i < REPS; i++) {
    const theirs = fresh("their-base", NOBODY, 0o755);
    const a = await hireOutcome(stack.options({ runtimeBase: theirs }));
    count("runtime-base-foreign", "runtime_dir/RUNTIME_DIR_UNSAFE/runtime_dir.base", a);
    assert.is(a, "runtime_dir/RUNTIME_DIR_UNSAFE/runtime_dir.base");
    const open = fresh("grok-home", 0, 0o777);
    const b = await hireOutcome(stack.options({ profile: { kind: "grok-home", grokHome: open } }));
    count("grok-home-open", "preflight/PROFILE_INVALID/profile.grok_home_mode", b);
    assert.is(b, "preflight/PROFILE_INVALID/profile.grok_home_mode");
    const parent = fresh("shared", 0, 0o777);
    const under = join(parent, ".grok");
    mkdirSync(under, { mode: 0o700 });
    const c = await hireOutcome(stack.options({ profile: { kind: "grok-home", grokHome: under } }));
    count("grok-home-open-parent", "preflight/PROFILE_INVALID/profile.grok_home_path", c);
    assert.is(c, "preflight/PROFILE_INVALID/profile.grok_home_path");
  }
});

test("records the CLI reads: a FIFO and /dev/zero are RECORD_UNREADABLE, at once", async () => {
  if (skip !== null) return;
  for (let i = 0; i < REPS; i++) {
    const dir = fresh("records", NOBODY, 0o755);
    const fifo = join(dir, "seat.json");
    await new Promise<void>((resolve, reject) => {
      // The attacker's FIFO: made by uid 65534 in their directory.
      const p = spawn("setpriv", [
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        "mkfifo",
        fifo,
      ]);
      p.on("close", (c) => (c === 0 ? resolve() : reject(new Error(`mkfifo ${c}`))));
    });
    for (const [what, path] of [
      ["fifo", fifo],
      ["dev-zero", "/dev/zero"],
    ] as const) {
      for (const argv of [
        ["record", path, "--json"],
        ["pane", "w1:p1", "--herdr-socket", join(dir, "none.sock"), "--record", path, "--json"],
      ]) {
        let out = "";
        const code = await main(argv, {
          stdout: { write: (s: string) => (out += s) },
          stderr: { write: () => true },
          env: {},
        });
        const got = `exit ${code}/${String((JSON.parse(out) as { error?: { code?: string } }).error?.code)}`;
        count(`record-${what}/${argv[0]}`, "exit 2/RECORD_UNREADABLE", got);
        assert.is(got, "exit 2/RECORD_UNREADABLE", `${what} ${argv[0]}`);
      }
    }
  }
});

test("a journal at the epoch ceiling: EPOCH_EXHAUSTED, nothing written, nothing quarantined", () => {
  if (skip !== null) return;
  for (let i = 0; i < REPS; i++) {
    const dir = fresh("seat");
    const line = encodeRecord({ v: 1, t: "epoch", epoch: Number.MAX_SAFE_INTEGER, pid: 1, at: 1 });
    writeFileSync(join(dir, JOURNAL_FILE), line, { mode: 0o600 });
    let got = "ADMITTED";
    try {
      admitController({ seatDir: dir }).release();
    } catch (err) {
      got = isErrorCode(err) ? err.code : String(err);
    }
    count("journal-epoch-ceiling", "EPOCH_EXHAUSTED", got);
    assert.is(got, "EPOCH_EXHAUSTED");
    assert.equal(readFileSync(join(dir, JOURNAL_FILE)), line, "nothing written");
    assert.not.ok(readdirSync(dir).some((f) => f.includes("quarantine")));
  }
});

test("claim T11-hostile-local", async () => {
  if (skip !== null) return;
  await stack?.cleanup();
  stack = null;
  const rows = [...tally];
  const refusedAsNamed = rows.reduce((a, [, t]) => a + t.matched, 0);
  const runs = rows.reduce((a, [, t]) => a + t.runs, 0);
  const reasons = [...new Set(rows.map(([, t]) => t.expected.split("/").pop() ?? t.expected))];
  const held =
    rows.length > 0 &&
    refusedAsNamed === runs &&
    herdrSeen.beyondPing === 0 &&
    race.tuisInTheirDir === 0 &&
    race.swaps === 0 &&
    race.legitAdmitted === LEGIT &&
    legitPaneProven === LEGIT;
  console.log(`T11 per setup: ${rows.map(([id, t]) => `${id} ${t.matched}/${t.runs}`).join(", ")}`);
  recordClaim(
    {
      id: "T11-hostile-local",
      title: "Hostile local users and files are refused by name",
      claim:
        `${rows.length} hostile attack paths (${reasons.length} named refusals: ${reasons.join(", ")}) ` +
        `refused by name ${refusedAsNamed}/${runs} times, the attacker as uid 65534 where it needs ` +
        `another user; ${herdrSeen.requests} requests reached hostile Herdr servers, ` +
        `${herdrSeen.beyondPing} of them other than ping; ${race.runs} rename races on a 0777 runtime ` +
        `base: ${race.swaps} seat directories swapped, ${race.tuisInTheirDir} TUIs in the attacker's ` +
        `directory; legit: ${legitPaneProven}/${LEGIT} simulator panes PROVEN, ${race.legitAdmitted}/${LEGIT} ` +
        `hires into a sticky base admitted while ${race.legitRenamesRefused} renames by the attacker were refused by the kernel.`,
      counts: {
        paths: rows.length,
        runs,
        refusedAsNamed,
        herdrRequests: herdrSeen.requests,
        herdrRequestsBeyondPing: herdrSeen.beyondPing,
        raceRuns: race.runs,
        raceSwaps: race.swaps,
        tuisInAttackerDir: race.tuisInTheirDir,
        legitPaneProven,
        legitStickyAdmitted: race.legitAdmitted,
        legitRenamesRefused: race.legitRenamesRefused,
        probeRetries,
        ...Object.fromEntries(rows.map(([id, t]) => [`path:${id}`, t.matched])),
      },
      held,
      method:
        "test/reliability/hostile-local.test.ts: fixtures built by root; hostile Herdr servers " +
        "(test/reliability/fixtures/hostile-herdr.ts, logging every request) run as uid 65534 via setpriv " +
        "or as root behind another user's socket file or directory; the victim is hire() and verify-proof " +
        "pane (HOME and XDG_CONFIG_HOME unset for the <tmp>/herdr case); an unrelated process on its own pty " +
        "via script(1); a uid-65534 rename attacker (fixtures/rename-attacker.ts) polling the runtime base " +
        "every millisecond, with /proc/<pid>/environ and file owners as the oracle; FIFOs made by uid 65534 " +
        "and /dev/zero through the CLI; a crafted journal through admitController. A hire whose grok --version " +
        "probe timed out in preflight (before Herdr or the runtime base is touched) is tried again, at most " +
        "twice (counted: probeRetries).",
    },
    startedAt,
  );
  assert.ok(held, "the T11 claim held");
});

test.run();
