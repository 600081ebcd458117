/**
 * Resume a seat's saved session in a new visible TUI (`grok --leader --leader-socket … --resume
 * <uuid>`), only as the seat policy allows (policy.ts): the original profile, session UUID and
 * conversation id, a confirmed prior exit of the original TUI (recorded by release, and the
 * original TUI process gone now), and — for a worker — the live original controller. The checks
 * run before anything is launched; an admitted resume then goes through every hire step, with a
 * new private runtime directory and socket, and proves the new TUI and leader from scratch.
 */
import { realpathSync } from "node:fs";
import { firstFailure } from "../check.js";
import type { KernelPort } from "../kernel/index.js";
// One kernel call, from its own files: the root entry loads this module at import, and
// `systemKernel` would load every kernel call with it (issue 19).
import { processFacts } from "../kernel/process.js";
import { readProcess } from "../kernel/process-read.js";
import type { HireOptions } from "./hire.js";
import { checkResume, type Requester, type ResumeFacts } from "./policy.js";
import { refuseOnCheck } from "./refusal.js";
import { defaultSeatRegistry, type Seat } from "./seat.js";
import type { SeatRecord } from "./seat-record.js";

export interface ResumeOptions extends Omit<HireOptions, "cwd" | "profile" | "conversationId"> {
  /** The saved record of the seat whose session is resumed. */
  readonly record: SeatRecord;
  /** The GROK_HOME to resume with: it must be the original one. */
  readonly grokHome: string;
  readonly sessionId: string;
  readonly conversationId: string;
  /** Who asks (default "controller"): a worker needs the live original controller. */
  readonly requester?: Requester;
}

function originalTuiNow(
  kernel: Pick<KernelPort, "processFacts">,
  record: SeatRecord,
): ResumeFacts["originalTuiNow"] {
  const now = readProcess(kernel, record.pane.process.pid);
  if (now.ok) {
    return now.facts.identity.value === record.pane.process.identity.value
      ? "same_process"
      : "gone";
  }
  return now.error.code === "NO_SUCH_PROCESS" || now.error.code === "ZOMBIE"
    ? "gone"
    : "unreadable";
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The policy checks for a resume request, read-only (no launch). */
export function resumeChecks(options: ResumeOptions): ReturnType<typeof checkResume> {
  const registry = options.registry ?? defaultSeatRegistry;
  let controllerLive = false;
  try {
    controllerLive = registry.admit(options.record).live;
  } catch {
    controllerLive = false;
  }
  return checkResume(
    {
      record: options.record,
      grokHome: canonical(options.grokHome),
      sessionId: options.sessionId,
      conversationId: options.conversationId,
      requester: options.requester ?? "controller",
    },
    {
      originalControllerLive: controllerLive,
      originalTuiNow: originalTuiNow(options.kernel ?? { processFacts }, options.record),
    },
  );
}

/**
 * Resume when the policy admits it; otherwise RESUME_REFUSED naming the failed check. The hire
 * flow is loaded on the first call, as for `hire()` (lib/seat/hire.ts).
 */
export async function resume(options: ResumeOptions): Promise<Seat> {
  const checks = resumeChecks(options);
  const failed = firstFailure(checks);
  if (failed !== undefined) {
    throw refuseOnCheck("resume", "RESUME_REFUSED", failed, {
      sessionId: options.record.sessionId,
    });
  }
  const { hireWith } = await import("./hire-flow.js");
  const r = options.record;
  return hireWith(
    {
      ...options,
      cwd: r.cwd,
      // The original profile, as it is on disk now (a temporary one lives in the old runtime dir).
      profile: { kind: "grok-home", grokHome: r.profile.grokHome },
      conversationId: options.conversationId,
    },
    { kind: "resume", sessionId: r.sessionId, record: r },
  );
}
