// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * The persona channel (issue 14): `--rules` (alias `--append-system-prompt`, pager app/cli.rs)
 * rides the TUI's initialize `_meta.rules` (pager acp/mod.rs build_initialize_meta) and is
 * appended as `<human_rules>` to the system prompt of a session created with an empty history
 * (mvp_agent/mod.rs build_spawn_system_prompt, agent_ops.rs), which is saved to
 * `$GROK_HOME/sessions/<encoded cwd>/<id>/system_prompt.txt` (acp_session.rs save_system_prompt,
 * session_setup.rs initialize). Only the first initialize counts (acp_agent.rs OnceLock); a
 * session request's own `_meta.rules` wins over it; an attach never re-applies rules (only a
 * systemPromptOverride is synced); a model switch to an incompatible harness rebuilds the prompt
 * without them, and a compatible switch drops them from the conversation head while the file
 * keeps them (model_switch.rs).
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  type GrokLeader,
  grokHomeFixture,
  startGrokTui,
  waitFor,
} from "../../../helpers/grok-sim.js";
import { acpClient, encodeCwd, withSimLeader } from "../../../helpers/grok-sim-clients.js";
import { get, promptParams, type RawClient, record } from "./raw.js";

const TEMPLATE =
  "You are Grok Build (simulated), an agentic coding assistant working in the user's terminal.\n" +
  "Use the tools available to you to help with software engineering tasks.";
const CODEX_TEMPLATE =
  "You are a coding agent (simulated Codex harness). Follow the repository's conventions and " +
  "keep answers short.";

const withRules = (rules: string): string =>
  `${TEMPLATE}\n\n<human_rules>\n${rules}\n</human_rules>`;

function sessionFile(home: string, cwd: string, sid: string, name: string): string {
  return join(home, "sessions", encodeCwd(cwd), sid, name);
}

/** system_prompt.txt once it exists (it is written after the spawn was answered). */
function systemPrompt(home: string, cwd: string, sid: string): Promise<string> {
  const file = sessionFile(home, cwd, sid, "system_prompt.txt");
  return waitFor(`${file}`, () => (existsSync(file) ? readFileSync(file, "utf8") : undefined));
}

function chatHead(home: string, cwd: string, sid: string): unknown {
  const text = readFileSync(sessionFile(home, cwd, sid, "chat_history.jsonl"), "utf8");
  return record(JSON.parse(text.split("\n")[0] ?? "")).content;
}

const client = (
  leader: GrokLeader | { paths: { socketPath: string } },
  initMeta?: Record<string, unknown>,
): Promise<RawClient> => acpClient(leader.paths.socketPath, "persona-test", { initMeta });

test.before(async () => {
  await ensureGrokSim();
});

test("--rules reaches system_prompt.txt inside <human_rules>; the alias works; an attach never re-applies rules", async () => {
  for (const flag of ["--rules", "--append-system-prompt"]) {
    const home = grokHomeFixture({ mcpServers: [] });
    const rules = `Persona via ${flag}: answer in haiku 🌸.\nSecond line.`;
    const tui = await startGrokTui({ grokHome: home.dir, cwd: home.cwd, extraArgs: [flag, rules] });
    try {
      await tui.sessionReady();
      const prompt = await systemPrompt(home.dir, home.cwd, tui.sessionId);
      assert.is(prompt, withRules(rules));
      assert.is(chatHead(home.dir, home.cwd, tui.sessionId), prompt);
      // Another client attaches with rules of its own: nothing changes.
      const c = await client(tui, { rules: "an attacher's rules" });
      await c.request("session/resume", {
        sessionId: tui.sessionId,
        cwd: home.cwd,
        _meta: { rules: "attach rules" },
      });
      await c.request("session/load", {
        sessionId: tui.sessionId,
        cwd: home.cwd,
        mcpServers: [],
        _meta: { rules: "load rules" },
      });
      assert.is(
        readFileSync(sessionFile(home.dir, home.cwd, tui.sessionId, "system_prompt.txt"), "utf8"),
        prompt,
      );
      c.destroy();
    } finally {
      await tui.stop();
      home.remove();
    }
  }
});

test("only the first initialize's _meta counts; a session request's own rules win; a systemPromptOverride replaces on attach", async () => {
  await withSimLeader({ home: { mcpServers: [] } }, async ({ leader, home }) => {
    const first = await client(leader, { rules: "first client's rules" });
    const second = await client(leader, { rules: "second client's rules" });
    const a = randomUUID();
    await second.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: a } });
    assert.is(await systemPrompt(home.dir, home.cwd, a), withRules("first client's rules"));
    const b = randomUUID();
    await second.request("session/new", {
      cwd: home.cwd,
      mcpServers: [],
      _meta: { sessionId: b, rules: "session rules" },
    });
    assert.is(await systemPrompt(home.dir, home.cwd, b), withRules("session rules"));
    await first.request("session/resume", {
      sessionId: b,
      cwd: home.cwd,
      _meta: { systemPromptOverride: "Override prompt." },
    });
    assert.is(
      readFileSync(sessionFile(home.dir, home.cwd, b, "system_prompt.txt"), "utf8"),
      "Override prompt.",
    );
    assert.is(chatHead(home.dir, home.cwd, b), "Override prompt.");
    first.destroy();
    second.destroy();
  });
});

test("model switch: a zero-turn incompatible harness rebuilds without the rules; after a turn it is refused; a compatible switch drops them from the head only", async () => {
  await withSimLeader({ home: { mcpServers: [] } }, async ({ leader, home }) => {
    const c = await client(leader, { rules: "keep me" });
    const fresh = randomUUID();
    await c.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: fresh } });
    assert.is(await systemPrompt(home.dir, home.cwd, fresh), withRules("keep me"));
    const rebuilt = await c.request("session/set_model", {
      sessionId: fresh,
      modelId: "grok-codex-sim",
    });
    assert.equal(rebuilt.result, { _meta: { model: { Ok: "grok-codex-sim" } } });
    const file = sessionFile(home.dir, home.cwd, fresh, "system_prompt.txt");
    assert.is(readFileSync(file, "utf8"), CODEX_TEMPLATE);
    assert.is(chatHead(home.dir, home.cwd, fresh), CODEX_TEMPLATE);

    // The leader now injects this client's last set_model as the default model of its session
    // requests (leader routing.rs), so the next session names its model explicitly.
    const used = randomUUID();
    await c.request("session/new", {
      cwd: home.cwd,
      mcpServers: [],
      _meta: { sessionId: used, modelId: "grok-build" },
    });
    await c.request("session/prompt", promptParams(used, "one turn", { promptId: "P1" }));
    const refused = await c.request("session/set_model", {
      sessionId: used,
      modelId: "grok-codex-sim",
    });
    assert.equal(refused.error, {
      code: -32600,
      message:
        "Cannot switch to model 'grok-codex-sim': it requires agent 'codex' but the active agent " +
        "is 'grok-build'. Start a new session to use this model.",
      data: {
        code: "MODEL_SWITCH_INCOMPATIBLE_AGENT",
        activeAgentType: "grok-build",
        requiredAgentType: "codex",
        modelId: "grok-codex-sim",
        suggestion: "start_new_session",
      },
    });
    const ok = await c.request("session/set_model", { sessionId: used, modelId: "grok-4.5" });
    assert.equal(get(ok, "result", "_meta", "model"), { Ok: "grok-4.5" });
    assert.is(chatHead(home.dir, home.cwd, used), TEMPLATE, "the head lost the rules");
    assert.is(
      readFileSync(sessionFile(home.dir, home.cwd, used, "system_prompt.txt"), "utf8"),
      withRules("keep me"),
      "system_prompt.txt is not rewritten by a compatible switch",
    );
    c.destroy();
  });
});

test("a rules value that starts with '-' must be given as --rules=<value>; one argv element is the kernel's 128 KiB", async () => {
  const grok = await ensureGrokSim();
  const home = grokHomeFixture({ mcpServers: [] });
  try {
    const env = { ...process.env, GROK_HOME: home.dir };
    const split = spawnSync(grok, ["--rules", "- be terse", "--version"], {
      env,
      encoding: "utf8",
    });
    assert.is(split.status, 2);
    assert.ok(
      split.stderr.startsWith(
        "error: a value is required for '--rules <RULES>' but none was supplied",
      ),
      split.stderr,
    );
    const joined = spawnSync(grok, ["--rules=- be terse", "--version"], { env, encoding: "utf8" });
    assert.is(joined.status, 0, joined.stderr);
    // MAX_ARG_STRLEN (32 pages) counts the terminating NUL: execve refuses the 131072-byte
    // element itself, before the program runs.
    const fits = spawnSync(grok, [`--rules=${"x".repeat(131_071 - 8)}`, "--version"], { env });
    assert.is(fits.status, 0);
    const over = spawnSync(grok, [`--rules=${"x".repeat(131_072 - 8)}`, "--version"], { env });
    assert.is(
      over.error !== undefined && "code" in over.error ? over.error.code : undefined,
      "E2BIG",
    );
  } finally {
    home.remove();
  }
});

test.run();
