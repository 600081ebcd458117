/**
 * The options of `hire()` (lib/seat/hire.ts), in a module of their own so that the hire flow
 * (lib/seat/hire-flow.ts), which hire() loads on its first call, can name them without a cycle.
 */
import type { KernelPort } from "../kernel/index.js";
import type { McpBankOption } from "./bank.js";
import type { HireListener } from "./hire-events.js";
import type { ProfileSpec } from "./profile.js";
import type { SeatRegistry } from "./registry.js";
import type { Seat } from "./seat.js";
import type { PanePlacement } from "./steps/launch.js";

export type { PanePlacement };

export interface HireTimeouts {
  /** TUI start to a listening leader (default 30 s; grok waits 10 s for its own spawn). */
  readonly leaderMs?: number;
  /** For the TUI's `active_sessions.json` entry when no owner screen is expected (default 15 s). */
  readonly activeSessionMs?: number;
  /**
   * For the owner, once the TUI is expected (or, after `activeSessionMs`, suspected) to show a
   * startup screen before it creates its session: sign-in, a terms notice, folder trust
   * (default 10 min). A `waiting` progress event names the screen, the pane and the owner's step;
   * the bound ends in OWNER_GATE_TIMEOUT.
   */
  readonly ownerMs?: number;
  /** For Herdr to identify the agent (default 10 s). */
  readonly agentMs?: number;
  /**
   * Each leader registration, control and ACP request, and each Herdr request that creates the
   * pane (`workspace.create`, `layout.apply`) (default 30 s).
   */
  readonly requestMs?: number;
}

export interface HireOptions {
  /** The work directory the TUI runs in. */
  readonly cwd: string;
  /** An explicit GROK_HOME, or a temporary profile made from an explicit login file. */
  readonly profile: ProfileSpec;
  /** Which Herdr server: an explicit socket path or session name, else discovery (§1.1). */
  readonly herdr?: {
    readonly socketPath?: string;
    readonly sessionName?: string;
    readonly timeoutMs?: number;
  };
  /** The grok executable (default: `grok` on PATH), resolved to its canonical path. */
  readonly grok?: string;
  /** Where the private runtime directory is created (default: the system temp dir). */
  readonly runtimeBase?: string;
  /** The orchestrator's conversation this seat serves (recorded; resume must name it). */
  readonly conversationId?: string;
  readonly model?: { readonly modelId: string; readonly effort?: string | null };
  /**
   * The service persona and memory card, applied natively with `--rules=<text>` on a fresh
   * launch and proven in the session's system prompt (step `persona`). The TUI's argv is
   * readable by every local user and echoed by Herdr: never put a credential here. Only its
   * SHA-256 and length are recorded or reported. At most 131063 UTF-8 bytes.
   */
  readonly persona?: string;
  /**
   * The operator's MCP bank (streamable HTTP). The seat serves it to Grok through its projecting
   * proxy on loopback behind a fresh bearer token; `headers` go upstream only. A temporary
   * profile configures it before launch; with the owner's profile it is added to the live
   * session only (in memory: lost when the TUI next loads the session). Step `mcp_bank`.
   */
  readonly mcpBank?: McpBankOption;
  /**
   * Let the bank's tools run without asking the owner: a `[permission]` rule for `<name>__*` in
   * a temporary profile only (ignored with the owner's profile). Default false.
   */
  readonly autoApproveBank?: boolean;
  /** Skill paths to record as a manifest (checked readable, never installed). */
  readonly skills?: readonly string[];
  /** Extra environment for the TUI (and so its leader); GROK_HOME is always the profile's. */
  readonly env?: Readonly<Record<string, string>>;
  /** Pane label (default "grok seat"). */
  readonly label?: string;
  /** Where the pane opens (default: a new workspace of its own, labelled like the pane). */
  readonly placement?: PanePlacement;
  readonly timeouts?: HireTimeouts;
  readonly onProgress?: HireListener;
  readonly registry?: SeatRegistry<Seat>;
  readonly signal?: AbortSignal;
  /** The kernel port (default: the real one); the bench instruments it. */
  readonly kernel?: KernelPort;
}
