// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * Fault switches (test/sim/grok/README.md) and leader death (docs/design/grok-leader-protocol.md §1, §13;
 * fixture 19): a crash mid-prompt leaves stale socket and lock files and the TUI respawns a
 * leader with a new pid at the same path; SIGTERM exits without cleanup; dropped connection
 * after a prompt; delayed acknowledgments; an imposter listener; auto-update shutdown;
 * active_sessions.json faults; a TUI that exits on its own; the GROK_SIM_LOG ground truth.
 */
import { existsSync, readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim, pidAlive, readLockPid, waitFor } from "../../../helpers/grok-sim.js";
import {
  acpClient,
  traceEvents,
  withSimLeader,
  withSimTui,
} from "../../../helpers/grok-sim-clients.js";
import { hasSocket, listeningInodes, stat } from "../../kernel-oracles.js";
import { get, promptParams, RawClient, registeredUntilClosed } from "./raw.js";

const linux = process.platform === "linux";

test.before(async () => {
  await ensureGrokSim();
});

test("crash mid-prompt: EOF without shutdown, stale .sock/.lock, then the TUI respawns a new leader", async () => {
  await withSimTui({ env: { GROK_SIM_CRASH_AFTER_CHUNKS: "2" } }, async ({ tui, home }) => {
    const first = await tui.leaderPid();
    await tui.sessionReady();
    const c = await acpClient(tui.paths.socketPath, "my-lib");
    await c.request("session/resume", { sessionId: tui.sessionId, cwd: home.cwd, mcpServers: [] });
    c.sendPrompt(1, tui.sessionId, "crash please", { promptId: "P-crash" });
    await c.waitClosed(10_000);
    assert.ok(!c.frames.some((f) => f.json.type === "shutdown" || f.json.type === "shutting_down"));
    assert.ok(!c.acp().some((m) => m.id === 1), "no response for the prompt");
    await waitFor("leader death", () => !pidAlive(first));
    const second = await waitFor(
      "replacement leader",
      () => {
        const pid = readLockPid(tui.paths.lockPath);
        return pid !== undefined && pid !== first && pidAlive(pid) ? pid : undefined;
      },
      20_000,
    );
    assert.is.not(second, first);
    if (linux) assert.is(stat(second).ppid, tui.tuiPid, "the TUI spawned the replacement");
    await tui.waitForScreen("reconnecting");
    // The durable transcript kept the user echo (written as soon as the first chunk displaced it
    // from the persistence merge buffer) but none of the streamed text: the chunks were still
    // being merged in that buffer, which died with the process (persistence.rs
    // maybe_merge_notification; nothing flushes on SIGKILL).
    // The lock names the new pid before the new leader has bound its socket (it unlinks the stale
    // file first), so connecting can briefly meet ENOENT: retry until it listens.
    const r = await waitFor("the replacement leader's socket", () =>
      acpClient(tui.paths.socketPath, "my-lib"),
    );
    await r.request("session/load", { sessionId: tui.sessionId, cwd: home.cwd, mcpServers: [] });
    const kinds = r
      .acp()
      .filter((m) => m.method === "session/update")
      .map((m) => get(m, "params", "update", "sessionUpdate"));
    assert.equal(kinds, ["user_message_chunk"], JSON.stringify(kinds));
    assert.ok(
      !r.acp().some((m) => get(m, "params", "update", "sessionUpdate") === "turn_completed"),
    );
    r.destroy();
  });
});

test("SIGTERM: exit 143 with no cleanup, the socket and lock files stay behind", async () => {
  await withSimLeader({}, async ({ leader }) => {
    process.kill(leader.pid, "SIGTERM");
    await waitFor("exit", () => leader.child.exitCode !== null);
    assert.is(leader.child.exitCode, 143);
    assert.ok(existsSync(leader.paths.socketPath), "stale socket");
    assert.is(
      readFileSync(leader.paths.lockPath, "utf8"),
      String(leader.pid),
      "stale lock with the dead pid",
    );
  });
});

test("drop after prompt: the connection closes once the prompt was read; the turn still completes, once", async () => {
  await withSimLeader(
    { env: { GROK_SIM_DROP_AFTER_PROMPT: "1" } },
    async ({ leader, home, log }) => {
      const c = await acpClient(leader.paths.socketPath, "my-lib");
      const sid = "0198b0c2-0000-7000-8000-000000000001";
      await c.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: sid } });
      c.sendPrompt(1, sid, "[[sim:sleep=300]] dropped", { promptId: "P-drop" });
      await c.waitClosed();
      const r = await acpClient(leader.paths.socketPath, "my-lib");
      await waitFor("turn completed on disk", async () => {
        const res = await r.request("session/load", {
          sessionId: sid,
          cwd: home.cwd,
          mcpServers: [],
          _meta: { noReplay: false },
        });
        return (
          res.result !== undefined &&
          r
            .acp()
            .some(
              (m) =>
                get(m, "params", "update", "sessionUpdate") === "turn_completed" &&
                get(m, "params", "update", "prompt_id") === "P-drop",
            )
        );
      });
      const events = traceEvents(log);
      const promptFrames = events.filter(
        (e) => e.event === "frame_in" && JSON.stringify(e.frame).includes("P-drop"),
      );
      assert.is(promptFrames.length, 1, "the prompt frame was received exactly once");
      assert.is(events.filter((e) => e.event === "prompt" && e.promptId === "P-drop").length, 1);
      r.destroy();
    },
  );
});

test("ack delay: queue/changed for a prompt arrives after its first streamed chunk", async () => {
  await withSimLeader({ env: { GROK_SIM_ACK_DELAY_MS: "400" } }, async ({ leader, home }) => {
    const c = await acpClient(leader.paths.socketPath, "my-lib");
    const sid = "0198b0c2-0000-7000-8000-000000000002";
    await c.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: sid } });
    await c.request("session/prompt", promptParams(sid, "slow acks", { promptId: "P-ack" }));
    await c.nextAcp(
      (m) => m.method === "_x.ai/queue/changed" && get(m, "params", "runningPromptId") === "P-ack",
      5000,
    );
    const msgs = c.acp();
    const firstChunk = msgs.findIndex((m) => m.method === "session/update");
    const firstQueue = msgs.findIndex((m) => m.method === "_x.ai/queue/changed");
    assert.ok(firstChunk >= 0 && firstQueue > firstChunk, `${firstChunk} < ${firstQueue}`);
    c.destroy();
  });
});

test("imposter: another process owns the listening socket at the path and reports the leader's pid", async () => {
  if (!linux) {
    console.log("SKIP: /proc/net/unix oracle is Linux-only");
    return;
  }
  await withSimLeader({ env: { GROK_SIM_IMPOSTER: "1" } }, async ({ leader, log }) => {
    const imposterPid = await waitFor("imposter listening", () => {
      const e = traceEvents(log).find((ev) => ev.event === "imposter_listening");
      return typeof e?.pid === "number" ? e.pid : undefined;
    });
    assert.is.not(imposterPid, leader.pid);
    const inodes = listeningInodes(leader.paths.socketPath);
    assert.is(inodes.length, 2, "two listeners were bound under the path");
    assert.ok(inodes.some((i) => hasSocket(leader.pid, i) && !hasSocket(imposterPid, i)));
    assert.ok(inodes.some((i) => hasSocket(imposterPid, i) && !hasSocket(leader.pid, i)));
    const c = await RawClient.open(leader.paths.socketPath);
    await c.register("my-lib");
    c.send({ type: "control", request_id: "1", command: { type: "get_leader_info" } });
    const info = await c.next((f) => f.json.type === "control_result");
    assert.is(
      get(info.json, "result", "Ok", "pid"),
      leader.pid,
      "the imposter claims the leader's pid",
    );
    assert.ok(
      traceEvents(log).some((e) => e.event === "imposter_frame_in"),
      "the path leads to the imposter",
    );
    c.destroy();
  });
});

test("auto-update after N ms: shutting_down{auto_update}, shutdown, EOF; files removed", async () => {
  await withSimLeader({ env: { GROK_SIM_AUTO_UPDATE_AFTER_MS: "800" } }, async ({ leader }) => {
    const c = await registeredUntilClosed(leader.paths.socketPath, "my-lib", 10_000);
    assert.equal(
      c.frames.slice(-2).map((f) => f.text),
      ['{"type":"shutting_down","reason":"auto_update","delay_ms":0}', '{"type":"shutdown"}'],
    );
    await waitFor("exit", () => leader.child.exitCode !== null);
    assert.ok(!existsSync(leader.paths.socketPath) && !existsSync(leader.paths.lockPath));
  });
});

test("active_sessions.json faults: corrupt leaves unparseable bytes, skip writes nothing", async () => {
  for (const [flag, expect] of [
    ["GROK_SIM_CORRUPT_ACTIVE_SESSIONS", "corrupt"],
    ["GROK_SIM_SKIP_ACTIVE_SESSIONS", "absent"],
  ] as const) {
    await withSimTui({ env: { [flag]: "1" } }, async ({ tui }) => {
      await tui.leaderPid();
      await tui.sessionReady();
      if (expect === "absent") {
        // collect_crashed at every grok start rewrites the file ("[]"); our entry never appears.
        const text = existsSync(tui.paths.activeSessions)
          ? readFileSync(tui.paths.activeSessions, "utf8")
          : "[]";
        assert.ok(!text.includes(tui.sessionId));
        assert.equal(JSON.parse(text), []);
      } else {
        assert.throws(() => JSON.parse(readFileSync(tui.paths.activeSessions, "utf8")));
      }
    });
  }
});

test("GROK_SIM_TUI_EXIT_AFTER_MS: the TUI leaves on its own, the leader stays", async () => {
  await withSimTui({ env: { GROK_SIM_TUI_EXIT_AFTER_MS: "1500" } }, async ({ tui }) => {
    const leader = await tui.leaderPid();
    await waitFor("TUI exit", () => !pidAlive(tui.tuiPid), 10_000);
    assert.ok(pidAlive(leader));
  });
});

test.run();
