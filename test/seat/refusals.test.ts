// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * Every hire refusal path ends in its named refusal with nothing delivered: the grok simulator's
 * frame log (GROK_SIM_LOG) shows no `session/prompt` from us and the agent accepted no prompt,
 * and the Herdr simulator's injection log stays empty. Each case uses the simulators' own fault
 * switches: a version below the floor, a leader that reports a wrong pid, Herdr naming a
 * contradictory agent (G5), an enabled direct Linear MCP server, an unknown model.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { admitController } from "../../lib/delivery/index.js";
import { LINEAR_OWNER_STEP } from "../../lib/grok/catalog.js";
import { HerdrClient } from "../../lib/herdr/client.js";
import { type KernelPort, systemKernel } from "../../lib/kernel/index.js";
import { hire } from "../../lib/seat/hire.js";
import { pidAlive } from "../helpers/grok-sim.js";
import {
  onlyWait,
  optionsWithHookReport,
  refusalOf,
  type Stack,
  startStack,
  withStack,
} from "./stack.js";

async function nothingDelivered(stack: Stack): Promise<void> {
  assert.is(stack.promptsFromUs(), 0, "no session/prompt left us and none reached the agent");
  assert.equal(await stack.herdr.injectionLog(), [], "nothing was typed through Herdr");
}

function ourAcpMethods(stack: Stack): string[] {
  const out: string[] = [];
  for (const l of stack.framesFromUs()) {
    const f = l.frame;
    if (typeof f !== "object" || f === null || !("payload" in f) || typeof f.payload !== "string")
      continue;
    const m = /"method":"([^"]+)"/.exec(f.payload);
    if (m?.[1] !== undefined) out.push(m[1]);
  }
  return out;
}

test("version below the floor: refused in preflight, before any pane or file exists", () =>
  withStack({ env: { GROK_SIM_VERSION: "1.0.45" } }, async (stack) => {
    const r = await refusalOf(hire(stack.options()));
    assert.is(r.step, "preflight");
    assert.is(r.code, "VERSION_BELOW_FLOOR");
    assert.is(r.check, "version.floor");
    assert.is(r.context.paneId, null);
    assert.equal(readdirSync(stack.runtimeBase), [], "no runtime directory was left");
    assert.is(stack.framesFromUs().length, 0, "no connection to any leader");
    const refused = stack.events.filter((e) => e.type === "refused");
    assert.is(refused.length, 1);
    assert.ok(refused[0]?.type === "refused" && refused[0].ownerNextStep.includes("1.0.46"));
    await nothingDelivered(stack);
  }));

test("HERDR_SOCKET_PATH set but empty: refused in preflight, never the session it would fall back to", async () => {
  const stack = await startStack();
  // The simulator's socket is <config>/herdr/sessions/<name>/herdr.sock: with XDG_CONFIG_HOME and
  // HERDR_SESSION naming it, an empty HERDR_SOCKET_PATH read as unset would reach it.
  const configHome = dirname(dirname(dirname(dirname(stack.herdr.socketPath))));
  const saved = { ...process.env };
  try {
    process.env.XDG_CONFIG_HOME = configHome;
    process.env.HERDR_SESSION = stack.herdr.sessionName;
    process.env.HERDR_SOCKET_PATH = "";
    const { herdr: _explicit, ...options } = stack.options();
    const r = await refusalOf(hire(options));
    assert.is(r.step, "preflight");
    assert.is(r.code, "HERDR_UNREACHABLE");
    assert.is(r.check, "herdr.discovery");
    assert.is((r.cause as { code?: unknown }).code, "HERDR_SOCKET_PATH_EMPTY");
    assert.match(r.reason, /HERDR_SOCKET_PATH is set but empty/);
    assert.equal(readdirSync(stack.runtimeBase), [], "no runtime directory was made");
    assert.equal(await stack.herdr.injectionLog(), []);
  } finally {
    for (const k of ["XDG_CONFIG_HOME", "HERDR_SESSION", "HERDR_SOCKET_PATH"]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await stack.cleanup();
  }
});

test("the leader reports a wrong pid: LEADER_UNPROVEN before any ACP message", async () => {
  // The test process is a live process that is certainly not the leader.
  const stack = await startStack({ env: { GROK_SIM_WRONG_PID: String(process.pid) } });
  try {
    const r = await refusalOf(hire(stack.options()));
    assert.is(r.step, "leader_proof");
    assert.is(r.code, "LEADER_UNPROVEN");
    assert.ok(r.check?.startsWith("leader.") && r.check !== "leader.info", String(r.check));
    assert.equal(ourAcpMethods(stack), [], "no ACP message was sent to an unproven leader");
    assert.ok(pidAlive(process.pid));
    // What a refused hire leaves: the owner's pane and TUI (never stopped by the library), its
    // runtime dir (the leader's socket lives there); our connection and admission lock are gone.
    const { tuiPid, paneId, runtimeDir } = r.context;
    assert.ok(typeof tuiPid === "number" && pidAlive(tuiPid), "the TUI still runs");
    assert.ok(typeof paneId === "string");
    const client = new HerdrClient({ socketPath: stack.herdr.socketPath });
    assert.is((await client.request("pane.get", { pane_id: paneId })).pane.pane_id, paneId);
    assert.ok(typeof runtimeDir === "string" && existsSync(runtimeDir));
    admitController({ seatDir: runtimeDir }).release();
    assert.ok(await stack.disconnectSeen(), "the refused hire disconnected");
    await nothingDelivered(stack);
  } finally {
    await stack.cleanup();
  }
});

test("Herdr names a contradictory agent (G5): HERDR_AGENT_REFUSED at the pane proof", () =>
  withStack({ switches: { agentOverride: "grok-leader" } }, async (stack) => {
    // The official Grok hook reports the session right after launch (herdr-socket-api §5).
    const r = await refusalOf(hire(optionsWithHookReport(stack, "pane.report_agent_session")));
    assert.is(r.step, "pane_proof");
    assert.is(r.code, "HERDR_AGENT_REFUSED");
    assert.is(r.check, "pane.agent");
    const received = r.context.received;
    assert.ok(typeof received === "object" && received !== null && "reason" in received);
    assert.is(received.reason, "agent_contradiction");
    assert.is(stack.framesFromUs().length, 0, "never connected to the leader");
    await nothingDelivered(stack);
  }));

test("an enabled direct mcp.linear.app server: LINEAR_DIRECT_ENABLED, the session never attached", () =>
  withStack(
    {
      mcpServers: [{ name: "linear", url: "https://mcp.linear.app/mcp", tools: ["list_issues"] }],
    },
    async (stack) => {
      const r = await refusalOf(hire(stack.options()));
      assert.is(r.step, "catalog");
      assert.is(r.code, "LINEAR_DIRECT_ENABLED");
      assert.is(r.check, "catalog.linear_direct_disabled");
      assert.is(r.ownerNextStep, LINEAR_OWNER_STEP);
      const methods = ourAcpMethods(stack);
      assert.ok(methods.includes("initialize"), methods.join());
      assert.not.ok(methods.includes("session/resume"), "the owner's session was never attached");
      await nothingDelivered(stack);
    },
  ));

test("an unknown model: MODEL_UNKNOWN with the offered models, nothing sent for it", () =>
  withStack(async (stack) => {
    const r = await refusalOf(hire(stack.options({ model: { modelId: "grok-nonexistent" } })));
    assert.is(r.step, "model");
    assert.is(r.code, "MODEL_UNKNOWN");
    const available = r.context.available;
    assert.ok(Array.isArray(available) && available.includes("grok-build"), String(available));
    assert.not.ok(ourAcpMethods(stack).includes("session/set_model"), "no fallback model was set");
    await nothingDelivered(stack);
  }));

test("no leader within the bound: LEADER_NOT_READY, nothing connected", () =>
  withStack(async (stack) => {
    const r = await refusalOf(hire(stack.options({ timeouts: { leaderMs: 1 } })));
    assert.is(r.step, "leader_wait");
    assert.is(r.code, "LEADER_NOT_READY");
    assert.is(r.check, "leader_wait.listening");
    assert.is(stack.framesFromUs().length, 0);
    await nothingDelivered(stack);
  }));

test("active_sessions.json never names the session: the owner is told, then OWNER_GATE_TIMEOUT before ACP", async () => {
  // Without an entry the seat cannot tell a session that was never created (a startup screen
  // the owner has not answered: a terms notice is never predictable) from one never registered,
  // so after activeSessionMs it reports an owner wait with gate "unknown" and refuses at ownerMs.
  const stack = await startStack({ env: { GROK_SIM_SKIP_ACTIVE_SESSIONS: "1" } });
  try {
    const options = stack.options();
    const r = await refusalOf(
      hire({ ...options, timeouts: { ...options.timeouts, activeSessionMs: 300, ownerMs: 300 } }),
    );
    assert.is(r.step, "active_sessions");
    assert.is(r.code, "OWNER_GATE_TIMEOUT");
    assert.is(r.check, "active_sessions.owner_gate");
    assert.is(r.context.gate, "unknown");
    assert.is(onlyWait(stack).gate, "unknown");
    assert.equal(ourAcpMethods(stack), []);
    await nothingDelivered(stack);
  } finally {
    await stack.cleanup();
  }
});

test("the runtime dir renamed away and replaced before launch: refused at launch, nothing opened", () =>
  withStack(async (stack) => {
    const client = new HerdrClient({ socketPath: stack.herdr.socketPath });
    const panesBefore = (await client.request("pane.list", {})).panes.length;
    let replaced: string | null = null;
    const options = stack.options();
    const r = await refusalOf(
      hire({
        ...options,
        onProgress: (e) => {
          options.onProgress?.(e);
          if (e.type !== "proven" || e.step !== "runtime_dir") return;
          const facts = e.facts;
          const dir =
            typeof facts === "object" && facts !== null && "dir" in facts ? facts.dir : null;
          if (typeof dir !== "string") return;
          renameSync(dir, `${dir}.moved`);
          mkdirSync(dir, { mode: 0o700 });
          writeFileSync(join(dir, "theirs"), "not the seat's");
          replaced = dir;
        },
      }),
    );
    assert.is(r.step, "launch");
    assert.is(r.code, "RUNTIME_DIR_UNSAFE");
    assert.is(r.check, "runtime_dir.identity");
    assert.ok(replaced !== null);
    assert.equal(readdirSync(replaced), ["theirs"], "the directory put in its place is untouched");
    assert.is((await client.request("pane.list", {})).panes.length, panesBefore, "no pane opened");
    await nothingDelivered(stack);
  }));

test("the TUI's argv in the kernel is not the one we launched: PANE_UNPROVEN at pane.argv", async () => {
  // What a Herdr that echoes our argv but runs another would leave: the kernel's argv of the pane
  // process differs (here in its --session-id). The kernel port reads /proc/<pid>/cmdline; this
  // double changes what it returns for the TUI only.
  await withStack(async (stack) => {
    const other = "00000000-0000-4000-8000-000000000000";
    const kernel: KernelPort = {
      ...systemKernel,
      processArgv: (pid) => {
        const argv = systemKernel.processArgv(pid);
        const at = argv.indexOf("--session-id");
        return at < 0 ? argv : argv.map((a, i) => (i === at + 1 ? other : a));
      },
    };
    const r = await refusalOf(hire(stack.options({ kernel })));
    assert.is(r.step, "pane_proof");
    assert.is(r.code, "PANE_UNPROVEN");
    assert.is(r.check, "pane.argv");
    assert.equal(stack.framesFromUs(), [], "no connection to the leader");
    await nothingDelivered(stack);
  });
});

test("the kernel's argv of a hired TUI is exactly what we launched", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options());
    const argv = systemKernel.processArgv(seat.record.pane.process.pid);
    assert.equal(argv, seat.record.pane.launch?.argv);
    const proven = stack.events.find((e) => e.type === "proven" && e.step === "pane_proof");
    assert.ok(
      proven?.type === "proven" && proven.checks.some((c) => c.check === "pane.argv" && c.ok),
    );
    await seat.release();
  }));

test("a known model and effort are selected and echoed before ready", () =>
  withStack(async (stack) => {
    const seat = await hire(stack.options({ model: { modelId: "grok-4.5", effort: "high" } }));
    assert.equal(seat.record.model, { modelId: "grok-4.5", effort: "high" });
    assert.ok(ourAcpMethods(stack).includes("session/set_model"));
    await seat.release();
    await nothingDelivered(stack);
  }));

test.run();
