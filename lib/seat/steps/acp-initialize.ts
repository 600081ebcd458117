/**
 * Step `acp_initialize`: ACP over the one leader connection (lib/acp/acp-handshake.ts), with the
 * admitted controller's journal behind every prompt and the proven leader and pane as the fence's
 * identities. `initialize` at protocol 1 with session loading and `session/resume`; nothing of the
 * owner's session is touched yet.
 */

import type { AcpHandshake } from "../../acp/acp-handshake.js";
import type { InitializeFacts } from "../../acp/handshake.js";
import { pass } from "../../check.js";
import type { Journal } from "../../delivery/index.js";
import type { ProcessFacts } from "../../kernel/index.js";
import type { LeaderConnection } from "../../leader/leader-connection.js";
import type { PaneProofRecord } from "../../proof/pane.js";
import { hireStep, outcome } from "../step-runner.js";

export interface AcpInitializeInput {
  readonly conn: LeaderConnection;
  readonly sessionId: string;
  readonly cwd: string;
  readonly journal: Journal;
  /** The proven leader and pane: the identities every fence names. */
  readonly leader: ProcessFacts;
  readonly pane: PaneProofRecord;
  readonly requestMs: number;
}

export interface AcpInitialized {
  readonly handshake: AcpHandshake;
  readonly init: InitializeFacts;
}

export const acpInitialize = hireStep("acp_initialize", async (input: AcpInitializeInput, ctx) => {
  const { leader, pane } = input;
  // Loaded here, not at import: the ACP client brings the ACP SDK and zod (~100 modules), which
  // importing grok-seat must not pay for (issue 19; README "Entry points").
  const { AcpHandshake } = await import("../../acp/acp-handshake.js");
  const handshake = ctx.stack.adopt(
    AcpHandshake.open(input.conn, {
      sessionId: input.sessionId,
      cwd: input.cwd,
      journal: input.journal,
      leaderIdentity: `leader:${leader.pid}:${leader.identity.kind}:${leader.identity.value}`,
      paneIdentity: `pane:${pane.pane.paneId}:${pane.pane.terminalId}:${pane.process.pid}:${pane.process.identity.value}`,
      requestTimeoutMs: input.requestMs,
    }),
    (h) => h.close(),
  );
  const init = await handshake.initialize();
  return outcome<AcpInitialized>(
    { handshake, init },
    `ACP initialized: protocol ${init.protocolVersion}, loadSession, resume; agent ${init.agentVersion ?? "?"}`,
    [
      pass("acp.protocol", 1, init.protocolVersion),
      pass("acp.load_session", true, init.loadSession),
      pass("acp.resume", true, init.resume),
    ],
    { ...init },
  );
});
