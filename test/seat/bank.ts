/**
 * The operator's bank for seat tests: a real MCP server (test/sim/mcp-bank) over loopback HTTP
 * behind its own bearer token, and the `hire({ mcpBank })` option naming it `ops`; plus a
 * recorder of the owner actions a seat reports pending (the seat never answers them).
 */
import { randomBytes } from "node:crypto";
import type { Seat } from "../../lib/seat/seat.js";
import { echoBehaviour, OperatorBank } from "../sim/mcp-bank/bank.js";
import { loadBankTools } from "../sim/mcp-bank/fixture.js";
import { type BankHttp, serveBankHttp } from "../sim/mcp-bank/http.js";

export async function startBank(): Promise<{ http: BankHttp; token: string; bank: OperatorBank }> {
  const bank = new OperatorBank({ tools: loadBankTools(), behaviour: echoBehaviour });
  const token = randomBytes(24).toString("hex");
  return { http: await serveBankHttp({ bank, token }), token, bank };
}

export function bankOption(b: { http: BankHttp; token: string }) {
  return {
    name: "ops",
    url: b.http.url.href,
    headers: { Authorization: `Bearer ${b.token}` },
  };
}

/** The kinds of the owner actions the seat reports pending from now on, in order. */
export function ownerActionsAsked(seat: Seat): string[] {
  const asked: string[] = [];
  seat.on((e) => {
    if (e.type === "owner-action-pending") asked.push(e.action.kind);
  });
  return asked;
}
