// @platform linux: uses the Herdr simulator, whose panes read /proc
// @herdr-presets: 0.8.0, 0.9.3
// The input-injection methods work and are logged (so a client test can prove it never used
// them); connection faults (close before reply, oversized and malformed lines, slow replies) and
// the test-only control method that is absent without --test-control.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { at, call, exchange, rpc, simPerFile, waitFor } from "./support.js";

const herdr = simPerFile(test, {
  tmpPrefix: "herdr-sim-inj-",
  // A shell without rc files: the environment's interactive bash may take seconds to start.
  env: { SHELL: "/bin/sh" },
  switches: { detectMs: 100 },
});

test("nothing is logged for ordinary methods", async () => {
  await call(herdr.sim.socketPath, "pane.list", {});
  await call(herdr.sim.socketPath, "pane.report_agent", {
    pane_id: "w1:p1",
    source: "custom:x",
    agent: "a",
    state: "idle",
  });
  assert.equal(await herdr.sim.injectionLog(), []);
});

test("pane.send_text and pane.send_keys reach the pane's process, and are logged", async () => {
  const out = join(herdr.work, "typed.txt");
  const r = await call(herdr.sim.socketPath, "layout.apply", {
    workspace_id: "w1",
    root: {
      type: "pane",
      cwd: herdr.work,
      command: ["/bin/sh", "-c", `IFS= read -r line; printf '%s' "$line" > '${out}'; sleep 600`],
    },
  });
  const paneId = String(at(r, "result.layout.root.pane_id"));
  assert.is(
    await rpc(herdr.sim.socketPath, "s1", "pane.send_text", {
      pane_id: paneId,
      text: "hello there",
    }),
    `{"id":"s1","result":{"type":"ok"}}`,
  );
  assert.is(
    await rpc(herdr.sim.socketPath, "s2", "pane.send_keys", { pane_id: paneId, keys: ["enter"] }),
    `{"id":"s2","result":{"type":"ok"}}`,
  );
  await waitFor(
    () => existsSync(out) && readFileSync(out, "utf8") === "hello there",
    10000,
    "typed line",
  );
  assert.is(
    await rpc(herdr.sim.socketPath, "s3", "pane.send_keys", { pane_id: paneId, keys: ["hyper+q"] }),
    `{"id":"s3","error":{"code":"invalid_key","message":"unsupported key hyper+q"}}`,
  );
  await call(herdr.sim.socketPath, "pane.send_input", {
    pane_id: paneId,
    text: "x",
    keys: ["ctrl+c"],
  });
  const log = await herdr.sim.injectionLog();
  assert.equal(
    log.map((e) => [e.method, e.id]),
    [
      ["pane.send_text", "s1"],
      ["pane.send_keys", "s2"],
      ["pane.send_keys", "s3"],
      ["pane.send_input", "t"],
    ],
  );
  assert.equal(log[0]?.params, { pane_id: paneId, text: "hello there" });
});

test("agent.start types the agent command into an idle shell; agent.prompt needs a known agent", async () => {
  const shell = String(
    at(
      await call(herdr.sim.socketPath, "tab.create", { workspace_id: "w1", cwd: herdr.work }),
      "result.root_pane.pane_id",
    ),
  );
  const started = await call(herdr.sim.socketPath, "agent.start", {
    name: "lead",
    kind: "grok",
    pane_id: shell,
    args: ["--leader"],
  });
  assert.is(at(started, "result.type"), "agent_started");
  assert.equal(at(started, "result.argv"), ["grok", "--leader"]);
  assert.is(at(started, "result.agent.name"), "lead");
  // The typed command runs grok in the shell; process detection then names it.
  await waitFor(
    async () =>
      at(await call(herdr.sim.socketPath, "pane.get", { pane_id: shell }), "result.pane.agent") ===
      "grok",
    15000,
    "grok started by typed input",
  );
  const prompted = await call(herdr.sim.socketPath, "agent.prompt", { target: shell, text: "hi" });
  assert.is(at(prompted, "result.type"), "agent_prompted");
  assert.is(
    await rpc(herdr.sim.socketPath, "ap", "agent.prompt", { target: "w1:p99", text: "hi" }),
    `{"id":"ap","error":{"code":"agent_not_found","message":"agent target w1:p99 not found"}}`,
  );
  const methods = (await herdr.sim.injectionLog()).map((e) => e.method);
  assert.ok(methods.includes("agent.start") && methods.includes("agent.prompt"));
});

test("connection faults: close before reply, malformed line, oversized line, slow reply", async () => {
  const ping = `{"id":"f","method":"ping","params":{}}\n`;
  await herdr.sim.configure({ closeBeforeReply: true, faultMethods: ["ping"] });
  const closed = await exchange(herdr.sim.socketPath, ping);
  assert.is(closed.data, "");
  assert.ok(closed.closed);
  assert.ok(
    (await rpc(herdr.sim.socketPath, "l", "pane.list", {})).includes("pane_list"),
    "other methods unaffected",
  );
  await herdr.sim.configure({ closeBeforeReply: false, malformedReply: true });
  assert.is((await exchange(herdr.sim.socketPath, ping)).data, `{"id":"f","result":{"type":\n`);
  await herdr.sim.configure({ malformedReply: false, oversizedReplyBytes: 2 * 1024 * 1024 });
  const big = (await exchange(herdr.sim.socketPath, ping)).data;
  assert.ok(big.length > 2 * 1024 * 1024);
  const parsed: unknown = JSON.parse(big);
  assert.is(at(parsed as never, "result.type"), "pong");
  await herdr.sim.configure({ oversizedReplyBytes: 0, replyDelayMs: 300 });
  assert.ok(
    (await exchange(herdr.sim.socketPath, ping)).data.includes("pong"),
    "a slow reply still arrives",
  );
  await herdr.sim.configure({ replyDelayMs: 0, faultMethods: null });
});

test("without --test-control the control methods do not exist", async () => {
  const dir = mkdtempSync(join(tmpdir(), "herdr-sim-plain-"));
  const socketPath = join(dir, "herdr.sock");
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "test/sim/herdr/main.ts",
      "--socket",
      socketPath,
      "--tmux-socket",
      `herdr-plain-${process.pid}`,
      "--dir",
      join(dir, "sim"),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  try {
    await new Promise<void>((res) => child.stdout?.once("data", () => res()));
    const reply = await rpc(socketPath, "c", "sim.configure", { agentNull: true });
    assert.ok(
      reply.startsWith(
        `{"id":"","error":{"code":"invalid_request","message":"invalid request: unknown variant \`sim.configure\`, expected one of \`ping\``,
      ),
    );
  } finally {
    const exited = new Promise((res) => child.once("exit", res));
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
