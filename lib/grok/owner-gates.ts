/**
 * The owner's startup screens: the TUI creates (or loads) its session only after sign-in,
 * consent and folder trust are all done (`xai-grok-pager/src/app/app_view.rs`
 * `session_startup_allowed`; `app/event_loop.rs` `seed_trust_state`), each answered by the owner
 * in the pane. The seat never answers them; it predicts them before launch, tells the owner, and
 * waits an owner-sized bound. What can be predicted:
 * - sign-in: the profile has no login the agent can use (lib/grok/login.ts);
 * - folder trust: the same rules as the real gate (lib/grok/folder-trust.ts);
 * - consent: armed only by the account's settings server (`app/consent.rs` `consent_verdict`);
 *   expected only for a temporary profile whose login comes from a profile with an answer the
 *   server has not acknowledged yet (lib/grok/consent.ts), otherwise merely possible.
 * docs/design/decisions.md §12.2.
 */
import type { ConsentPrediction } from "./consent.js";
import type { FolderTrustPrediction } from "./folder-trust.js";
import type { LoginState } from "./login.js";

export type OwnerGate = "sign_in" | "consent" | "folder_trust" | "unknown";

export interface OwnerGatePrediction {
  readonly signIn: "expected" | "not_expected";
  /** The settings server decides; a temporary profile's missing answers can make it expected. */
  readonly consent: ConsentPrediction;
  readonly folderTrust: FolderTrustPrediction;
  /** The gates expected, in the order the TUI shows them (sign-in, consent, folder trust). */
  readonly expected: readonly ("sign_in" | "consent" | "folder_trust")[];
}

export function predictOwnerGates(
  login: LoginState,
  folderTrust: FolderTrustPrediction,
  consent: ConsentPrediction = "possible",
): OwnerGatePrediction {
  const expected: ("sign_in" | "consent" | "folder_trust")[] = [];
  if (login === "missing") expected.push("sign_in");
  if (consent === "expected") expected.push("consent");
  if (folderTrust.outcome === "prompt") expected.push("folder_trust");
  return {
    signIn: login === "missing" ? "expected" : "not_expected",
    consent,
    folderTrust,
    expected,
  };
}

/** One line for the `preflight` summary. */
export function describeGates(p: OwnerGatePrediction): string {
  const parts: string[] = [];
  if (p.signIn === "expected") parts.push("sign-in (the profile has no login)");
  if (p.consent === "expected") {
    parts.push(
      "consent (a notice the owner answered elsewhere; this temporary profile has no answer)",
    );
  }
  if (p.folderTrust.outcome === "prompt") {
    parts.push(`folder trust for ${p.folderTrust.workspace} (${p.folderTrust.kinds.join(", ")})`);
  }
  const consent =
    p.consent === "expected" ? "" : "; consent possible (the account's settings decide)";
  return parts.length === 0
    ? `owner screens: none expected${consent}`
    : `owner screens expected: ${parts.join(", then ")}${consent}`;
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
  // The screens that follow the one named, in the order the TUI shows them.
  const after = (g: OwnerGate): string[] => {
    const rest: string[] = [];
    if (g === "sign_in" && p?.consent === "expected") rest.push("accept Grok's notice");
    if (g !== "folder_trust" && p?.folderTrust.outcome === "prompt") rest.push(trust);
    return rest;
  };
  const then = (g: OwnerGate): string =>
    after(g)
      .map((x) => `, then ${x} there`)
      .join("");
  switch (gate) {
    case "sign_in":
      return `Sign in to Grok in pane ${paneId}${then(gate)}; the seat waits.`;
    case "folder_trust":
      return `In pane ${paneId}, ${trust} (y trusts it, n quits); the seat waits.`;
    case "consent":
      return `Accept Grok's notice in pane ${paneId}${then(gate)}; the seat waits.`;
    case "unknown":
      // `--resume` loads the whole session before the TUI records it: a large one takes minutes.
      return resuming
        ? `Look at the Grok TUI in pane ${paneId}: it may still be loading the session (a large one can take minutes), or a startup screen (sign-in, a terms notice or folder trust) may be waiting for you; the seat waits.`
        : `Look at the Grok TUI in pane ${paneId}: a startup screen (sign-in, a terms notice or folder trust) may be waiting for you; the seat waits.`;
  }
}
