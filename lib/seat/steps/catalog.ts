/**
 * Step `catalog`: our session is resident in this leader and runs in our cwd (`x.ai/session/info`,
 * read-only), and its MCP catalog is ready: an enabled server reaching `mcp.linear.app` directly
 * (an http/sse URL, or a stdio command naming the host), or an enabled server whose transport
 * neither the list nor a plugin manifest of the profile tells, refuses before the brief, naming
 * the owner's step (lib/grok/catalog.ts, lib/grok/plugin-servers.ts). Judged before `attach`, so
 * a refused seat never touched the owner's session.
 */

import type { AcpHandshake } from "../../acp/acp-handshake.js";
import { catalogRefusal } from "../../acp/catalog-refusal.js";
import { firstFailure } from "../../check.js";
import type { OwnServer } from "../../grok/catalog.js";
import { findPluginServers } from "../../grok/plugin-servers.js";
import { readTomlFile } from "../../grok/toml-file.js";
import { SeatRefusal } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";

export interface CatalogInput {
  readonly handshake: AcpHandshake;
  readonly grokHome: string;
  /** The TUI's canonical cwd (project plugins are found from it). */
  readonly cwd: string;
  /** The home directory the TUI sees (user plugins), or null. */
  readonly home: string | null;
  /** The TUI's environment (for `${VAR}` in a plugin's server declaration). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The servers this seat added to the session itself, whose placeholder rows are its own
   * (issue 14's operator bank, matched by name and tools). None yet.
   */
  readonly ownServers: readonly OwnServer[];
}

export const catalog = hireStep("catalog", async (input: CatalogInput) => {
  const plugins = await findPluginServers({
    grokHome: input.grokHome,
    cwd: input.cwd,
    home: input.home,
    env: input.env,
    config: await readTomlFile(`${input.grokHome}/config.toml`),
  });
  const cat = await input.handshake.checkCatalog({ plugins, ownServers: input.ownServers });
  if (!cat.ok) {
    const err = catalogRefusal(cat);
    throw new SeatRefusal({
      step: "catalog",
      code: err.code,
      check: firstFailure(cat.checks)?.check ?? null,
      reason: err.message,
      details: { ...err.context },
      cause: err,
    });
  }
  return outcome(
    cat,
    `MCP catalog ready for this session${cat.offending.length === 0 ? "; no enabled server reaches mcp.linear.app directly" : ""}`,
    cat.checks,
    { ok: cat.ok, plugins: [...plugins.keys()] },
  );
});
