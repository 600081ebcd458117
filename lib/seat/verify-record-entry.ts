/**
 * `verifyRecord` as the root entry exports it: the checks (lib/seat/verify-seat-record.ts, with the
 * proofs and the Herdr client they use) load on the first call, so importing grok-seat does not
 * load them (issue 19).
 */
import type { HerdrClient } from "../herdr/client.js";
import type { KernelPort } from "../kernel/index.js";
import type { SeatRecord } from "./seat-record.js";
import type { RecordVerification } from "./verify-seat-record.js";

/** Verify a seat record against the live facts (lib/seat/verify-seat-record.ts). */
export async function verifyRecord(
  record: SeatRecord,
  herdr?: HerdrClient,
  kernel?: KernelPort,
): Promise<RecordVerification> {
  const checks = await import("./verify-seat-record.js");
  return checks.verifyRecord(record, herdr, kernel);
}
