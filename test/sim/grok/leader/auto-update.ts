/**
 * The leader's update loop (agent/app.rs `run_auto_update_checker`, started by `run_leader` when
 * pager-bin main.rs passes a `LeaderAutoUpdateConfig`: not with `--no-auto-update`, not when
 * `GROK_DISABLE_AUTOUPDATER` is set truthy in the leader's own environment). The first check
 * runs one interval after start (tokio's interval: the immediate first tick is consumed), then
 * every interval. When the check says a newer build is on disk: if the agent is busy (an IPC
 * request in flight, a running turn or a parked interaction) the shutdown is deferred to the next
 * interval, at most MAX_AUTO_UPDATE_BUSY_DEFERRALS (24) times in a row, then it proceeds anyway;
 * otherwise the leader shuts down with reason `auto_update` (every client gets `shutting_down`,
 * `shutdown`, EOF). The TUI then reconnects through connect_or_spawn, which spawns a new leader.
 */
import { trace } from "../trace.js";

export const MAX_AUTO_UPDATE_BUSY_DEFERRALS = 24;

export interface AutoUpdateLoop {
  intervalMs: number;
  /** check_fn: true when a newer build is on disk and the leader should relaunch onto it. */
  check(): boolean;
  busy(): boolean;
  shutdown(): void;
}

export function startAutoUpdateChecker(loop: AutoUpdateLoop): void {
  let deferrals = 0;
  const timer = setInterval(() => {
    trace("auto_update_check", {});
    if (!loop.check()) return;
    const busy = loop.busy();
    if (busy && deferrals < MAX_AUTO_UPDATE_BUSY_DEFERRALS) {
      deferrals++;
      trace("auto_update_deferred", { busy_deferrals: deferrals });
      return;
    }
    clearInterval(timer);
    trace("auto_update_shutdown", { busy, busy_deferrals: deferrals });
    loop.shutdown();
  }, loop.intervalMs);
  timer.unref();
}
