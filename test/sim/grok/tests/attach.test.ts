// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * What an attach does to the owner's session, as the real agent does it
 * (agent/mvp_agent/session_setup.rs `attach_session`, `refresh_reconnect_session_state`,
 * `restore_persisted_model`; mvp_agent/mod.rs `resolve_session_auto_mode`;
 * agent/handlers/model_switch.rs `broadcast_model_changed`), and what the TUI tells the leader
 * about itself (pager acp/mod.rs capabilities; app/status_line.rs `draws_a_row`;
 * app/effects/helpers.rs `SessionFlags::to_meta`).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim, type GrokTui, waitFor } from "../../../helpers/grok-sim.js";
import { acpClient, traceEvents, withSimTui } from "../../../helpers/grok-sim-clients.js";
import { get, type RawClient, upsertsSession } from "./raw.js";

const client = (tui: GrokTui, type: string): Promise<RawClient> =>
  acpClient(tui.paths.socketPath, type, { capabilities: {} });

async function rosterYolo(c: RawClient, sessionId: string): Promise<unknown> {
  const res = await c.request("_x.ai/sessions/list", {});
  const rows = get(res, "result", "result", "sessions");
  return Array.isArray(rows)
    ? rows.find((r) => get(r, "sessionId") === sessionId)?.yolo
    : undefined;
}

/** A prompt that needs a permission; resolves with the reply text once the turn is answered. */
async function permissionTurn(c: RawClient, sessionId: string, id: string): Promise<string> {
  c.sendPrompt(id, sessionId, `[[sim:permission]] ${id}`);
  await c.nextAcp((m) => m.id === id && m.method === undefined, 20_000);
  return c
    .acp()
    .filter(
      (m) =>
        m.method === "session/update" &&
        get(m, "params", "update", "sessionUpdate") === "agent_message_chunk",
    )
    .map((m) => String(get(m, "params", "update", "content", "text")))
    .join("");
}

test.before(async () => {
  await ensureGrokSim();
});

for (const mode of ["always-approve", "auto"] as const) {
  test(`permission_mode = "${mode}": an attach without the keys re-arms it after the owner turned it off`, async () => {
    await withSimTui(
      { home: { extraToml: `[ui]\npermission_mode = "${mode}"\n` } },
      async ({ tui }) => {
        await tui.sessionReady();
        await tui.waitForScreen(mode === "always-approve" ? "· always-approve" : "· auto");
        // The owner turns the mode off (for auto: /always-approve on, then off again).
        await tui.typeIntoTui("/always-approve");
        if (mode === "auto") {
          await tui.waitForScreen("always-approve on");
          await tui.typeIntoTui("/always-approve");
        }
        await tui.waitForScreen("always-approve off");
        const observer = await client(tui, "observer");
        assert.is(await rosterYolo(observer, tui.sessionId), false);

        // A careful attach sends both keys: nothing is switched back on.
        const careful = await client(tui, "careful");
        const r1 = await careful.request("session/resume", {
          sessionId: tui.sessionId,
          cwd: tui.paths.cwd,
          _meta: { yoloMode: false, autoMode: false },
        });
        assert.is(r1.error, undefined);
        assert.is(await rosterYolo(observer, tui.sessionId), false);
        const asked = permissionTurn(careful, tui.sessionId, "p1");
        await tui.waitForScreen("Permission requested");
        await tui.pressKey("y");
        assert.match(await asked, "Permission was granted.");

        // A bare attach falls back to the leader's config default and switches it back on.
        const bare = await client(tui, "bare");
        const r2 = await bare.request("session/resume", {
          sessionId: tui.sessionId,
          cwd: tui.paths.cwd,
        });
        assert.is(r2.error, undefined);
        if (mode === "always-approve") {
          assert.is(await rosterYolo(observer, tui.sessionId), true);
          await observer.nextAcp((m) => upsertsSession(m, "yolo", true));
        }
        const reply = await permissionTurn(bare, tui.sessionId, "p2");
        assert.match(reply, "Permission was granted automatically.");
        assert.not.match(await tui.capture(), "Permission requested", "the owner was not asked");
        for (const c of [observer, careful, bare]) c.destroy();
      },
    );
  });
}

test("without a config permission mode a bare attach changes nothing", async () => {
  await withSimTui({}, async ({ tui }) => {
    await tui.sessionReady();
    const bare = await client(tui, "bare");
    await bare.request("session/resume", { sessionId: tui.sessionId, cwd: tui.paths.cwd });
    assert.is(await rosterYolo(bare, tui.sessionId), false);
    bare.destroy();
  });
});

test("every attach re-applies the model: model_changed to all subscribers, after the attacher's answer", async () => {
  await withSimTui({}, async ({ tui }) => {
    await tui.sessionReady();
    const observer = await client(tui, "observer");
    await observer.request("session/resume", { sessionId: tui.sessionId, cwd: tui.paths.cwd });
    for (const [method, params, effort] of [
      ["session/resume", {}, "high"],
      ["session/load", { mcpServers: [] }, "high"],
      ["session/resume", { _meta: { reasoningEffort: "low" } }, "low"],
    ] as const) {
      const c = await client(tui, "attacher");
      const from = observer.frames.length;
      const id = `attach-${method}-${effort}`;
      const res = await c.request(
        method,
        { sessionId: tui.sessionId, cwd: tui.paths.cwd, ...params },
        15_000,
        id,
      );
      assert.is(res.error, undefined, JSON.stringify(res.error));
      const isEcho = (m: Record<string, unknown>): boolean =>
        m.method === "_x.ai/session_notification" &&
        get(m, "params", "sessionId") === tui.sessionId &&
        get(m, "params", "update", "sessionUpdate") === "model_changed";
      const echo = await c.nextAcp(isEcho);
      assert.equal(get(echo, "params", "update"), {
        sessionUpdate: "model_changed",
        model_id: "grok-build",
        reasoning_effort: effort,
      });
      assert.is(get(echo, "params", "_meta", "eventId"), undefined, "broadcast-only, no eventId");
      // The attacher's copy is held back behind its own answer (the leader's load buffer).
      const acp = c.acp();
      const answerAt = acp.findIndex((m) => m.id === id);
      const echoAt = acp.findIndex(isEcho);
      assert.ok(answerAt >= 0 && echoAt > answerAt, "the answer comes first");
      // Every other subscriber gets it too.
      await observer.next(
        (f) =>
          f.json.type === "acp" &&
          typeof f.json.payload === "string" &&
          f.json.payload.includes('"model_changed"') &&
          f.json.payload.includes(`"reasoning_effort":"${effort}"`),
        10_000,
        from,
      );
      c.destroy();
    }
    await tui.waitForScreen("model: grok-build low");
    observer.destroy();
  });
});

test("the TUI registers status_line false unless [ui.status_line] reserves a row; both permission keys always", async () => {
  for (const [extra, expected] of [
    ["", false],
    ['[ui.status_line]\ntype = "builtin"\n', true],
    ['[ui.status_line]\ntype = "disabled"\n', false],
  ] as const) {
    await withSimTui({ home: { extraToml: extra } }, async ({ tui, log }) => {
      await tui.sessionReady();
      const register = await waitFor("the TUI's register frame", () =>
        traceEvents(log).find((e) => get(e, "frame", "type") === "register"),
      );
      assert.is(get(register, "frame", "client_type"), "grok-shell");
      assert.is(get(register, "frame", "capabilities", "status_line"), expected, extra);
      const created = traceEvents(log)
        .filter((e) => e.event === "agent_in")
        .map((e) => JSON.parse(String(e.line)))
        .find((m) => m.method === "session/new");
      assert.is(get(created, "params", "_meta", "yoloMode"), false);
      assert.is(get(created, "params", "_meta", "autoMode"), false);
    });
  }
});

test.run();
