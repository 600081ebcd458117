// Module-load trace, the hooks half (runs on Node's loader thread): every URL the ESM loader
// resolves is appended, one per line, to the file named by GROK_SEAT_MODULE_TRACE. Registered by
// scripts/lib/module-trace.mjs; used by the bench (what an import loads) and by the tests that
// prove an entry never loads the MCP SDK.
import { appendFileSync } from "node:fs";

const out = process.env.GROK_SEAT_MODULE_TRACE;

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (out) appendFileSync(out, `${r.url}\n`);
  return r;
}
