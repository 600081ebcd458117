// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * Skills (issue 14): `[skills] paths` in the user config — a SKILL.md file or a directory walked
 * recursively (xai-grok-agent prompt/skills.rs collect_config_skills, xai-grok-tools
 * skills/discovery.rs find_skill_md_paths / walk_for_skill_md) — listed read-only by
 * `x.ai/skills/list {cwd}` as SkillInfo rows carrying the SKILL.md path, and `x.ai/skills/add`
 * writing the profile's config.toml (extensions/skills.rs). The `no-skills` version preset
 * answers -32601.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ensureGrokSim,
  type GrokHomeFixture,
  grokHomeFixture,
  startGrokLeader,
} from "../../../helpers/grok-sim.js";
import { acpClient } from "../../../helpers/grok-sim-clients.js";
import { get } from "./raw.js";

function skill(dir: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "SKILL.md");
  writeFileSync(file, body);
  return file;
}

interface Layout {
  home: GrokHomeFixture;
  lib: string;
  single: string;
  files: Record<string, string>;
}

/** A skill library outside the cwd: nested skills, one too deep, and a lone SKILL.md elsewhere. */
function layout(): Layout {
  const home = grokHomeFixture({ mcpServers: [] });
  const root = realpathSync(join(home.dir, ".."));
  const lib = join(root, "skill-lib");
  const files = {
    review: skill(
      join(lib, "review"),
      "---\nname: Code Review\ndescription: Review a change carefully.\n---\n# Review\n\nBody.\n",
    ),
    nested: skill(join(lib, "group", "deploy"), "# Deploy\n\nShip the build to staging.\n"),
    deep: skill(join(lib, "a", "b", "c", "d", "e", "f", "g", "too-deep"), "too deep\n"),
  };
  const single = skill(join(root, "lone"), "---\ndescription: A lone skill\n---\nbody\n");
  return { home, lib, single, files };
}

async function leaderClient(home: GrokHomeFixture, env: Record<string, string> = {}) {
  const leader = await startGrokLeader({ grokHome: home.dir, cwd: home.cwd, env });
  const c = await acpClient(leader.paths.socketPath, "skills-test");
  return { leader, c };
}

test.before(async () => {
  await ensureGrokSim();
});

test("[skills] paths: a directory walked recursively (sorted, 5 levels) and a SKILL.md file, listed read-only with the SKILL.md path", async () => {
  const { home, lib, single, files } = layout();
  home.writeConfig(
    `[skills]\npaths = [${JSON.stringify(lib)}, ${JSON.stringify(single)}]\ndisabled = ["deploy"]\n`,
  );
  const before = readFileSync(join(home.dir, "config.toml"), "utf8");
  const { leader, c } = await leaderClient(home);
  try {
    const res = await c.request("_x.ai/skills/list", { cwd: home.cwd });
    const skills = get(res, "result", "result", "skills");
    assert.ok(Array.isArray(skills), JSON.stringify(res));
    assert.equal(skills, [
      {
        name: "deploy",
        description: "Ship the build to staging.",
        has_user_specified_description: false,
        path: files.nested,
        scope: "user",
        config_source: { type: "configToml", path: files.nested },
        user_invocable: true,
        disable_model_invocation: false,
        enabled: false,
      },
      {
        name: "code-review",
        description: "Review a change carefully.",
        has_user_specified_description: true,
        path: files.review,
        scope: "user",
        config_source: { type: "configToml", path: files.review },
        user_invocable: true,
        disable_model_invocation: false,
        enabled: true,
      },
      {
        name: "lone",
        description: "A lone skill",
        has_user_specified_description: true,
        path: single,
        scope: "user",
        config_source: { type: "configToml", path: single },
        user_invocable: true,
        disable_model_invocation: false,
        enabled: true,
      },
    ]);
    assert.is(readFileSync(join(home.dir, "config.toml"), "utf8"), before, "list writes nothing");
    const bad = await c.request("_x.ai/skills/list", {});
    assert.is(get(bad, "error", "code"), -32602);
  } finally {
    c.destroy();
    await leader.stop();
    home.remove();
  }
});

test("x.ai/skills/add writes the resolved path into [skills] paths and keeps the rest of config.toml", async () => {
  const { home, lib } = layout();
  home.writeConfig(
    '[ui]\ncombine_queued_prompts = true\n\n[mcp_servers.docs]\nurl = "https://docs.example/mcp"\n',
  );
  const { leader, c } = await leaderClient(home);
  try {
    const res = await c.request("_x.ai/skills/add", { path: lib, cwd: home.cwd });
    const result = get(res, "result", "result");
    assert.is(get(result, "path"), lib);
    assert.is(get(result, "addedCount"), 2);
    assert.is(get(result, "total"), 2);
    assert.is(get(result, "message"), `Added path ${lib}. 2 new skills found (2 total).`);
    const config = readFileSync(join(home.dir, "config.toml"), "utf8");
    assert.ok(config.includes("[ui]\ncombine_queued_prompts = true"), config);
    assert.ok(config.includes('[mcp_servers.docs]\nurl = "https://docs.example/mcp"'), config);
    assert.ok(config.includes(`[skills]\npaths = [${JSON.stringify(lib)}]`), config);
    const again = await c.request("_x.ai/skills/add", { path: lib, cwd: home.cwd });
    assert.is(get(again, "result", "result", "total"), 2);
    assert.is(
      readFileSync(join(home.dir, "config.toml"), "utf8").split("[skills]").length,
      2,
      "one [skills] table, the path once",
    );
  } finally {
    c.destroy();
    await leader.stop();
    home.remove();
  }
});

test("the no-skills version preset answers -32601 for x.ai/skills/list and x.ai/skills/add", async () => {
  const home = grokHomeFixture({ mcpServers: [] });
  const { leader, c } = await leaderClient(home, { GROK_SIM_VERSION_PRESET: "no-skills" });
  try {
    for (const [method, params] of [
      ["_x.ai/skills/list", { cwd: home.cwd }],
      ["_x.ai/skills/add", { path: home.cwd }],
    ] as const) {
      const res = await c.request(method, params);
      assert.equal(res.error, {
        code: -32601,
        message: "Method not found",
        data: `unknown ACP extension method: ${method.slice(1)}`,
      });
    }
    const sid = randomUUID();
    await c.request("session/new", { cwd: home.cwd, mcpServers: [], _meta: { sessionId: sid } });
    const update = await c.request("_x.ai/session/update_mcp_servers", {
      sessionId: sid,
      mcpServers: [],
    });
    assert.equal(update.result, { result: { ok: true } }, "update_mcp_servers is there");
  } finally {
    c.destroy();
    await leader.stop();
    home.remove();
  }
});

test.run();
