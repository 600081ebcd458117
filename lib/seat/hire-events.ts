/**
 * The names of the hire steps, in the order they run, and the progress events a hire emits
 * (ADR 0224 (docs/design/adr-0224.md), "Decision"; issue 8). Step names are stable strings: an orchestrator's UI and
 * the CLI key on them, and every refusal names the step it happened in.
 */
import type { CheckResult } from "../check.js";
import type { OwnerGate } from "../grok/owner-gates.js";
import type { JsonValue } from "../json.js";

export const HIRE_STEPS = [
  "preflight",
  "runtime_dir",
  "session_id",
  "launch",
  "pane_proof",
  "leader_wait",
  "socket_proof",
  "admission",
  "connect",
  "register",
  "leader_proof",
  "active_sessions",
  "agent",
  "acp_initialize",
  "versions",
  "catalog",
  "attach",
  "model",
  "persona",
  "mcp_bank",
  "skills",
  "ready",
] as const;
export type HireStep = (typeof HIRE_STEPS)[number];

/** Where a refusal can happen: a hire step, or an action on a ready (or recorded) seat. */
export type SeatStep = HireStep | "deliver" | "release" | "resume" | "adopt";

/**
 * What a step that waits for the owner reports (`type: "waiting"`): `kind: "owner_action"`, the
 * startup screen the TUI likely shows (`gate`; `unknown` when nothing predicted it, e.g. a terms
 * notice, which only the account's settings server arms), the pane and the owner's step. The step
 * then waits up to `timeoutMs` (`timeouts.ownerMs`) before it refuses OWNER_GATE_TIMEOUT.
 */
export interface OwnerActionWait {
  readonly kind: "owner_action";
  readonly gate: OwnerGate;
  readonly paneId: string;
  readonly ownerStep: string;
  readonly timeoutMs: number;
}

/**
 * One progress event. `started` precedes the step's work; `waiting` says the step waits for the
 * owner (it may come more than once); `proven` carries the checks that passed and the facts they
 * were computed from; `refused` carries the refusal (the hire then rejects with the same
 * `SeatRefusal`). `elapsedMs` counts from the start of the hire.
 */
export type HireEvent =
  | {
      readonly type: "started";
      readonly step: HireStep;
      readonly elapsedMs: number;
    }
  | ({
      readonly type: "waiting";
      readonly step: HireStep;
      readonly elapsedMs: number;
    } & OwnerActionWait)
  | {
      readonly type: "proven";
      readonly step: HireStep;
      readonly elapsedMs: number;
      /** One line for a person: what was established. */
      readonly summary: string;
      readonly checks: readonly CheckResult[];
      readonly facts: JsonValue;
    }
  | {
      readonly type: "refused";
      readonly step: HireStep;
      readonly elapsedMs: number;
      readonly code: string;
      readonly check: string | null;
      readonly reason: string;
      readonly ownerNextStep: string;
    };

export type HireListener = (event: HireEvent) => void;
