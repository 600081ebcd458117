// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
// workspace.create, tab.create and layout.apply on real terminals: the argv is the pane's own
// process (shell_pid is what `ps` shows for the command, its tty is the tmux pane's), the
// environment and cwd are Herdr's, validation errors carry Herdr's codes.
import { readlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { environ } from "../../kernel-oracles.js";
import { at, call, type Json, rpc, sh, simPerFile, subscribeStream } from "./support.js";

const herdr = simPerFile(test, {
  tmpPrefix: "herdr-sim-work-",
  env: { CODEX_THREAD_ID: "thread-from-server" },
  switches: { detectMs: 200 },
  workspace: false,
});

test('layout.apply before any workspace: workspace_not_found "no active workspace"', async () => {
  assert.is(
    await rpc(herdr.sim.socketPath, "l0", "layout.apply", {
      root: { type: "pane", command: ["grok"] },
    }),
    `{"id":"l0","error":{"code":"workspace_not_found","message":"no active workspace"}}`,
  );
});

test("workspace.create starts a shell in w1 and answers workspace/tab/root_pane", async () => {
  const r = await call(herdr.sim.socketPath, "workspace.create", {
    cwd: herdr.work,
    label: "seat",
    focus: true,
  });
  assert.is(at(r, "result.type"), "workspace_created");
  assert.is(at(r, "result.workspace.workspace_id"), "w1");
  assert.is(at(r, "result.workspace.label"), "seat");
  assert.is(at(r, "result.tab.tab_id"), "w1:t1");
  assert.is(at(r, "result.root_pane.pane_id"), "w1:p1");
  assert.is(at(r, "result.root_pane.cwd"), herdr.work);
  assert.ok(String(at(r, "result.root_pane.terminal_id")).startsWith("term_"));
});

test("layout.apply runs the argv directly: shell_pid is the command, its tty is the tmux pane's", async () => {
  const r = await call(herdr.sim.socketPath, "layout.apply", {
    workspace_id: "w1",
    tab_label: "leader",
    focus: true,
    root: {
      type: "pane",
      label: "grok leader",
      cwd: herdr.work,
      command: ["grok", "--leader"],
      env: { HERDR_AGENT_HINT: "x", HERDR_PANE_ID: "spoofed", CODEX_THREAD_ID: "mine" },
    },
  });
  assert.is(
    JSON.stringify(at(r, "result")),
    `{"type":"layout_apply","layout":{"workspace_id":"w1","tab_id":"w1:t2","zoomed":false,"focused_pane_id":"w1:p2","root":{"type":"pane","pane_id":"w1:p2","label":"grok leader","cwd":"${herdr.work}","command":["grok","--leader"]}}}`,
  );
  const info = await call(herdr.sim.socketPath, "pane.process_info", { pane_id: "w1:p2" });
  const pid = Number(at(info, "result.process_info.shell_pid"));
  assert.is(at(info, "result.process_info.tty"), undefined, "Herdr never fills tty");
  const psOut = (await sh("ps", ["-o", "pid=,comm=,tty=", "-p", String(pid)])).trim().split(/\s+/);
  assert.equal(psOut.slice(0, 2), [String(pid), "grok"]);
  const paneTty = (
    await sh("tmux", [
      "-L",
      herdr.sim.tmuxSocket,
      "list-panes",
      "-a",
      "-F",
      "#{pane_pid} #{pane_tty}",
    ])
  )
    .split("\n")
    .find((l) => l.startsWith(`${pid} `))
    ?.split(" ")[1];
  assert.is(`/dev/${psOut[2]}`, paneTty);
  assert.is(readlinkSync(`/proc/${pid}/fd/0`), paneTty);
  assert.is(readlinkSync(`/proc/${pid}/cwd`), herdr.work);
  const leader = at(info, "result.process_info.foreground_processes.0") as { [k: string]: Json };
  assert.is(leader.pid, pid);
  assert.is(leader.name, "grok");
  assert.equal(
    leader.argv,
    ["/bin/sh", join(herdr.grokDir, "grok"), "--leader"],
    "the kernel's argv of a script",
  );
  assert.is(leader.argv0, undefined);
  assert.is(at(info, "result.process_info.foreground_process_group_id"), pid);

  const env = environ(pid);
  assert.is(env.get("HERDR_ENV"), "1");
  assert.is(env.get("HERDR_SOCKET_PATH"), herdr.sim.socketPath);
  assert.is(env.get("HERDR_WORKSPACE_ID"), "w1");
  assert.is(env.get("HERDR_TAB_ID"), "w1:t2");
  assert.is(env.get("HERDR_PANE_ID"), "w1:p2", "Herdr's identity wins over the caller's");
  assert.is(env.get("HERDR_AGENT_HINT"), "x");
  assert.is(
    env.get("CODEX_THREAD_ID"),
    "mine",
    "the caller may set it; the server's own is removed",
  );
  assert.is(env.get("TERM"), "xterm-256color");
  assert.ok(env.get("HERDR_BIN_PATH")?.endsWith("/herdr"));
  assert.is(env.get("TMUX"), undefined);
  assert.is(env.get("TMUX_PANE"), undefined);
});

test("the server's CODEX_THREAD_ID never reaches a pane on its own", async () => {
  const r = await call(herdr.sim.socketPath, "tab.create", { workspace_id: "w1", cwd: herdr.work });
  assert.is(at(r, "result.type"), "tab_created");
  assert.is(at(r, "result.tab.tab_id"), "w1:t3");
  const paneId = String(at(r, "result.root_pane.pane_id"));
  assert.is(paneId, "w1:p3");
  const info = await call(herdr.sim.socketPath, "pane.process_info", { pane_id: paneId });
  const env = environ(Number(at(info, "result.process_info.shell_pid")));
  assert.is(env.get("CODEX_THREAD_ID"), undefined);
  assert.is(env.get("HERDR_PANE_ID"), "w1:p3");
  await call(herdr.sim.socketPath, "pane.close", { pane_id: paneId });
});

test("layout.apply validation: Herdr's codes and messages", async () => {
  const cases: Array<[unknown, string]> = [
    [
      { tab_id: "w1:t9", root: { type: "pane" } },
      `{"code":"tab_not_found","message":"tab w1:t9 not found"}`,
    ],
    [
      { tab_id: "w1:t1", workspace_id: "w1", root: { type: "pane" } },
      `{"code":"invalid_target","message":"use either tab_id or workspace_id, not both"}`,
    ],
    [
      { workspace_id: "w7", root: { type: "pane" } },
      `{"code":"workspace_not_found","message":"workspace w7 not found"}`,
    ],
    [
      { root: { type: "pane", command: [] } },
      `{"code":"invalid_layout","message":"pane command must not be empty"}`,
    ],
    [
      { root: { type: "pane", env: { "A=B": "1" } } },
      `{"code":"invalid_layout","message":"env key A=B must not contain '='"}`,
    ],
    [
      { root: { type: "pane", env: { "": "1" } } },
      `{"code":"invalid_layout","message":"env key must not be empty"}`,
    ],
  ];
  for (const [params, error] of cases) {
    assert.is(
      await rpc(herdr.sim.socketPath, "v", "layout.apply", params),
      `{"id":"v","error":${error}}`,
    );
  }
  const missing = await call(herdr.sim.socketPath, "layout.apply", {
    root: { type: "pane", command: ["no-such-program-xyz"] },
  });
  assert.is(at(missing, "error.code"), "layout_apply_failed");
  assert.ok(
    String(at(missing, "error.message")).startsWith(
      "Unable to spawn no-such-program-xyz because:\n",
    ),
  );
  assert.ok(String(at(missing, "error.message")).includes("No viable candidates found in PATH"));
  const env = await call(herdr.sim.socketPath, "tab.create", { env: { "A=B": "1" } });
  assert.equal(at(env, "error"), {
    code: "invalid_env",
    message: "env key A=B must not contain '='",
  });
});

test("layout.apply on a tab_id replaces that tab: tab_closed, then the new tab with the next number", async () => {
  const made = await call(herdr.sim.socketPath, "tab.create", {
    workspace_id: "w1",
    cwd: herdr.work,
  });
  const oldTab = String(at(made, "result.tab.tab_id"));
  const stream = subscribeStream(herdr.sim.socketPath, "sub-r", [{ type: "tab.closed" }]);
  await stream.waitLine((l) => l.includes("subscription_started"));
  const r = await call(herdr.sim.socketPath, "layout.apply", {
    tab_id: oldTab,
    root: {
      type: "split",
      direction: "right",
      ratio: 0.6,
      first: { type: "pane", command: ["grok"], label: "left" },
      second: { type: "pane", command: ["sleep", "600"], cwd: herdr.work },
    },
  });
  assert.is(at(r, "result.layout.root.type"), "split");
  assert.is(at(r, "result.layout.root.ratio"), 0.6);
  assert.match(JSON.stringify(at(r, "result.layout.root")), /"ratio":0\.6,/);
  assert.is(at(r, "result.layout.root.first.label"), "left");
  assert.equal(at(r, "result.layout.root.second.command"), ["sleep", "600"]);
  const closed = await stream.waitLine((l) => l.includes("tab_closed"));
  assert.is(
    closed,
    `{"data":{"tab_id":"${oldTab}","type":"tab_closed","workspace_id":"w1"},"event":"tab_closed"}`,
  );
  stream.close();
  const tabs = await call(herdr.sim.socketPath, "tab.list", { workspace_id: "w1" });
  const ids = (at(tabs, "result.tabs") as Array<{ [k: string]: Json }>).map((t) => t.tab_id);
  assert.not.ok(ids.includes(oldTab));
  const tmuxPanes = (
    await sh("tmux", [
      "-L",
      herdr.sim.tmuxSocket,
      "list-panes",
      "-t",
      "w1",
      "-a",
      "-F",
      "#{pane_pid}",
    ])
  )
    .trim()
    .split("\n");
  const newTabPanes = at(r, "result.layout.root.first.pane_id");
  const pi = await call(herdr.sim.socketPath, "pane.process_info", {
    pane_id: String(newTabPanes),
  });
  assert.ok(tmuxPanes.includes(String(at(pi, "result.process_info.shell_pid"))));
});

test("pane.current and pane.list follow focus; PaneInfo has no pid or tty", async () => {
  const cur = await call(herdr.sim.socketPath, "pane.current", {});
  assert.is(at(cur, "result.type"), "pane_current");
  assert.is(at(cur, "result.pane.focused"), true);
  const list = await call(herdr.sim.socketPath, "pane.list", {});
  for (const pane of at(list, "result.panes") as Array<{ [k: string]: Json }>) {
    assert.is(pane.pid, undefined);
    assert.is(pane.tty, undefined);
    assert.is(pane.shell_pid, undefined);
  }
  assert.is(
    await rpc(herdr.sim.socketPath, "c", "pane.current", { caller_pane_id: "w1:p99" }),
    `{"id":"c","error":{"code":"pane_not_found","message":"pane not found"}}`,
  );
});

test.run();
