/**
 * Step `admission`: the seat's single controller (lib/delivery/admission.ts: kernel `flock` on
 * the seat's lock file, then a durable epoch in its fence journal). The journal refuses a directory
 * that is not ours, 0700 and a real directory.
 */
import { pass } from "../../check.js";
import { admitController } from "../../delivery/index.js";
import { hireStep, outcome } from "../step-runner.js";

export interface AdmissionInput {
  /** Where the seat's journal and admission lock live (lib/seat/policy.ts `journalDirOf`). */
  readonly journalDir: string;
}

export const admission = hireStep("admission", (input: AdmissionInput, ctx) => {
  const controller = ctx.stack.adopt(admitController({ seatDir: input.journalDir }), (c) =>
    c.release(),
  );
  return outcome(
    controller,
    `admitted as the seat's only controller (epoch ${controller.epoch}, flock on ${controller.lock.path})`,
    [pass("admission.lock", "held", controller.lock.path)],
    { epoch: controller.epoch, lock: controller.lock.path },
  );
});
