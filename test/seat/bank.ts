/**
 * The operator's bank for seat tests: a real MCP server (test/sim/mcp-bank) over loopback HTTP
 * behind its own bearer token, and the `hire({ mcpBank })` option naming it `ops`; plus a
 * recorder of the owner actions a seat reports pending (the seat never answers them).
 */
import { randomBytes } from "node:crypto";
import type { HireOptions } from "../../lib/seat/hire.js";
import type { Seat } from "../../lib/seat/seat.js";
import { echoBehaviour, OperatorBank } from "../sim/mcp-bank/bank.js";
import { loadBankTools } from "../sim/mcp-bank/fixture.js";
import { type BankHttp, serveBankHttp } from "../sim/mcp-bank/http.js";
import { type Stack, temporaryProfile, withStack } from "./stack.js";

export interface Bank {
  readonly http: BankHttp;
  readonly token: string;
  readonly bank: OperatorBank;
}

export async function startBank(): Promise<Bank> {
  const bank = new OperatorBank({ tools: loadBankTools(), behaviour: echoBehaviour });
  const token = randomBytes(24).toString("hex");
  return { http: await serveBankHttp({ bank, token }), token, bank };
}

/** Run `body` against a fresh bank and stop the bank after it, whatever `body` did. */
export async function withBank(body: (b: Bank) => Promise<void>): Promise<void> {
  const b = await startBank();
  try {
    await body(b);
  } finally {
    await b.http.close();
  }
}

/**
 * Run `body` against a fresh bank and a fresh stack (`withStack`); the stack is cleaned up, then
 * the bank stopped, whatever `body` did.
 */
export async function withStackAndBank(
  body: (stack: Stack, b: Bank) => Promise<void>,
): Promise<void> {
  await withBank((b) => withStack((stack) => body(stack, b)));
}

export function bankOption(b: Pick<Bank, "http" | "token">) {
  return {
    name: "ops",
    url: b.http.url.href,
    headers: { Authorization: `Bearer ${b.token}` },
  };
}

/** `stack.options()` for a hire in a temporary profile (the stack's login) with `b` as its bank. */
export function temporaryBankOptions(
  stack: Stack,
  b: Bank,
  extra: Partial<HireOptions> = {},
): HireOptions {
  return stack.options({ profile: temporaryProfile(stack), mcpBank: bankOption(b), ...extra });
}

/** The kinds of the owner actions the seat reports pending from now on, in order. */
export function ownerActionsAsked(seat: Seat): string[] {
  const asked: string[] = [];
  seat.on((e) => {
    if (e.type === "owner-action-pending") asked.push(e.action.kind);
  });
  return asked;
}
