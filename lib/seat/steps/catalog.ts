/**
 * Step `catalog`: our session is resident in this leader and runs in our cwd (`x.ai/session/info`,
 * read-only), and its MCP catalog is ready: an enabled direct `mcp.linear.app` server refuses
 * before the brief, naming the owner's step (lib/grok/catalog.ts). Judged before `attach`, so a
 * refused seat never touched the owner's session.
 */

import type { AcpHandshake } from "../../acp/acp-handshake.js";
import { catalogRefusal } from "../../acp/catalog-refusal.js";
import { firstFailure } from "../../check.js";
import { SeatRefusal } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";

export const catalog = hireStep("catalog", async (handshake: AcpHandshake) => {
  const cat = await handshake.checkCatalog();
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
    `MCP catalog ready for this session${cat.offending.length === 0 ? "; no enabled direct mcp.linear.app endpoint" : ""}`,
    cat.checks,
    { ok: cat.ok },
  );
});
