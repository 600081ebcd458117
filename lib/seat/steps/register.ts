/**
 * Step `register`: `register` as `stdio` on the proven connection (`status_line: true`, so our
 * attach never switches off a status row the owner's TUI draws: lib/leader/messages.ts), `registered`
 * and readiness, then the leader's half of the version agreement (lib/grok/version.ts
 * `admitLeaderVersion`: protocol 1, `control_v1`, the same version as `grok --version`).
 */
import type net from "node:net";
import { firstFailure } from "../../check.js";
import { admitLeaderVersion, type GrokVersion } from "../../grok/version.js";
import { connectLeader, type LeaderConnection } from "../../leader/leader-connection.js";
import { refuseOnCheck, refuseOnThrow } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";

export interface RegisterInput {
  readonly socket: net.Socket;
  readonly cli: GrokVersion;
  /** Each leader registration, control and ACP request (default 30 s). */
  readonly requestMs: number;
}

/** Close the connection (a `disconnect` frame), bounded: a refused hire must not hang on it. */
export function closeWithin(conn: LeaderConnection, ms: number): Promise<unknown> {
  return Promise.race([conn.close(), new Promise((r) => setTimeout(r, ms).unref())]);
}

export const register = hireStep("register", async (input: RegisterInput, ctx) => {
  const conn = await refuseOnThrow(
    {
      step: "register",
      code: "LEADER_CONNECT_FAILED",
      check: "register.registered",
      reason: (f) => `the leader did not register us: ${f.message}`,
    },
    () =>
      connectLeader(input.socket, {
        registrationTimeoutMs: Math.min(input.requestMs, 10_000),
        readyTimeoutMs: input.requestMs,
        controlTimeoutMs: input.requestMs,
      }),
  );
  // The connection owns the socket now: closing it sends `disconnect` first.
  ctx.stack.release(input.socket);
  ctx.stack.adopt(conn, (c) => closeWithin(c, 2_000));
  const r = conn.registered;
  const checks = admitLeaderVersion(input.cli, r);
  const failed = firstFailure(checks);
  if (failed !== undefined) throw refuseOnCheck("register", "VERSION_MISMATCH", failed);
  return outcome(
    conn,
    `registered as client ${r.client_id}; leader ${r.leader_binary_version ?? "?"}, protocol ${r.leader_protocol_version ?? "?"}, control_v1`,
    checks,
    {
      clientId: r.client_id,
      leaderBinaryVersion: r.leader_binary_version,
      leaderProtocolVersion: r.leader_protocol_version,
      controlV1: r.leader_capabilities?.control_v1 ?? null,
    },
  );
});
