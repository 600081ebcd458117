/**
 * A ready seat: the proven pane, the one leader connection, the admitted controller (fence
 * journal), the attached ACP session, and the two kernel handles (TUI and leader) kept for the
 * seat's life. Deliveries go through the fence (lib/delivery); release closes the controller and
 * stops the leader only when `release-policy.ts` allows it.
 */
import type { AcpSession, AcpSessionEvent, Delivery, TranscriptQuery } from "../acp/acp-session.js";
import type { OwnerAction } from "../acp/owner-actions.js";
import type { CheckResult } from "../check.js";
import type { Controller } from "../delivery/index.js";
import type { Receipt } from "../delivery/receipt.js";
import type { ModelEcho } from "../grok/models.js";
import type { TranscriptPage } from "../grok/transcript-page.js";
import type { HerdrClient } from "../herdr/client.js";
import type { JsonValue } from "../json.js";
import type { KernelPort, ProcessHandle } from "../kernel/index.js";
import type { LeaderConnection } from "../leader/leader-connection.js";
import type { ExitVerdict, PaneExitWatch } from "../observe/pane-exit.js";
import { SeatRefusal } from "./refusal.js";
import { type RegisteredSeat, SeatRegistry } from "./registry.js";
import { decideLeaderStop, type ReleaseReason } from "./release-policy.js";
import { type SeatRecord, writeSeatRecord } from "./seat-record.js";
import { type SeatWatchEvent, watchEvent } from "./seat-watch.js";

/**
 * Release's I/O (release.ts) and the temporary profile's removal (profile.ts) reach the whole
 * kernel layer: loaded with a seat's first deliver or release, not when the root entry is imported
 * (issue 19). A seat exists only after a hire, which has loaded them already.
 */
let releaseIo: Promise<[typeof import("./release.js"), typeof import("./profile.js")]> | undefined;
function loadReleaseIo(): Promise<[typeof import("./release.js"), typeof import("./profile.js")]> {
  releaseIo ??= Promise.all([import("./release.js"), import("./profile.js")]);
  return releaseIo;
}

export interface SeatParts {
  readonly herdr: HerdrClient;
  readonly kernel: KernelPort;
  readonly conn: LeaderConnection;
  readonly controller: Controller;
  readonly acp: AcpSession;
  readonly tui: ProcessHandle;
  readonly leader: ProcessHandle;
  readonly exitWatch: PaneExitWatch;
  readonly record: SeatRecord;
  readonly recordPath: string;
  readonly registry: SeatRegistry<Seat>;
  /** Closed by `release()` once the controller is closed (the bank's proxy). */
  readonly closeWithSeat?: readonly (() => Promise<void>)[];
}

export interface ReleaseOptions {
  /** Wait this long for the original TUI's exit before deciding (default 0: decide now). */
  readonly waitForTuiExitMs?: number;
  /** Bound on the wait for the leader's exit after SIGTERM (default 5000 ms). */
  readonly stopTimeoutMs?: number;
}

export type LeaderAction = "stopped" | "left_running" | "already_gone" | "stop_timed_out";

export interface ReleaseReport {
  readonly sessionId: string;
  /** The exit-watch verdict for the original TUI, or null when no exit was observed. */
  readonly tuiExit: ExitVerdict | null;
  readonly leader: {
    readonly pid: number;
    readonly action: LeaderAction;
    /** Why the leader was left alone (empty when it was stopped). */
    readonly reasons: readonly ReleaseReason[];
    readonly signal: "SIGTERM" | null;
    /** Stale files removed after a proven stop. */
    readonly removed: readonly string[];
  };
  readonly recordPath: string;
  /** A temporary profile removed by the release (the copied login first); empty otherwise. */
  readonly profileRemoved: readonly string[];
}

/** The exit verdict as recorded JSON. */
export function verdictJson(v: ExitVerdict | null): JsonValue {
  if (v === null) return null;
  const k = v.kernel;
  const kernel: JsonValue =
    k.kind === "exited"
      ? {
          kind: k.kind,
          pid: k.pid,
          identity: { kind: k.identity.kind, value: k.identity.value },
          observedAt: k.observedAt,
        }
      : { ...k };
  return {
    exited: v.exited,
    corroborated: v.corroborated,
    kernel,
    herdr: { ...v.herdr },
    ignored: { ...v.ignored },
  };
}

/**
 * What `seat.on(listener)` reports: receipts moving, owner actions, model echoes, every update of
 * the session (`transcript`), `leader-shutting-down`, the close; and the seat's own
 * `persona-lost` and `bank-lost` (lib/seat/seat-watch.ts).
 */
export type SeatEvent = AcpSessionEvent | SeatWatchEvent;

export class Seat implements RegisteredSeat {
  readonly sessionId: string;
  readonly paneId: string;
  readonly runtimeDir: string;
  readonly recordPath: string;
  /** Resolves with the exit watch's verdict: the TUI's exit as the kernel saw it (or a cancel). */
  readonly tuiExit: Promise<ExitVerdict>;
  readonly #p: SeatParts;
  #record: SeatRecord;
  #state: "ready" | "releasing" | "released" = "ready";
  #exit: ExitVerdict | null = null;

  constructor(parts: SeatParts) {
    this.#p = parts;
    this.#record = parts.record;
    this.sessionId = parts.record.sessionId;
    this.paneId = parts.record.pane.pane.paneId;
    this.runtimeDir = parts.record.runtimeDir;
    this.recordPath = parts.recordPath;
    this.tuiExit = parts.exitWatch.verdict.then((v) => {
      if (v.exited) this.#exit = v;
      return v;
    });
    // A `shutting_down` from our leader (any reason: the hourly `auto_update` above all) ends the
    // seat by name; the leader the TUI starts next is never ours (docs/design/decisions.md §12.1).
    this.#unwatchLeader = parts.conn.onEvent((e) => {
      if (e.type === "shutting_down") parts.acp.leaderShuttingDown(e.reason, e.delayMs);
    });
    const early = parts.conn.shuttingDown;
    if (early !== null) parts.acp.leaderShuttingDown(early, 0);
    this.#unwatchSession = parts.acp.on((e) => this.#watch(e));
  }

  readonly #unwatchLeader: () => void;
  readonly #unwatchSession: () => void;
  readonly #listeners = new Set<(event: SeatWatchEvent) => void>();
  /** The persona check a model echo failed; from then on the seat delivers nothing. */
  #personaLost: CheckResult | null = null;

  #watch(event: AcpSessionEvent): void {
    const own = watchEvent(this.#record, event, this.#personaLost !== null);
    if (own === null) return;
    if (own.type === "persona-lost") this.#personaLost = own.check;
    for (const l of [...this.#listeners]) {
      try {
        l(own);
      } catch {
        // A listener's failure is its own; the others still hear the event.
      }
    }
  }

  get record(): SeatRecord {
    return this.#record;
  }

  get state(): "ready" | "releasing" | "released" {
    return this.#state;
  }

  /** The ACP session underneath (lib/acp): its tap statistics, the running prompt id. */
  get acp(): AcpSession {
    return this.#p.acp;
  }

  get live(): boolean {
    if (this.#state !== "ready" || this.#exit !== null) return false;
    if (this.#p.acp.shuttingDown !== null) return false;
    try {
      return this.#p.leader.isAlive() && this.#p.conn.state === "open";
    } catch {
      return false;
    }
  }

  on(listener: (event: SeatEvent) => void): () => void {
    const off = this.#p.acp.on(listener);
    this.#listeners.add(listener);
    return () => {
      off();
      this.#listeners.delete(listener);
    };
  }

  /**
   * Select a model (and effort) for the session (lib/acp/acp-session.ts `selectModel`: refused
   * before anything is sent when the session does not offer it, MODEL_NOT_ECHOED without Grok's
   * echo), then prove the persona again: a switch to a model on an incompatible harness rebuilds
   * the prompt without it (lib/seat/seat-watch.ts). Refuses PERSONA_NOT_APPLIED (step `model`)
   * when it is gone — the model is switched all the same, `persona-lost` was emitted, and the
   * seat delivers nothing more.
   */
  async selectModel(request: { modelId: string; effort?: string | null }): Promise<ModelEcho> {
    if (this.#state !== "ready") {
      throw new SeatRefusal({
        step: "model",
        code: "SEAT_RELEASED",
        check: "model.seat_ready",
        reason: "the seat was released",
        details: { sessionId: this.sessionId },
      });
    }
    const echo = await this.#p.acp.selectModel(request);
    const lost = this.#personaLost;
    if (lost !== null) {
      throw new SeatRefusal({
        step: "model",
        code: "PERSONA_NOT_APPLIED",
        check: lost.check,
        reason: `model ${echo.modelId} is selected, but ${lost.reason ?? "the persona is no longer applied"}`,
        details: { sessionId: this.sessionId, modelId: echo.modelId, check: lost.check },
      });
    }
    return echo;
  }

  receipt(promptId: string): Receipt | undefined {
    return this.#p.acp.receipt(promptId);
  }

  /**
   * Deliver one prompt through the fence (lib/acp/acp-session.ts `deliver`). Refused before
   * anything is fenced when the seat is released, the original TUI has exited, or the proven leader
   * is gone (then nothing is sent anywhere: no reconnect, no other leader).
   */
  async deliver(text: string, options: { promptId?: string } = {}): Promise<Delivery> {
    const [{ leaderNow }] = await loadReleaseIo();
    this.#assertDeliverable(leaderNow);
    return this.#p.acp.deliver(text, options);
  }

  /** Cancel one of our prompts (lib/acp/acp-session.ts `cancel`). */
  cancel(promptId: string): Promise<Receipt> {
    return this.#p.acp.cancel(promptId);
  }

  /**
   * Recovery: reconcile our open receipts (uncertain ones above all) with the session's durable
   * record and return those that changed; never sends a prompt (lib/acp/acp-session.ts
   * `reconcile`, where `via: "replay"` and its cost to the owner are explained).
   */
  reconcile(options: { tail?: number; via?: "updates" | "replay" } = {}): Promise<Receipt[]> {
    return this.#p.acp.reconcile(options);
  }

  /**
   * A page of the session's stored transcript (`x.ai/session/updates`, read-only): the entries
   * after `since` (an eventId, exclusive), at most `limit` (lib/acp/acp-session.ts `transcript`).
   * After release, `readNativeTranscript` reads the same pages from `record.nativeTranscript`.
   */
  transcript(query: TranscriptQuery = {}): Promise<TranscriptPage> {
    return this.#p.acp.transcript(query);
  }

  /** Permission prompts and questions waiting for the owner in the TUI. We never answer them. */
  pendingOwnerActions(): OwnerAction[] {
    return this.#p.acp.pendingOwnerActions();
  }

  /** Owner actions no longer listed because too many were pending at once (they stay in the TUI). */
  ownerActionsDropped(): number {
    return this.#p.acp.ownerActionsDropped();
  }

  #assertDeliverable(leaderNow: typeof import("./release.js").leaderNow): void {
    const refuse = (code: string, check: string, reason: string): SeatRefusal =>
      new SeatRefusal({
        step: "deliver",
        code,
        check,
        reason,
        details: { sessionId: this.sessionId },
      });
    if (this.#state !== "ready")
      throw refuse("SEAT_RELEASED", "deliver.seat_ready", "the seat was released");
    if (this.#personaLost !== null) {
      throw refuse(
        "PERSONA_NOT_APPLIED",
        "deliver.persona",
        `a model switch took the persona out of the session's prompt (${this.#personaLost.reason ?? this.#personaLost.check}); it cannot be applied to a live session again`,
      );
    }
    const down = this.#p.acp.shuttingDown;
    if (down !== null) {
      throw refuse(
        "LEADER_SHUTTING_DOWN",
        "deliver.leader_running",
        `the seat's leader announced its shutdown (${down.reason}); the seat has ended and never connects to the leader the TUI starts next`,
      );
    }
    if (this.#exit !== null) {
      throw refuse(
        "TUI_EXITED",
        "deliver.tui_alive",
        "the original TUI has exited; its session is no longer visible",
      );
    }
    const now = leaderNow(this.#p.leader, this.#record.socketPath, this.#p.kernel);
    if (now.kind === "exited") {
      throw refuse(
        now.socketServedByOther ? "LEADER_REPLACED" : "LEADER_GONE",
        "deliver.leader_proven",
        now.socketServedByOther
          ? "the proven leader exited and another process serves its socket; nothing is sent to it"
          : "the proven leader exited",
      );
    }
    if (now.kind === "unproven") {
      throw refuse(
        "IDENTITY_UNPROVEN",
        "deliver.leader_proven",
        `the leader cannot be proven now (${now.code})`,
      );
    }
    if (this.#p.conn.state !== "open") {
      throw refuse("CONNECTION_CLOSED", "deliver.connection", "the leader connection is closed");
    }
  }

  /**
   * Close the controller (disconnect frame, socket, admission lock, journal), then stop the
   * leader only when we launched it, the handle still proves it, and the original TUI's exit was
   * observed on its bound identity; otherwise leave it running and say why. Idempotent in effect:
   * a second call refuses SEAT_RELEASED.
   */
  async release(options: ReleaseOptions = {}): Promise<ReleaseReport> {
    if (this.#state !== "ready") {
      throw new SeatRefusal({
        step: "release",
        code: "SEAT_RELEASED",
        reason: "the seat was already released",
      });
    }
    this.#state = "releasing";
    const [
      { leaderNow, removeStaleLeaderFiles, stopLeader, tuiExitUnderway },
      { removeTemporaryProfile },
    ] = await loadReleaseIo();
    const p = this.#p;
    this.#unwatchLeader();
    this.#unwatchSession();
    p.acp.close();
    await Promise.race([p.conn.close(), delay(2000)]);
    p.controller.release();
    for (const close of p.closeWithSeat ?? []) await close().catch(() => {});

    let exit = this.#exit;
    if (exit === null) {
      let tuiGone = false;
      try {
        tuiGone = tuiExitUnderway(p.tui, p.kernel);
      } catch {
        tuiGone = false;
      }
      const wait = options.waitForTuiExitMs ?? 0;
      // A kernel-observed exit settles the watch within its corroboration bound (Herdr's event).
      if (tuiGone || wait > 0) {
        let settled = await Promise.race([
          this.tuiExit,
          delay(tuiGone ? Math.max(wait, 5000) : wait),
        ]);
        if (settled === undefined && tuiGone) {
          // Herdr may still be replaying history to the watch (lib/observe/pane-exit.ts): stop
          // waiting for its event; the kernel's sighting of the exit stands on its own.
          p.exitWatch.close();
          settled = await this.tuiExit;
        }
        if (settled?.exited === true) exit = settled;
      }
    }
    p.exitWatch.close();
    const now = leaderNow(p.leader, this.#record.socketPath, p.kernel);
    // A Seat exists only in the process that hired it (a record never becomes one): owned.
    const decision = decideLeaderStop({ owned: true, leader: now, tuiExit: exit });
    let action: LeaderAction = decision.reasons.includes("LEADER_GONE")
      ? "already_gone"
      : "left_running";
    let signal: "SIGTERM" | null = null;
    let removed: string[] = [];
    if (decision.stop) {
      signal = "SIGTERM";
      const exited = await stopLeader(p.leader, options.stopTimeoutMs ?? 5000);
      action = exited ? "stopped" : "stop_timed_out";
      if (exited)
        removed = removeStaleLeaderFiles(this.#record.socketPath, this.#record.lockPath, p.kernel);
    }
    p.tui.close();
    p.leader.close();
    // The seat's temporary profile goes with it: a copied login left behind could still spend
    // the owner's rotating refresh token (lib/seat/profile.ts).
    const profileRemoved = removeTemporaryProfile({
      kind: this.#record.profile.kind,
      grokHome: this.#record.profile.grokHome,
      loginFile: this.#record.profile.loginFile,
    });
    p.registry.unregister(this);
    this.#state = "released";
    this.#record = {
      ...this.#record,
      release: {
        at: new Date().toISOString(),
        tuiExit: verdictJson(exit),
        tuiExitObserved: exit?.exited === true,
        leader: { action, reasons: [...decision.reasons] },
      },
    };
    writeSeatRecord(this.recordPath, this.#record);
    return {
      sessionId: this.sessionId,
      tuiExit: exit,
      leader: { pid: this.#record.leader.pid, action, reasons: decision.reasons, signal, removed },
      recordPath: this.recordPath,
      profileRemoved,
    };
  }
}

/** The registry of this process: `hire` registers here unless given another. */
export const defaultSeatRegistry = new SeatRegistry<Seat>();

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}
