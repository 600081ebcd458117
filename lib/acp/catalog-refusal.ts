/**
 * The typed error of a catalog that did not pass, in a file of its own so the seat's `catalog`
 * step can name it without loading the ACP client (and its SDK) at import time.
 */
import type { GrokSeatError } from "../errors.js";
import type { CatalogReadiness } from "../grok/catalog.js";
import { AcpError } from "./acp-error.js";

/** The typed error of a catalog that did not pass (LINEAR_DIRECT_ENABLED names the owner's step). */
export function catalogRefusal(cat: CatalogReadiness): GrokSeatError {
  const code = cat.code ?? "CATALOG_NOT_READY";
  const message =
    code === "LINEAR_DIRECT_ENABLED"
      ? `an enabled direct mcp.linear.app endpoint is configured for this session. ${cat.ownerStep}`
      : "the MCP list does not describe this session";
  return new AcpError(code, message, {
    details: {
      offending: [...cat.offending],
      ownerStep: cat.ownerStep,
      checks: cat.checks.map((c) => ({ ...c })),
    },
  });
}
