/**
 * `SeatRefusal`: the one error a hire, a delivery, a release, a resume or an adoption refuses
 * with. It names the step, the failed check (when a check failed), a stable code, the reason and
 * the owner's next step (ADR 0224 (docs/design/adr-0224.md): a refusal "names the owner's disable-and-start-fresh
 * step"). Codes are stable; tests and callers branch on `code`, never on text.
 */

import type { AcpErrorCode } from "../acp/acp-error.js";
import type { CheckResult } from "../check.js";
import type { DeliveryErrorCode } from "../delivery/index.js";
import { failureOf, GrokSeatError } from "../errors.js";
import { LINEAR_OWNER_STEP, UNVERIFIABLE_OWNER_STEP } from "../grok/catalog.js";
import type { GrokErrorCode } from "../grok/grok-error.js";
import { VERSION_FLOOR } from "../grok/version-floor.js";
import type { HerdrErrorCode } from "../herdr/herdr-error.js";
import type { KernelFailureCode } from "../kernel/index.js";
import type { LeaderErrorCode } from "../leader/leader-error.js";
import type { SeatStep } from "./hire-events.js";

/** What the owner can do about each code; a code not listed gets the generic step. */
const OWNER_STEPS = {
  PLATFORM_UNSUPPORTED: "Run the seat on macOS or Linux.",
  GROK_NOT_FOUND: `Install Grok Build ${VERSION_FLOOR} or newer, or pass the path of its grok executable.`,
  GROK_VERSION_UNREADABLE:
    "Check that `grok --version` runs and prints its version, then hire again.",
  VERSION_BELOW_FLOOR: `Update Grok Build to ${VERSION_FLOOR} or newer, then hire again.`,
  VERSION_MISMATCH:
    "Make the grok CLI, its leader and its agent one version (update or reinstall Grok Build), then hire again.",
  PROFILE_INVALID:
    "Pass an existing GROK_HOME directory you own that no one else can write to or rename (every directory above it yours or root's, not group/other-writable unless sticky), or an existing login file to copy into a temporary profile.",
  CWD_INVALID: "Pass an existing working directory you can enter.",
  SANDBOX_DISABLES_LEADER:
    "A Grok sandbox profile turns leader mode off, so no seat can attach: unset GROK_SANDBOX (or set it to off) and remove [sandbox] profile from the profile's config.toml, then hire again.",
  OWNER_GATE_TIMEOUT:
    "The TUI did not create its session in time: answer its startup screen (sign-in, terms notice or folder trust) in the pane, or quit it (/quit); then hire again, with a longer timeouts.ownerMs if you need more time.",
  SKILL_UNREADABLE: "Make every selected skill path readable, or leave it out of the selection.",
  PERSONA_INVALID:
    "Pass the persona as text of at most 131063 UTF-8 bytes, without NUL (one command-line argument holds it).",
  SKILL_NOT_DISCOVERED:
    "Grok does not list a selected skill: give a SKILL.md file or a directory holding SKILL.md files, and check the grok version, then hire again.",
  EXTENSION_UNSUPPORTED:
    "This Grok lacks an extension the seat needs (see details.method): update Grok Build, or hire without that option.",
  BANK_INVALID:
    "Name the bank with letters, digits, '_' or '-' (no '__', at most 61 characters) and give its http(s) URL and valid headers.",
  BANK_UNREACHABLE:
    "The operator's MCP bank could not be reached or listed: check its URL and headers, then hire again.",
  BANK_NOT_READY:
    "Grok did not connect to the seat's bank proxy or does not list its tools: read the MCP status in the TUI (/mcps), quit the Grok pane (/quit) and hire again.",
  PERSONA_NOT_APPLIED:
    "Grok's system prompt for this session does not hold the persona: check the grok version and that no model switch dropped it, quit the Grok pane (/quit) and hire again.",
  HERDR_UNREACHABLE:
    "Start Herdr (or point HERDR_SOCKET_PATH / --herdr-socket at its API socket), then hire again.",
  HERDR_UNTRUSTED:
    "The Herdr socket, its directory or the server behind it is not yours: start your own Herdr, or point HERDR_SOCKET_PATH / the herdr option at your own server's socket in a directory only you can write (check HOME / XDG_CONFIG_HOME: without them Herdr uses <tmp>/herdr, which another user may have made first).",
  RUNTIME_DIR_UNSAFE:
    "Use a runtime base whose every directory up to / is yours or root's and not writable by group or others unless sticky (like /tmp), that is not a symlink and keeps the socket path short; do not let anyone rename the seat's directory.",
  PANE_LAUNCH_FAILED: "Check that Herdr can open a new tab, then hire again.",
  PANE_UNPROVEN:
    "Do not move, replace or close the Grok pane while a seat is hired; quit it (/quit) and hire again.",
  HERDR_AGENT_REFUSED:
    "Herdr reports another agent or session for the pane than the one launched: quit the Grok pane (/quit) and hire again.",
  TUI_EXITED:
    "The Grok TUI exited during the hire; read its last output in the pane, then hire again.",
  LEADER_NOT_READY:
    "The Grok TUI did not bring up its leader in time; read the TUI's screen and leader.log, quit it (/quit) and hire again.",
  SOCKET_UNPROVEN:
    "The private leader socket is not what it should be; quit the Grok pane (/quit) and hire again.",
  LEADER_BUSY: "Another controller holds this seat; release it first.",
  EPOCH_EXHAUSTED:
    "This seat's journal has admitted its last controller; hire a fresh seat (a new runtime directory).",
  LEADER_CONNECT_FAILED: "Quit the Grok pane (/quit) and hire again.",
  LEADER_UNPROVEN:
    "The process answering on the leader socket is not the leader the TUI started: quit the Grok pane (/quit), then hire again.",
  IDENTITY_UNPROVEN:
    "The kernel could not prove the process identity; quit the Grok pane (/quit) and hire again.",
  ACTIVE_SESSION_UNPROVEN:
    "Grok's active_sessions.json does not name the TUI's session; quit the Grok pane (/quit) and hire again.",
  LINEAR_DIRECT_ENABLED: LINEAR_OWNER_STEP,
  CATALOG_NOT_SESSION_SCOPED: "Quit the Grok pane (/quit) and hire again.",
  CATALOG_UNVERIFIABLE: UNVERIFIABLE_OWNER_STEP,
  SESSION_UNKNOWN:
    "The TUI's session is not live in its leader; quit the Grok pane (/quit) and hire again.",
  SESSION_CWD_MISMATCH:
    "The TUI's session runs in another directory; quit the Grok pane (/quit) and hire again.",
  MODEL_UNKNOWN:
    "Choose a model Grok offers for this session (see details.available), then hire again.",
  EFFORT_UNKNOWN: "Choose a reasoning effort the model offers (see details), then hire again.",
  MODEL_NOT_ECHOED:
    "Grok did not confirm the model selection; quit the Grok pane (/quit) and hire again.",
  RECORD_WRITE_FAILED: "Free space or fix permissions of the runtime directory, then hire again.",
  HIRE_ABORTED: "The hire was cancelled by its caller.",
  ADOPTION_REFUSED:
    "Hire a fresh seat. A saved seat record can be re-verified (verify-proof record) but never adopts a leader.",
  RESUME_REFUSED:
    "Resume only with the original profile, session id and conversation id, after the original TUI exited, from the controller that hired it.",
  TUI_ALIVE: "Quit the Grok TUI in its pane (/quit) first; its leader is only stopped after that.",
  LEADER_REPLACED:
    "Another process now serves the seat's socket; nothing was sent to it. Hire a fresh seat.",
  LEADER_GONE: "The seat's leader has exited; hire a fresh seat.",
  LEADER_SHUTTING_DOWN:
    "The seat's leader shut down (e.g. Grok's self-update); the seat has ended and never reconnects. Reconcile its receipts from the record, then hire a fresh seat.",
  SEAT_RELEASED: "The seat was released; hire a fresh seat.",
  CONNECTION_CLOSED: "The connection to the leader closed; nothing is resent. Hire a fresh seat.",
  DELIVERY_UNCERTAIN:
    "The prompt may or may not have reached Grok; it is never resent. Reconcile the receipt, or look at the TUI.",
} as const satisfies Readonly<Record<string, string>>;

/** The codes a seat refuses with by its own rules, each with the owner's next step above. */
export type SeatOwnCode = keyof typeof OWNER_STEPS;

/**
 * Every code a `SeatRefusal` can carry: the seat's own, and the code of the lower layer's typed
 * error a step refused with (switch on these; a peer's own code, a `WireError`'s, may appear too,
 * which is why `SeatRefusal.code` stays a string).
 */
export type SeatRefusalCode =
  | SeatOwnCode
  | AcpErrorCode
  | DeliveryErrorCode
  | GrokErrorCode
  | HerdrErrorCode
  | KernelFailureCode
  | LeaderErrorCode
  | "INVALID_ARGUMENT"
  | "HANDLE_CLOSED"
  | "ADDON_LOAD_FAILED";

const GENERIC_STEP = "Quit the Grok pane (/quit) if one was opened, then hire again.";

const OWNER_STEP_OF: ReadonlyMap<string, string> = new Map(Object.entries(OWNER_STEPS));

export function ownerStepFor(code: string): string {
  return OWNER_STEP_OF.get(code) ?? GENERIC_STEP;
}

export interface SeatRefusalInit {
  readonly step: SeatStep;
  readonly code: string;
  readonly reason: string;
  readonly check?: string | null;
  readonly ownerNextStep?: string;
  readonly details?: Record<string, unknown>;
  readonly cause?: unknown;
}

export class SeatRefusal extends GrokSeatError {
  readonly step: SeatStep;
  readonly check: string | null;
  readonly reason: string;
  readonly ownerNextStep: string;

  constructor(init: SeatRefusalInit) {
    super(init.code, init.reason, {
      details: { step: init.step, check: init.check ?? null, ...(init.details ?? {}) },
      ...(init.cause === undefined ? {} : { cause: init.cause }),
    });
    this.step = init.step;
    this.check = init.check ?? null;
    this.reason = init.reason;
    this.ownerNextStep = init.ownerNextStep ?? ownerStepFor(init.code);
  }

  /** The same refusal with more details (what a refused hire left behind, for the owner). */
  withDetails(extra: Record<string, unknown>): SeatRefusal {
    const copy = new SeatRefusal({
      step: this.step,
      code: this.code,
      reason: this.reason,
      check: this.check,
      ownerNextStep: this.ownerNextStep,
      details: { ...this.context, ...extra },
      ...(this.cause === undefined ? {} : { cause: this.cause }),
    });
    if (this.stack !== undefined) copy.stack = this.stack;
    return copy;
  }

  /** `{ step, check, code, reason, ownerNextStep, details }` for logs and `--json`. */
  toRefusal(): {
    step: SeatStep;
    check: string | null;
    code: string;
    reason: string;
    ownerNextStep: string;
    details: Record<string, unknown>;
  } {
    return {
      step: this.step,
      check: this.check,
      code: this.code,
      reason: this.reason,
      ownerNextStep: this.ownerNextStep,
      details: { ...this.context },
    };
  }
}

/** A refusal built from the first failed check of a proof (and the error behind it, if any). */
export function refuseOnCheck(
  step: SeatStep,
  code: string,
  failed: CheckResult,
  details: Record<string, unknown> = {},
  cause?: unknown,
): SeatRefusal {
  return new SeatRefusal({
    step,
    code,
    check: failed.check,
    reason: failed.reason ?? `${failed.check} failed`,
    details: { expected: failed.expected, received: failed.received, ...details },
    ...(cause === undefined || cause === null ? {} : { cause }),
  });
}

/** Where a refusal is named when a call fails: its step, code, check and reason. */
export interface RefusalSpec {
  readonly step: SeatStep;
  /** The refusal's code; without one, the failure's own code and its details are kept. */
  readonly code?: string;
  readonly check: string;
  /** The reason, from the failure's code and message. */
  readonly reason: (failure: { readonly code: string; readonly message: string }) => string;
  readonly details?: Record<string, unknown>;
}

/**
 * Run `fn`; a typed failure it throws (a GrokSeatError, or a Node system error with its errno)
 * becomes this refusal, with the failure kept as its cause. Anything untyped is a bug and is
 * thrown as it is.
 */
export async function refuseOnThrow<T>(spec: RefusalSpec, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const failure = failureOf(err);
    if (failure === null || err instanceof SeatRefusal) throw err;
    const own = spec.code === undefined && err instanceof GrokSeatError ? { ...err.context } : {};
    throw new SeatRefusal({
      step: spec.step,
      code: spec.code ?? failure.code,
      check: spec.check,
      reason: spec.reason(failure),
      details: { ...own, ...(spec.details ?? {}) },
      cause: err,
    });
  }
}
