/**
 * The owner's startup screens: the TUI creates (or loads) its session only after sign-in,
 * consent and folder trust are all done (`xai-grok-pager/src/app/app_view.rs`
 * `session_startup_allowed`; `app/event_loop.rs` `seed_trust_state`), each answered by the owner
 * in the pane. The seat never answers them; it predicts them before launch, tells the owner, and
 * waits an owner-sized bound. What can be predicted:
 * - sign-in: the profile has no login the agent can use (lib/grok/login.ts);
 * - folder trust: the same rules as the real gate (lib/grok/folder-trust.ts);
 * - consent: armed only by the account's settings server (`app/consent.rs` `consent_verdict`),
 *   so it is always merely possible, never predicted.
 * docs/design/decisions.md §12.2.
 */
import type { FolderTrustPrediction } from "./folder-trust.js";
import type { LoginState } from "./login.js";

export type OwnerGate = "sign_in" | "consent" | "folder_trust" | "unknown";

export interface OwnerGatePrediction {
  readonly signIn: "expected" | "not_expected";
  /** The settings server decides; nothing on disk tells. */
  readonly consent: "possible";
  readonly folderTrust: FolderTrustPrediction;
  /** The gates expected, in the order the TUI shows them (sign-in, consent, folder trust). */
  readonly expected: readonly ("sign_in" | "folder_trust")[];
}

export function predictOwnerGates(
  login: LoginState,
  folderTrust: FolderTrustPrediction,
): OwnerGatePrediction {
  const expected: ("sign_in" | "folder_trust")[] = [];
  if (login === "missing") expected.push("sign_in");
  if (folderTrust.outcome === "prompt") expected.push("folder_trust");
  return {
    signIn: login === "missing" ? "expected" : "not_expected",
    consent: "possible",
    folderTrust,
    expected,
  };
}

/** One line for the `preflight` summary. */
export function describeGates(p: OwnerGatePrediction): string {
  const parts: string[] = [];
  if (p.signIn === "expected") parts.push("sign-in (the profile has no login)");
  if (p.folderTrust.outcome === "prompt") {
    parts.push(`folder trust for ${p.folderTrust.workspace} (${p.folderTrust.kinds.join(", ")})`);
  }
  const consent = "consent possible (the account's settings decide)";
  return parts.length === 0
    ? `owner screens: none expected; ${consent}`
    : `owner screens expected: ${parts.join(", then ")}; ${consent}`;
}

/** What the owner should do, for the gate a waiting step names. */
export function ownerStepForGate(
  gate: OwnerGate,
  paneId: string,
  p: OwnerGatePrediction | null,
  resuming = false,
): string {
  const trust =
    p === null
      ? "answer the folder-trust prompt"
      : `answer the folder-trust prompt for ${p.folderTrust.workspace}`;
  switch (gate) {
    case "sign_in":
      return p?.folderTrust.outcome === "prompt"
        ? `Sign in to Grok in pane ${paneId}, then ${trust} there; the seat waits.`
        : `Sign in to Grok in pane ${paneId}; the seat waits.`;
    case "folder_trust":
      return `In pane ${paneId}, ${trust} (y trusts it, n quits); the seat waits.`;
    case "consent":
      return `Accept Grok's notice in pane ${paneId}; the seat waits.`;
    case "unknown":
      // `--resume` loads the whole session before the TUI records it: a large one takes minutes.
      return resuming
        ? `Look at the Grok TUI in pane ${paneId}: it may still be loading the session (a large one can take minutes), or a startup screen (sign-in, a terms notice or folder trust) may be waiting for you; the seat waits.`
        : `Look at the Grok TUI in pane ${paneId}: a startup screen (sign-in, a terms notice or folder trust) may be waiting for you; the seat waits.`;
  }
}
