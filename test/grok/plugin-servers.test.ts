/**
 * Where the catalog rule looks for plugin servers: the roots Grok's plugin discovery scans
 * (xai-grok-agent/src/plugins/discovery.rs `discover_plugins`, `user_plugin_dirs`,
 * `project_plugin_dirs`; repo.rs `RepoDirChain`), the plugin's name, its declarations and their
 * substitutions. Real directories in a temporary tree.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { findPluginServers, type PluginLookup } from "../../lib/grok/plugin-servers.js";

const envToken = (name: string): string => ["$", "{", name, "}"].join("");

function tree(): { base: string; done: () => void } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "plugin-servers-")));
  return { base, done: () => rmSync(base, { recursive: true, force: true }) };
}

/** Run `body` on a fresh temporary tree, removed after it. */
async function withTree(body: (t: { base: string }) => Promise<void>): Promise<void> {
  const t = tree();
  try {
    await body(t);
  } finally {
    t.done();
  }
}

/** A plugin directory `<parent>/<dir>` whose manifest names it `name`, with a `.mcp.json`. */
function plugin(parent: string, dir: string, name: string, servers: Record<string, unknown>) {
  const root = join(parent, dir);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "plugin.json"), JSON.stringify({ name }));
  writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
  return root;
}

function lookup(base: string, cwd: string, extra: Partial<PluginLookup> = {}): PluginLookup {
  return {
    grokHome: join(base, "home", ".grok-profile"),
    cwd,
    home: join(base, "home"),
    env: {},
    config: { status: "missing", path: join(base, "config.toml") },
    ...extra,
  };
}

const url = (u: string) => ({ url: u });

test("project plugins from the cwd up to the git root, and no further", () =>
  withTree(async (t) => {
    const repo = join(t.base, "home", "src", "repo");
    const cwd = join(repo, "a", "b");
    mkdirSync(cwd, { recursive: true });
    mkdirSync(join(repo, ".git"));
    plugin(join(cwd, ".grok", "plugins"), "p1", "at-cwd", { s: url("https://one.example/") });
    plugin(join(repo, ".claude", "plugins"), "p2", "at-root", { s: url("https://two.example/") });
    plugin(join(t.base, "home", "src", ".grok", "plugins"), "p3", "above-root", {
      s: url("https://mcp.linear.app/mcp"),
    });
    const found = await findPluginServers(lookup(t.base, cwd));
    assert.equal([...found.keys()].sort(), ["at-cwd", "at-root"]);
  }));

test("outside a git repo only the cwd's own project plugins (and a $HOME repo is no repo)", () =>
  withTree(async (t) => {
    const home = join(t.base, "home");
    const cwd = join(home, "work", "dir");
    mkdirSync(cwd, { recursive: true });
    plugin(join(cwd, ".grok", "plugins"), "p1", "at-cwd", { s: url("https://one.example/") });
    plugin(join(home, "work", ".grok", "plugins"), "p2", "parent", { s: url("https://x.example") });
    assert.equal([...(await findPluginServers(lookup(t.base, cwd))).keys()], ["at-cwd"]);
    // Dotfiles in $HOME: a git root that is the home directory does not widen the walk.
    mkdirSync(join(home, ".git"));
    assert.equal([...(await findPluginServers(lookup(t.base, cwd))).keys()], ["at-cwd"]);
  }));

test("user plugins from $GROK_HOME/plugins and ~/.claude/plugins, never the legacy ~/.grok/plugins", () =>
  withTree(async (t) => {
    const home = join(t.base, "home");
    const cwd = join(t.base, "cwd");
    mkdirSync(cwd, { recursive: true });
    const l = lookup(t.base, cwd);
    plugin(join(l.grokHome, "plugins"), "g", "grok-home", { s: url("https://g.example") });
    plugin(join(home, ".claude", "plugins"), "c", "claude-home", { s: url("https://c.example") });
    plugin(join(home, ".grok", "plugins"), "legacy", "legacy", { s: url("https://l.example") });
    assert.equal([...(await findPluginServers(l)).keys()].sort(), ["claude-home", "grok-home"]);
  }));

test("[plugins] paths, the manifest's name, inline and file declarations, substitutions", () =>
  withTree(async (t) => {
    const cwd = join(t.base, "cwd");
    mkdirSync(cwd, { recursive: true });
    const byPath = join(t.base, "elsewhere", "dir-name");
    mkdirSync(join(byPath, ".claude-plugin"), { recursive: true });
    writeFileSync(
      join(byPath, ".claude-plugin", "plugin.json"),
      JSON.stringify({
        name: "kit",
        mcpServers: {
          inline: {
            command: `${envToken("CLAUDE_PLUGIN_ROOT")}/bin/proxy`,
            args: ["--to", `${envToken("LINEAR_URL")}`],
          },
        },
      }),
    );
    writeFileSync(
      join(byPath, ".mcp.json"),
      JSON.stringify({ mcpServers: { later: { url: `${envToken("MISSING")}` } } }),
    );
    const config = {
      status: "ok" as const,
      path: join(t.base, "config.toml"),
      table: { plugins: { paths: [byPath, join(t.base, "not-there")] } },
    };
    const found = await findPluginServers(
      lookup(t.base, cwd, { config, env: { LINEAR_URL: "https://mcp.linear.app/sse" } }),
    );
    assert.equal([...found.keys()], ["kit"]);
    assert.equal(found.get("kit"), [
      {
        plugin: "kit",
        name: "inline",
        url: null,
        command: `${byPath}/bin/proxy`,
        args: ["--to", "https://mcp.linear.app/sse"],
        unresolved: false,
      },
      {
        plugin: "kit",
        name: "later",
        url: envToken("MISSING"),
        command: null,
        args: [],
        unresolved: true,
      },
    ]);
  }));

test.run();
