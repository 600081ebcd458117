/**
 * Observe that the original pane process exited (ADR 0224: "only an observed original TUI exit
 * permits stopping its own proven leader").
 *
 * The exit is *established* only by the kernel, on the bound identity: a `ProcessHandle` opened
 * with the recorded (pid, identity) whose `exited` resolves (pidfd readable / NOTE_EXIT). A pid
 * lookup alone proves nothing, since pids are reused. Herdr *corroborates*: a `pane_exited` (or
 * `pane_closed`) for our pane id, from an `events.subscribe` stream
 * (docs/design/herdr-socket-api.md §6).
 *
 * Replayed history: a new subscription first replays up to 512 past events, indistinguishable on
 * the wire from live ones (`EventHub`, `ActiveEventSubscription.last_sequence = 0`). So after
 * `subscription_started` we *anchor*: `pane.get` must show our pane with our `terminal_id`.
 * Only events received after that reply count: an exit event for a pane that was alive after the
 * stream began cannot be history. Earlier events, and other panes' events, are counted and ignored.
 *
 * A busy 0.8 server: the replay is paced at one matching event per 100 ms poll
 * (`ActiveEventSubscription::poll` returns the first match; `CONNECTION_POLL_INTERVAL`), so our
 * own live `pane_exited` queues behind up to 512 retained ones (`EventHub::MAX_EVENTS`), about
 * 51 s. Herdr offers no pane-scoped exit subscription and no way to start a lifecycle one at the
 * current sequence (0.9 starts live, PR #3134), so the wait is sized from what the server does:
 * after the kernel exit, the corroboration window restarts with every event the stream delivers
 * (the server is still working through history), up to the bound a full ring can take. The seat
 * arms the watch at the pane proof, so the replay is normally over long before the exit.
 * docs/design/herdr-socket-api.md §6.
 *
 * A Herdr error on the stream (`events_lost`, PR #4225, or any code) or on the subscribe ends the
 * Herdr side with that code by name; it is never an exit, and the kernel still decides.
 */
import { failureOr, isErrorCode, WireError } from "../errors.js";
import type { HerdrClient } from "../herdr/client.js";
import type { HerdrSubscription } from "../herdr/subscription.js";
import type { KernelPort, ProcessHandle, ProcessIdentity } from "../kernel/index.js";
import type { PaneProofRecord } from "../proof/pane.js";

export type KernelExitSighting =
  | {
      readonly kind: "exited";
      readonly pid: number;
      readonly identity: ProcessIdentity;
      readonly observedAt: string;
    }
  /** The handle could not be opened on the bound identity (e.g. NO_SUCH_PROCESS): not observed. */
  | { readonly kind: "unavailable"; readonly code: string; readonly message: string }
  /** Timed out or cancelled before the kernel reported an exit. */
  | { readonly kind: "pending"; readonly reason: "timeout" | "cancelled" };

export type HerdrExitSighting =
  | {
      readonly kind: "pane_exited" | "pane_closed";
      readonly paneId: string;
      readonly workspaceId: string;
      readonly receivedAt: string;
    }
  /** No event, but `pane.get` answered `pane_not_found` after the kernel exit. */
  | { readonly kind: "pane_gone" }
  | {
      readonly kind: "none";
      readonly reason: HerdrNoExitReason;
      readonly code: string | null;
    };

/**
 * Why Herdr corroborated nothing. `events_lost`: Herdr closed the subscription because its cursor
 * fell out of the retained history (PR #4225); `herdr_error`: any other Herdr error code on the
 * stream; `stream_error`: a local failure (malformed line, socket error); `subscribe_failed`: the
 * subscription was refused or never started.
 */
export type HerdrNoExitReason =
  | "not_received"
  | "not_anchored"
  | "stream_error"
  | "subscribe_failed"
  | "events_lost"
  | "herdr_error";

/** Herdr's ring (`src/api/event_hub.rs` MAX_EVENTS) and its poll (`src/api/server.rs`). */
const RING_EVENTS = 512;
const POLL_MS = 100;
/** How long a 0.8 replay of a full ring takes at one event per poll. */
export const FULL_REPLAY_MS = RING_EVENTS * POLL_MS;

export interface ExitVerdict {
  /** True only with kernel evidence on the bound identity. */
  readonly exited: boolean;
  /** `exited` and Herdr sent a live `pane_exited`/`pane_closed` for our pane. */
  readonly corroborated: boolean;
  readonly kernel: KernelExitSighting;
  readonly herdr: HerdrExitSighting;
  /** Events before the anchor (possible replay) and events for other panes, ignored. */
  readonly ignored: { readonly beforeAnchor: number; readonly otherPanes: number };
}

export interface ExitWatchOptions {
  /** A handle opened at bind time; otherwise one is opened now on the recorded identity. */
  readonly handle?: ProcessHandle;
  /** Give up waiting for the kernel after this long (default: wait until closed). */
  readonly timeoutMs?: number;
  /**
   * After the kernel exit, how long the stream may stay quiet before we stop waiting for
   * Herdr's event (default 3000 ms); every event it delivers meanwhile restarts the window.
   */
  readonly corroborationTimeoutMs?: number;
  /** The whole corroboration wait at most (default FULL_REPLAY_MS + the quiet window). */
  readonly corroborationLimitMs?: number;
}

export interface PaneExitWatch {
  /** Whether Herdr's stream was anchored on our live pane (events after it are live). */
  readonly anchored: boolean;
  readonly verdict: Promise<ExitVerdict>;
  /** Stop watching; a pending verdict settles as `pending: cancelled`. */
  close(): void;
}

/** Resolves once the watch is armed (handle open, stream subscribed and anchored). */
export async function watchPaneExit(
  client: HerdrClient,
  kernel: KernelPort,
  record: PaneProofRecord,
  options: ExitWatchOptions = {},
): Promise<PaneExitWatch> {
  const paneId = record.pane.paneId;
  const ignored = { beforeAnchor: 0, otherPanes: 0 };
  let handle: ProcessHandle;
  try {
    handle =
      options.handle ?? kernel.openProcessHandle(record.process.pid, record.process.identity);
  } catch (err) {
    const { code, message } = failureOr(err, "UNKNOWN");
    const verdict: ExitVerdict = {
      exited: false,
      corroborated: false,
      kernel: { kind: "unavailable", code, message },
      herdr: { kind: "none", reason: "not_anchored", code: null },
      ignored,
    };
    return { anchored: false, verdict: Promise.resolve(verdict), close: () => {} };
  }
  const ownsHandle = options.handle === undefined;

  let sub: HerdrSubscription | null = null;
  // Mutated by the stream reader below; a holder so the narrowing of one read never leaks.
  const state: { herdr: HerdrExitSighting; anchored: boolean } = {
    herdr: { kind: "none", reason: "not_received", code: null },
    anchored: false,
  };
  // Every event the stream delivers wakes the corroboration wait (the server is making progress).
  let onEvent: () => void = () => {};
  const nextEvent = (): Promise<"event"> =>
    new Promise((resolve) => {
      onEvent = () => resolve("event");
    });
  let wakeHerdr: () => void = () => {};
  const herdrSettled = new Promise<void>((resolve) => {
    wakeHerdr = resolve;
  });
  try {
    sub = await client.subscribe([{ type: "pane.exited" }, { type: "pane.closed" }]);
  } catch (err) {
    const code = failureOr(err, "UNKNOWN").code;
    state.herdr = {
      kind: "none",
      reason: isHerdrCode(err, "events_lost") ? "events_lost" : "subscribe_failed",
      code,
    };
    wakeHerdr();
  }
  if (sub !== null) {
    const stream = sub;
    void (async () => {
      try {
        for await (const ev of stream) {
          onEvent();
          if (
            ev.shape !== "lifecycle" ||
            (ev.event !== "pane_exited" && ev.event !== "pane_closed")
          )
            continue;
          if (ev.data.pane_id !== paneId) {
            ignored.otherPanes += 1;
            continue;
          }
          if (!state.anchored) {
            ignored.beforeAnchor += 1;
            continue;
          }
          const workspaceId = typeof ev.data.workspace_id === "string" ? ev.data.workspace_id : "";
          state.herdr = {
            kind: ev.event,
            paneId,
            workspaceId,
            receivedAt: new Date().toISOString(),
          };
          break;
        }
      } catch (err) {
        if (state.herdr.kind === "none")
          state.herdr = {
            kind: "none",
            reason:
              err instanceof WireError && err.peer === "herdr"
                ? err.code === "events_lost"
                  ? "events_lost"
                  : "herdr_error"
                : "stream_error",
            code: failureOr(err, "UNKNOWN").code,
          };
      } finally {
        wakeHerdr();
      }
    })();
    try {
      const { pane } = await client.request("pane.get", { pane_id: paneId });
      state.anchored = pane.terminal_id === record.pane.terminalId;
    } catch {
      state.anchored = false;
    }
    if (!state.anchored && state.herdr.kind === "none" && state.herdr.reason === "not_received") {
      state.herdr = { kind: "none", reason: "not_anchored", code: null };
    }
  }

  let cancel: () => void = () => {};
  const cancelled = new Promise<"cancelled">((resolve) => {
    cancel = () => resolve("cancelled");
  });
  const verdict = (async (): Promise<ExitVerdict> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout =
      options.timeoutMs === undefined
        ? new Promise<never>(() => {})
        : new Promise<"timeout">((resolve) => {
            timer = setTimeout(() => resolve("timeout"), options.timeoutMs);
          });
    let kernelSighting: KernelExitSighting;
    try {
      const outcome = await Promise.race([
        handle.exited.then(() => "exited" as const),
        timeout,
        cancelled,
      ]);
      kernelSighting =
        outcome === "exited"
          ? {
              kind: "exited",
              pid: handle.pid,
              identity: { kind: handle.identity.kind, value: handle.identity.value },
              observedAt: new Date().toISOString(),
            }
          : { kind: "pending", reason: outcome };
    } catch (err) {
      kernelSighting = { kind: "unavailable", ...failureOr(err, "UNKNOWN") };
    } finally {
      clearTimeout(timer);
    }
    if (kernelSighting.kind === "exited" && state.anchored) {
      const quietMs = options.corroborationTimeoutMs ?? 3000;
      const until = Date.now() + (options.corroborationLimitMs ?? FULL_REPLAY_MS + quietMs);
      for (;;) {
        const left = until - Date.now();
        if (left <= 0) break;
        const woke = await Promise.race([
          herdrSettled.then(() => "settled" as const),
          nextEvent(),
          delay(Math.min(quietMs, left)).then(() => "quiet" as const),
          cancelled,
        ]);
        if (woke !== "event") break;
      }
    }
    sub?.close();
    // No event although the stream was fine: Herdr may still show the pane gone. A named Herdr
    // error (events_lost, herdr_error) or a refused subscription stays as it was.
    if (
      kernelSighting.kind === "exited" &&
      state.herdr.kind === "none" &&
      (state.herdr.reason === "not_received" ||
        state.herdr.reason === "not_anchored" ||
        state.herdr.reason === "stream_error")
    ) {
      if (await paneGone(client, paneId)) state.herdr = { kind: "pane_gone" };
    }
    if (ownsHandle) handle.close();
    const exited = kernelSighting.kind === "exited";
    const herdr = state.herdr;
    const corroborated = exited && (herdr.kind === "pane_exited" || herdr.kind === "pane_closed");
    return { exited, corroborated, kernel: kernelSighting, herdr, ignored: { ...ignored } };
  })();

  return {
    anchored: state.anchored,
    verdict,
    close: () => {
      cancel();
      sub?.close();
    },
  };
}

function isHerdrCode(err: unknown, code: string): boolean {
  return err instanceof WireError && err.peer === "herdr" && err.code === code;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

async function paneGone(client: HerdrClient, paneId: string): Promise<boolean> {
  try {
    await client.request("pane.get", { pane_id: paneId });
    return false;
  } catch (err) {
    return isErrorCode(err, "pane_not_found");
  }
}
