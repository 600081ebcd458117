/**
 * Run the leader proof over a registered connection: ask `get_leader_info`, gather the kernel facts
 * (`leader-facts.ts`) and check them (`lib/proof/leader.ts`). A leader that cannot answer
 * `get_leader_info` (legacy, no `control_v1`, an `Err`, a timeout) fails `leader.info` and nothing
 * else is claimed about it.
 */
import { type CheckResult, fail, pass } from "../check.js";
import { GrokSeatError } from "../errors.js";
import { type KernelPort, type PeerCredentials, systemKernel } from "../kernel/index.js";
import type { LeaderInfo } from "../leader/control.js";
import type { LeaderConnection } from "../leader/leader-connection.js";
import { type BoundTui, checkLeader, type LeaderProofInput } from "../proof/leader.js";
import { gatherLeaderFacts } from "./leader-facts.js";

export interface LeaderProofRequest {
  readonly socketPath: string;
  readonly tui: BoundTui | null;
  readonly grokExecutable: string | null;
  readonly controlTimeoutMs?: number;
  /** The kernel the facts are read from (default: the real one). */
  readonly kernel?: KernelPort;
}

export interface LeaderProof {
  /** The self-report, or null when the leader did not give one. */
  readonly leaderInfo: LeaderInfo | null;
  /** Every fact the checks were computed from (JSON-recordable), or null without leader info. */
  readonly facts: LeaderProofInput | null;
  /** Peer credentials of our connection, when they could be read. */
  readonly peer: PeerCredentials | null;
  readonly checks: readonly CheckResult[];
}

export async function proveLeader(
  connection: LeaderConnection,
  req: LeaderProofRequest,
): Promise<LeaderProof> {
  let leaderInfo: LeaderInfo;
  try {
    leaderInfo = await connection.getLeaderInfo(
      req.controlTimeoutMs === undefined ? {} : { timeoutMs: req.controlTimeoutMs },
    );
  } catch (err) {
    if (!(err instanceof GrokSeatError)) throw err;
    return {
      leaderInfo: null,
      facts: null,
      peer: null,
      checks: [
        fail("leader.info", "leader_info", err.code, `get_leader_info failed: ${err.message}`),
      ],
    };
  }
  const facts = await gatherLeaderFacts({
    connection,
    leaderInfo,
    socketPath: req.socketPath,
    tui: req.tui,
    grokExecutable: req.grokExecutable,
    kernel: req.kernel ?? systemKernel,
  });
  return {
    leaderInfo,
    facts,
    peer: facts.peer.ok ? facts.peer.value : null,
    checks: [pass("leader.info", "leader_info", "leader_info"), ...checkLeader(facts)],
  };
}
