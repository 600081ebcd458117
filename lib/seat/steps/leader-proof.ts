/**
 * Step `leader_proof`: `get_leader_info` tested against kernel facts (lib/observe/leader-proof.ts,
 * lib/proof/leader.ts), then the leader's kernel handle, opened on the proven identity and kept for
 * the seat's life (only through it may release stop the leader).
 */
import { expectEqual, firstFailure } from "../../check.js";
import { identityJson, type ProcessFacts, type ProcessHandle } from "../../kernel/index.js";
import type { LeaderInfo } from "../../leader/control.js";
import type { LeaderConnection } from "../../leader/leader-connection.js";
import { proveLeader } from "../../observe/leader-proof.js";
import type { BoundTui, LeaderProofInput } from "../../proof/leader.js";
import { refuseOnCheck, refuseOnThrow, SeatRefusal } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";

export interface LeaderProofStepInput {
  readonly conn: LeaderConnection;
  readonly socketPath: string;
  readonly tui: BoundTui;
  readonly grokExecutable: string;
  readonly requestMs: number;
}

export interface ProvenLeader {
  readonly info: LeaderInfo;
  readonly facts: ProcessFacts;
  readonly proof: LeaderProofInput;
  readonly handle: ProcessHandle;
}

export const leaderProof = hireStep("leader_proof", async (input: LeaderProofStepInput, ctx) => {
  const proof = await proveLeader(input.conn, {
    socketPath: input.socketPath,
    tui: input.tui,
    grokExecutable: input.grokExecutable,
    controlTimeoutMs: input.requestMs,
    kernel: ctx.kernel,
  });
  const failed = firstFailure(proof.checks);
  if (failed !== undefined || proof.leaderInfo === null || proof.facts === null) {
    const f = failed ?? proof.checks[0];
    if (f === undefined) {
      throw new SeatRefusal({
        step: "leader_proof",
        code: "LEADER_UNPROVEN",
        reason: "no leader proof",
      });
    }
    throw refuseOnCheck("leader_proof", "LEADER_UNPROVEN", f, {
      leaderPid: proof.leaderInfo?.pid ?? null,
    });
  }
  const read = proof.facts.leader;
  if (!read.ok) throw new Error("unreachable: a passed leader proof has facts");
  const facts = read.facts;
  ctx.left.leaderPid = facts.pid;
  const handle = await refuseOnThrow(
    {
      step: "leader_proof",
      code: "IDENTITY_UNPROVEN",
      check: "leader.handle",
      reason: () => `no kernel handle on leader pid ${facts.pid} with its proven identity`,
    },
    () =>
      ctx.stack.adopt(ctx.kernel.openProcessHandle(facts.pid, facts.identity), (h) => h.close()),
  );
  // The handle must be on the very process the proof named (our connection's peer identity
  // already matched it in `leader.peer_identity`).
  const handleCheck = expectEqual(
    "leader.handle_identity",
    identityJson(facts.identity),
    identityJson(handle.identity),
    "the kernel handle is on another process than the proven leader",
  );
  if (!handleCheck.ok) throw refuseOnCheck("leader_proof", "IDENTITY_UNPROVEN", handleCheck);
  const value: ProvenLeader = { info: proof.leaderInfo, facts, proof: proof.facts, handle };
  return outcome(
    value,
    `leader pid ${facts.pid} proven: ${facts.executable ?? "?"}, child of TUI ${facts.ppid}, peer of our connection, lock holder`,
    [...proof.checks, handleCheck],
    {
      pid: facts.pid,
      ppid: facts.ppid,
      identity: identityJson(facts.identity),
      executable: facts.executable,
      cwd: facts.cwd,
    },
  );
});
