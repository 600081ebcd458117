// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * The proof path never scans every process: each socket proof of a hire (leader_wait,
 * socket_proof, leader_proof) and of a record check asks the kernel about the one pid it has in
 * hand (the lock file's, the leader's), which reads that pid's fds only and so does not grow with
 * the number of processes on the machine (docs/design/kernel-proofs.md §2.4). Oracle: the real
 * kernel port, wrapped to record how each socketFacts call was made.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type KernelPort, type SocketFactsOptions, systemKernel } from "../../lib/kernel/index.js";
import { hire } from "../../lib/seat/hire.js";
import { verifyRecord } from "../../lib/seat/verify-seat-record.js";
import { withStack } from "./stack.js";

function recording(): { kernel: KernelPort; calls: (number | null)[] } {
  const calls: (number | null)[] = [];
  const kernel: KernelPort = {
    ...systemKernel,
    socketFacts: (path: string, options?: SocketFactsOptions) => {
      calls.push(options?.pid ?? null);
      return systemKernel.socketFacts(path, options);
    },
  };
  return { kernel, calls };
}

test("a hire and a record check ask only the leader's pid who listens on its socket", () =>
  withStack(async (stack) => {
    const { kernel, calls } = recording();
    const seat = await hire(stack.options({ kernel }));
    const leader = seat.record.leader.pid;
    const atHire = [...calls];
    // leader_wait polls until it listens, then socket_proof and leader_proof ask once each.
    assert.ok(atHire.length >= 3, `socketFacts calls at hire: ${atHire.join(",")}`);
    assert.equal(
      atHire.filter((pid) => pid !== leader),
      [],
      "every call named the leader's pid (null: a scan of every process)",
    );
    const listeners = seat.record.proofs.socket_proof?.find(
      (c) => c.check === "socket.lock_pid_listens",
    );
    assert.equal(listeners?.received, [leader]);

    calls.length = 0;
    const verification = await verifyRecord(seat.record, undefined, kernel);
    assert.ok(
      verification.checks.some((c) => c.check === "socket.leader_listens" && c.ok),
      "the record check proved the leader listens",
    );
    assert.equal(calls, [leader], "the record check asked the leader's pid, once");
    await seat.release();
  }));

test.run();
