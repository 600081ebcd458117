/**
 * The owner's startup screens that hold session creation (pager app/app_view.rs
 * `session_startup_allowed`: auth, folder trust and consent must all be Done; the input
 * interceptors answer sign-in first, then consent, then trust). The leader is already running and
 * initialized when they show (acp/mod.rs `connect` runs before event_loop.rs seeds them):
 *
 * - Sign-in (views/welcome/mod.rs `AuthState::Pending`): when `initialize` lists an interactive
 *   login first (acp/mod.rs `startup_auth_metadata`), or the eager `authenticate` fails. Screen
 *   "Login with Grok" with `l` (log in) and `q` (quit). The simulated browser login completes as
 *   soon as the owner presses `l`.
 * - Consent (consent.ts): `a` accepts and records the answer, `q` quits.
 * - Folder trust (trust.ts; views/welcome/mod.rs `render_welcome_trust`): "Do you trust the
 *   contents of this directory?"; `y`, `Y` or Enter trusts and records the workspace, `n`, `N`
 *   or Esc quits; Ctrl-C / Ctrl-D quit on every screen.
 */
import { field, str } from "../json.js";
import { trace } from "../trace.js";
import { decideTrust, recordTrust } from "../trust.js";
import { type ConsentNotice, pendingConsent, recordConsent } from "./consent.js";

export type GateName = "sign_in" | "consent" | "folder_trust";

export interface GateHost {
  /** Show a gate's screen lines (an empty list clears it). */
  show(gate: GateName | undefined, lines: string[]): void;
  /** Quit the TUI (the answer was "no"). */
  quit(): void;
  /** authenticate with a method; undefined on success, the error text otherwise. */
  authenticate(methodId: string): Promise<string | undefined>;
}

interface Waiting {
  keys: Map<string, () => void>;
}

const CTRL_C = "\x03";
const CTRL_D = "\x04";
const ESC = "\x1b";

export class StartupGates {
  private readonly host: GateHost;
  private waiting: Waiting | undefined;

  constructor(host: GateHost) {
    this.host = host;
  }

  get active(): boolean {
    return this.waiting !== undefined;
  }

  /** A key typed into the pane; true when a gate took it. */
  key(ch: string): boolean {
    const w = this.waiting;
    if (w === undefined) return false;
    if (ch === CTRL_C || ch === CTRL_D) {
      this.host.quit();
      return true;
    }
    w.keys.get(ch)?.();
    return true;
  }

  private ask(gate: GateName, lines: string[], answers: Record<string, string[]>): Promise<string> {
    trace("tui_gate", { gate, state: "shown" });
    this.host.show(gate, lines);
    return new Promise((resolve) => {
      const keys = new Map<string, () => void>();
      for (const [answer, chars] of Object.entries(answers)) {
        for (const c of chars) keys.set(c, () => resolve(answer));
      }
      this.waiting = { keys };
    }).then((answer) => {
      this.waiting = undefined;
      this.host.show(undefined, []);
      trace("tui_gate", { gate, state: answer });
      return String(answer);
    });
  }

  /**
   * All gates in order; resolves true once every one is Done, false when the owner quit.
   * `initResult` is the `initialize` answer.
   */
  async run(
    initResult: unknown,
    opts: { cwd: string; minimal: boolean; consentGate: string | undefined },
  ): Promise<boolean> {
    if (!(await this.signIn(initResult))) return false;
    const notice = pendingConsent(opts.consentGate, opts.minimal);
    if (notice !== undefined && !(await this.consent(notice))) return false;
    const trust = decideTrust(opts.cwd, process.stdin.isTTY === true);
    trace("tui_trust_decision", { ...trust });
    if (trust.outcome === "prompt") {
      const answer = await this.ask(
        "folder_trust",
        [
          "Do you trust the contents of this directory?",
          trust.workspace,
          "",
          "Grok Build may run or modify contents in this directory,",
          "posing security risks.",
          "",
          "  y  Yes, proceed",
          "  n  No, quit",
        ],
        { yes: ["y", "Y", "\r", "\n"], no: ["n", "N", ESC] },
      );
      if (answer !== "yes") {
        this.host.quit();
        return false;
      }
      recordTrust(trust.workspace, true);
    }
    return true;
  }

  private async signIn(initResult: unknown): Promise<boolean> {
    const methods = field(initResult, "authMethods");
    const firstId = Array.isArray(methods) ? str(field(methods[0], "id")) : undefined;
    const dflt = str(field(field(initResult, "_meta"), "defaultAuthMethodId"));
    let error: string | undefined;
    if (firstId !== "grok.com" && firstId !== "oidc") {
      error = await this.host.authenticate(dflt ?? "cached_token");
      if (error === undefined) return true;
    }
    for (;;) {
      const lines = ["Login with Grok", "", "  l  Login with Grok", "  q  Quit"];
      if (error !== undefined) lines.splice(1, 0, error);
      const answer = await this.ask("sign_in", lines, { login: ["l", "L"], quit: ["q", "Q"] });
      if (answer !== "login") {
        this.host.quit();
        return false;
      }
      error = await this.host.authenticate("grok.com");
      if (error === undefined) return true;
    }
  }

  private async consent(notice: ConsentNotice): Promise<boolean> {
    const answer = await this.ask(
      "consent",
      [notice.title, "", ...notice.body.split("\n"), "", `  a  ${notice.acceptLabel}`, "  q  Quit"],
      { accept: ["a", "A"], quit: ["q", "Q"] },
    );
    if (answer !== "accept") {
      this.host.quit();
      return false;
    }
    recordConsent(notice);
    return true;
  }
}
