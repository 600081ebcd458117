/**
 * The operator's MCP bank as a hire option (issue 14): `{ name, url, headers? }`. `url` is the
 * orchestrator's MCP server (streamable HTTP); `headers` go *upstream* only, from the seat's
 * projecting proxy (lib/mcp/bank-proxy.ts), and are never shown to Grok. `name` must let Grok
 * register the bank's tools as `<name>__<tool>` (lib/grok/mcp-names.ts). Checked in preflight,
 * before anything starts; lib/mcp itself is loaded only when a bank is given.
 */
import { type CheckResult, fail, pass } from "../check.js";
import { serverNameProblem } from "../grok/mcp-names.js";

export interface McpBankOption {
  readonly name: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface McpBank {
  readonly name: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `bank.name`, `bank.url` and `bank.headers` checks, and the bank when all pass. */
export function checkBank(option: unknown): { bank: McpBank | null; checks: CheckResult[] } {
  if (option === undefined) return { bank: null, checks: [] };
  const o = typeof option === "object" && option !== null ? option : {};
  const name: unknown = Reflect.get(o, "name");
  const url: unknown = Reflect.get(o, "url");
  const headers: unknown = Reflect.get(o, "headers");
  const checks: CheckResult[] = [];
  const problem = typeof name === "string" ? serverNameProblem(name) : "the name is not text";
  checks.push(
    problem === null
      ? pass("bank.name", "a server name Grok registers tools under", String(name))
      : fail("bank.name", "a server name Grok registers tools under", String(name), problem),
  );
  let parsed: URL | null = null;
  if (typeof url === "string" && URL.canParse(url)) {
    const u = new URL(url);
    if (u.protocol === "http:" || u.protocol === "https:") parsed = u;
  }
  checks.push(
    parsed === null
      ? fail("bank.url", "an http(s) URL", String(url), "the bank URL is not an http(s) URL")
      : pass("bank.url", "an http(s) URL", parsed.origin),
  );
  const out: Record<string, string> = {};
  let bad: string | null = null;
  if (headers !== undefined) {
    if (typeof headers !== "object" || headers === null) bad = "headers is not an object";
    else
      for (const [k, val] of Object.entries(headers)) {
        if (!HEADER_NAME.test(k) || typeof val !== "string" || /[\r\n\0]/.test(val)) {
          bad = `header ${JSON.stringify(k)} is not a valid HTTP header`;
          break;
        }
        out[k] = val;
      }
  }
  // Only the names: the values are the orchestrator's credentials.
  checks.push(
    bad === null
      ? pass("bank.headers", "valid HTTP headers", Object.keys(out))
      : fail("bank.headers", "valid HTTP headers", null, bad),
  );
  if (checks.every((c) => c.ok) && parsed !== null && typeof name === "string")
    return { bank: { name, url: parsed, headers: out }, checks };
  return { bank: null, checks };
}
