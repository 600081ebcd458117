// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * `grok --resume <id>` as the real TUI starts it (pager `app/session_startup.rs`
 * `session_startup_intent_from_flags` / `materialize_startup_for_cwd`, `dispatch/session/load.rs`,
 * `app/effects/mod.rs` Effect::LoadSession; docs/design/grok-leader-protocol.md §8): the session the
 * simulator persisted under `$GROK_HOME/sessions/<encoded cwd>/<id>/` is loaded with one
 * `session/load` (the session's cwd, the config's MCP servers, `_meta` {yoloMode, autoMode}), its
 * history (the `turn_completed` records included) is there again, and the new TUI registers its
 * own pid in active_sessions.json after the load. An unknown id, a bad flag combination or an
 * empty cwd is refused before anything starts (exit 1, or clap's exit 2), and a load that fails
 * leaves the TUI open with no session and no entry.
 *
 * The TUI that resumes runs on a real pty as the argv command of a private tmux server started
 * here (the shared helper always launches with `--session-id`); each is stopped in a finally.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  type GrokHomeFixture,
  grokHomeFixture,
  pidAlive,
  readLockPid,
  simEnv,
  startGrokTui,
  waitFor,
} from "../../../helpers/grok-sim.js";
import { acpClient, encodeCwd } from "../../../helpers/grok-sim-clients.js";
import { cmdline, stat } from "../../kernel-oracles.js";
import { get, promptParams } from "./raw.js";

type Json = Record<string, unknown>;
const linux = process.platform === "linux";
let grok = "";

test.before(async () => {
  grok = realpathSync(await ensureGrokSim());
});

function sessionDir(home: string, cwd: string, id: string): string {
  return join(home, "sessions", encodeCwd(cwd), id);
}

function jsonLines(path: string): Json[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}

function activeSessions(home: string): Json[] {
  try {
    return JSON.parse(readFileSync(join(home, "active_sessions.json"), "utf8"));
  } catch {
    return [];
  }
}

function turnCompleted(home: string, cwd: string, id: string): string[] {
  return jsonLines(join(sessionDir(home, cwd, id), "updates.jsonl"))
    .filter((l) => get(l, "params", "update", "sessionUpdate") === "turn_completed")
    .map((l) => String(get(l, "params", "update", "prompt_id")));
}

/** ACP requests a leader read from clients of `clientType` (GROK_SIM_LOG `frame_in`). */
function acpFromClients(log: string, clientType: string, leaderPid?: number): Json[] {
  return jsonLines(log)
    .filter(
      (l) =>
        l.event === "frame_in" &&
        l.client_type === clientType &&
        (leaderPid === undefined || l.pid === leaderPid) &&
        get(l, "frame", "type") === "acp",
    )
    .map((l) => JSON.parse(String(get(l, "frame", "payload"))));
}

/** A session made by a real simulated TUI, with one prompt of ours completed, then /quit. */
async function persistedSession(
  home: GrokHomeFixture,
  log: string,
  promptId: string,
): Promise<{ sessionId: string; tuiPid: number; leaderPid: number }> {
  const tui = await startGrokTui({ grokHome: home.dir, cwd: home.cwd, env: { GROK_SIM_LOG: log } });
  try {
    const leaderPid = await tui.leaderPid();
    await tui.sessionReady();
    const c = await acpClient(tui.paths.socketPath, "sim-test");
    const attached = await c.request("session/resume", {
      sessionId: tui.sessionId,
      cwd: home.cwd,
      mcpServers: [],
    });
    assert.is(attached.error, undefined, JSON.stringify(attached.error));
    const done = await c.request(
      "session/prompt",
      promptParams(tui.sessionId, `first turn ${promptId}`, { promptId }),
    );
    assert.is(get(done, "result", "stopReason"), "end_turn");
    c.destroy();
    await tui.waitForScreen("Simulated reply");
    await tui.typeIntoTui("/quit");
    await waitFor("first TUI exit", () => !pidAlive(tui.tuiPid));
    return { sessionId: tui.sessionId, tuiPid: tui.tuiPid, leaderPid };
  } finally {
    await tui.stop();
  }
}

interface Pane {
  tuiPid: number;
  socketPath: string;
  lockPath: string;
  screen(): string;
  waitScreen(pattern: string, timeoutMs?: number): Promise<string>;
  type(text: string): void;
  leaderPid(): Promise<number>;
  stop(): Promise<void>;
}

function isSimLeader(pid: number): boolean {
  try {
    const argv = cmdline(pid);
    return argv[0] === grok && argv[1] === "agent" && argv[2] === "leader";
  } catch {
    return false;
  }
}

/** `grok --leader --leader-socket <sock> <args…>` as the argv command of a private tmux server. */
async function launchTui(
  home: GrokHomeFixture,
  cwd: string,
  args: string[],
  env: Record<string, string>,
): Promise<Pane> {
  const server = `grok-resume-${process.pid}-${randomUUID().slice(0, 8)}`;
  const socketPath = join(home.dir, `r-${randomUUID().slice(0, 8)}.sock`);
  const lockPath = socketPath.replace(/\.sock$/, ".lock");
  const tmux = (a: string[]): string => {
    const r = spawnSync("tmux", ["-L", server, "-f", "/dev/null", ...a], {
      encoding: "utf8",
      env: simEnv(home.dir, env),
    });
    if (r.status !== 0) throw new Error(`tmux ${a.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  const leaders = new Set<number>();
  let tuiPid = 0;
  const stop = async (): Promise<void> => {
    const current = readLockPid(lockPath);
    if (current !== undefined && isSimLeader(current)) leaders.add(current);
    for (const pid of [tuiPid, ...leaders]) {
      try {
        if (pid > 1) process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    spawnSync("tmux", ["-L", server, "kill-server"], { stdio: "ignore" });
    await waitFor("resumed TUI and its leader to exit", () =>
      [tuiPid, ...leaders].every((p) => p === 0 || !pidAlive(p)),
    ).catch(() => undefined);
  };
  try {
    const argv = [grok, "--leader", "--leader-socket", socketPath, ...args];
    tmux(["new-session", "-d", "-s", "sim", "-x", "160", "-y", "48", "-c", cwd, "--", ...argv]);
    tuiPid = await waitFor("tmux pane pid", () => {
      const out = tmux(["list-panes", "-t", "sim", "-F", "#{pane_pid}"]).trim();
      return /^\d+$/.test(out) ? Number(out) : undefined;
    });
  } catch (err) {
    await stop();
    throw err;
  }
  const screen = (): string => tmux(["capture-pane", "-p", "-t", "sim"]);
  return {
    tuiPid,
    socketPath,
    lockPath,
    screen,
    waitScreen: (pattern, timeoutMs = 20_000) =>
      waitFor(
        `screen to show ${pattern}`,
        () => (screen().includes(pattern) ? screen() : false),
        timeoutMs,
      ),
    type: (text) => {
      tmux(["send-keys", "-t", "sim", "-l", text]);
      tmux(["send-keys", "-t", "sim", "Enter"]);
    },
    leaderPid: () =>
      waitFor("the resumed TUI's leader", () => {
        const pid = readLockPid(lockPath);
        if (pid === undefined || !pidAlive(pid) || !existsSync(socketPath)) return undefined;
        leaders.add(pid);
        return pid;
      }),
    stop,
  };
}

/** Run the simulator to completion (for startups refused before any terminal or leader). */
function runGrok(
  home: GrokHomeFixture,
  cwd: string,
  args: string[],
): { status: number | null; stderr: string } {
  const r = spawnSync(grok, args, {
    cwd,
    env: simEnv(home.dir),
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: r.status, stderr: r.stderr };
}

interface ResumeCtx {
  readonly home: GrokHomeFixture;
  /** The GROK_SIM_LOG trace every simulator process of the test writes, beside GROK_HOME. */
  readonly log: string;
  /** home.cwd resolved, as the session tree and active_sessions.json name it. */
  readonly cwd: string;
  /** A TUI from `launchTui` tracing to `log`; stopped after the test. */
  launch(cwd: string, args: string[]): Promise<Pane>;
}

/** A fresh GROK_HOME; every pane launched in it is stopped and the home removed after `fn`. */
async function withResumeHome(fn: (ctx: ResumeCtx) => Promise<void>): Promise<void> {
  const home = grokHomeFixture();
  const log = join(home.dir, "..", "trace.jsonl");
  const panes: Pane[] = [];
  const launch = async (cwd: string, args: string[]): Promise<Pane> => {
    const pane = await launchTui(home, cwd, args, { GROK_SIM_LOG: log });
    panes.push(pane);
    return pane;
  };
  try {
    await fn({ home, log, cwd: realpathSync(home.cwd), launch });
  } finally {
    for (const p of panes) await p.stop();
    home.remove();
  }
}

test("--resume <id> loads the persisted session: one session/load, its history, a new active_sessions entry", async () => {
  await withResumeHome(async ({ home, log, cwd, launch }) => {
    const first = await persistedSession(home, log, "P-first");
    const sid = first.sessionId;
    // What the first TUI left on disk: the session directory with its durable records.
    const dir = sessionDir(home.dir, cwd, sid);
    assert.ok(existsSync(join(dir, "summary.json")), `${dir}/summary.json`);
    assert.equal(turnCompleted(home.dir, cwd, sid), ["P-first"]);
    assert.ok(!activeSessions(home.dir).some((e) => e.session_id === sid), "the quit unregistered");
    const created = acpFromClients(log, "grok-shell").find((m) => m.method === "session/new");

    const pane = await launch(cwd, ["--resume", sid]);
    const leader = await pane.leaderPid();
    const screen = await pane.waitScreen("session ready");
    assert.ok(screen.includes(sid), "the header names the resumed session");
    assert.ok(screen.includes("first turn P-first"), "the replayed prompt is on screen");
    assert.ok(screen.includes("Simulated reply"), "the replayed reply is on screen");

    // The TUI's requests at its own (new) leader: initialize, authenticate, one session/load.
    const sent = acpFromClients(log, "grok-shell", leader);
    assert.equal(
      sent.map((m) => m.method),
      ["initialize", "authenticate", "session/load"],
      "no session/new on resume",
    );
    const load = sent[2];
    assert.is(get(load, "params", "sessionId"), sid);
    assert.is(get(load, "params", "cwd"), cwd);
    assert.equal(
      get(load, "params", "mcpServers"),
      get(created, "params", "mcpServers"),
      "the config's MCP servers, as on session/new",
    );
    assert.ok(Array.isArray(get(load, "params", "mcpServers")));
    assert.equal(get(load, "params", "_meta"), { yoloMode: false, autoMode: false });

    // Pushed after the load: the new TUI's pid, the session's cwd.
    const entry = await waitFor("the resumed TUI's active_sessions entry", () =>
      activeSessions(home.dir).find((e) => e.session_id === sid),
    );
    assert.is(entry.pid, pane.tuiPid);
    assert.is.not(entry.pid, first.tuiPid);
    assert.is(entry.cwd, cwd);
    if (linux) {
      assert.is(stat(leader).ppid, pane.tuiPid, "a new leader, the resumed TUI's child");
      assert.is.not(leader, first.leaderPid);
    }

    // Another client sees the same history at the new leader and can prompt the session again.
    const c = await acpClient(pane.socketPath, "sim-test");
    const loaded = await c.request("session/load", { sessionId: sid, cwd, mcpServers: [] });
    assert.is(get(loaded, "result", "_meta", "sessionId"), sid);
    const replayed = c.updates("turn_completed");
    assert.equal(
      replayed.map((m) => [
        get(m, "params", "update", "prompt_id"),
        get(m, "params", "_meta", "isReplay"),
      ]),
      [["P-first", true]],
    );
    const again = await c.request(
      "session/prompt",
      promptParams(sid, "second turn", { promptId: "P-second" }),
    );
    assert.is(get(again, "result", "stopReason"), "end_turn");
    c.destroy();
    assert.equal(
      turnCompleted(home.dir, cwd, sid),
      ["P-first", "P-second"],
      "one history, appended",
    );
    await pane.waitScreen("second turn");

    pane.type("/quit");
    await waitFor("resumed TUI exit", () => !pidAlive(pane.tuiPid));
    assert.ok(!activeSessions(home.dir).some((e) => e.session_id === sid), "unregistered again");
  });
});

test("-c/--continue loads the newest session of the cwd; --load <id> from another cwd uses the session's own cwd", async () => {
  const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), "grok-resume-other-")));
  await withResumeHome(async ({ home, log, cwd, launch }) => {
    const older = await persistedSession(home, log, "P-older");
    const newer = await persistedSession(home, log, "P-newer");

    const cont = await launch(cwd, ["-c"]);
    await cont.waitScreen("session ready");
    const contEntry = await waitFor("entry of the -c TUI", () =>
      activeSessions(home.dir).find((e) => e.pid === cont.tuiPid),
    );
    assert.is(contEntry.session_id, newer.sessionId);
    assert.ok(cont.screen().includes("first turn P-newer"));

    const other = await launch(elsewhere, ["--load", older.sessionId]);
    const leader = await other.leaderPid();
    await other.waitScreen("session ready");
    const load = acpFromClients(log, "grok-shell", leader).find((m) => m.method === "session/load");
    assert.is(get(load, "params", "cwd"), cwd, "the load names the session's original cwd");
    const otherEntry = await waitFor("entry of the --load TUI", () =>
      activeSessions(home.dir).find((e) => e.pid === other.tuiPid),
    );
    assert.equal(
      [otherEntry.session_id, otherEntry.cwd],
      [older.sessionId, cwd],
      "registered with the session's cwd, not the launch directory",
    );
    assert.ok(
      !existsSync(join(home.dir, "sessions", encodeCwd(elsewhere))),
      "nothing was created under the launch directory",
    );
  }).finally(() => rmSync(elsewhere, { recursive: true, force: true }));
});

test("refused before anything starts: unknown id, no session in the cwd, --session-id without --fork-session", async () => {
  await withResumeHome(async ({ home, cwd }) => {
    const sock = join(home.dir, "never.sock");
    const base = ["--leader", "--leader-socket", sock];
    const unknown = randomUUID();
    const cases: [string[], number, string][] = [
      [["--resume", unknown], 1, "Error: Session does not exist\n"],
      [["-r", unknown], 1, "Error: Session does not exist\n"],
      [
        ["--resume", "my old chat"],
        1,
        'Error: Session does not exist: no session id or title matched "my old chat" for this directory; try `grok sessions search "my old chat"`\n',
      ],
      [
        ["--continue"],
        1,
        "Error: No session found for current directory. Use 'grok' to start a new session.\n",
      ],
      [
        ["--resume"],
        1,
        "Error: No session found for current directory. Use 'grok' to start a new session.\n",
      ],
      [
        ["--resume", unknown, "--session-id", randomUUID()],
        1,
        "Error: Error: --session-id can only be used with --continue or --resume if --fork-session is also specified.\n",
      ],
      [
        ["-c", "-s", randomUUID()],
        1,
        "Error: Error: --session-id can only be used with --continue or --resume if --fork-session is also specified.\n",
      ],
      [["--fork-session"], 1, "Error: Error: --fork-session requires --resume or --continue.\n"],
    ];
    for (const [args, status, stderr] of cases) {
      const r = runGrok(home, cwd, [...base, ...args]);
      assert.is(r.status, status, `${args.join(" ")}: ${r.stderr}`);
      assert.is(r.stderr, stderr, args.join(" "));
    }
    // clap: --continue conflicts with --resume/--load (usage error, exit 2).
    for (const args of [
      ["-c", "--resume", unknown],
      ["--load", unknown, "--continue"],
    ]) {
      const r = runGrok(home, cwd, [...base, ...args]);
      assert.is(r.status, 2, args.join(" "));
      assert.match(r.stderr, /^error: the argument '.+' cannot be used with '.+'/);
    }
    assert.ok(!existsSync(sock), "no leader was started");
    assert.ok(!existsSync(join(home.dir, "sessions")), "no session was created");
    assert.equal(activeSessions(home.dir), []);
  });
});

test("--fork-session is validated like the real flags, then refused as not simulated", async () => {
  await withResumeHome(async ({ home, log, cwd }) => {
    const { sessionId } = await persistedSession(home, log, "P-fork");
    const sock = join(home.dir, "fork.sock");
    const forkArgs = ["--leader", "--leader-socket", sock, "--resume", sessionId, "--fork-session"];
    const taken = runGrok(home, cwd, [...forkArgs, "--session-id", sessionId]);
    assert.is(taken.status, 1);
    assert.is(taken.stderr, `Error: Error: Session ID ${sessionId} is already in use.\n`);
    const fork = runGrok(home, cwd, forkArgs);
    assert.is(fork.status, 2);
    assert.match(fork.stderr, /not simulated/);
    assert.ok(!existsSync(sock), "no leader was started");
  });
});

test("a load the agent refuses leaves the TUI open with no session and no active_sessions entry", async () => {
  await withResumeHome(async ({ home, log, cwd, launch }) => {
    const { sessionId } = await persistedSession(home, log, "P-broken");
    // summary.json is still a file (so startup finds the session) but no longer JSON.
    writeFileSync(join(sessionDir(home.dir, cwd, sessionId), "summary.json"), "{");
    const pane = await launch(cwd, ["--resume", sessionId]);
    const leader = await pane.leaderPid();
    await pane.waitScreen("Couldn't load session");
    assert.ok(pane.screen().includes("session load failed"));
    assert.ok(pidAlive(pane.tuiPid), "the TUI stays open");
    const sent = acpFromClients(log, "grok-shell", leader).map((m) => m.method);
    assert.equal(sent, ["initialize", "authenticate", "session/load"]);
    assert.ok(
      !activeSessions(home.dir).some((e) => e.session_id === sessionId),
      "no entry without a loaded session",
    );
  });
});

test.run();
