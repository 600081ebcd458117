/**
 * The typed error of a catalog that did not pass, in a file of its own so the seat's `catalog`
 * step can name it without loading the ACP client (and its SDK) at import time.
 */
import type { GrokSeatError } from "../errors.js";
import type { CatalogReadiness } from "../grok/catalog.js";
import { AcpError } from "./acp-error.js";

/** The typed error of a catalog that did not pass (its code names the owner's step). */
export function catalogRefusal(cat: CatalogReadiness): GrokSeatError {
  const code = cat.code ?? "CATALOG_NOT_READY";
  const message =
    code === "LINEAR_DIRECT_ENABLED"
      ? `an enabled server of this session reaches mcp.linear.app directly (${cat.offending.join(", ")}). ${cat.ownerStep}`
      : code === "CATALOG_UNVERIFIABLE"
        ? `enabled MCP servers of this session whose transport cannot be told (${cat.unverifiable.join(", ")}). ${cat.ownerStep}`
        : "the MCP list does not describe this session";
  return new AcpError(code, message, {
    details: {
      offending: [...cat.offending],
      unverifiable: [...cat.unverifiable],
      ownerStep: cat.ownerStep,
      checks: cat.checks.map((c) => ({ ...c })),
    },
  });
}
