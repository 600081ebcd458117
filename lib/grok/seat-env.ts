/**
 * The environment every seat's pane carries, beside GROK_HOME. Grok reads it around the session;
 * the leader inherits the TUI's environment (`xai-grok-shell/src/leader/mod.rs`
 * `spawn_leader_subprocess`), so a variable reaches the leader where a TUI flag cannot.
 *
 * `GROK_DISABLE_AUTOUPDATER=1`: the TUI spawns its leader without `--no-auto-update`, and that
 * leader checks hourly for a newer build, downloads it and shuts down with `auto_update`
 * (`xai-grok-shell/src/agent/app.rs` `run_auto_update_checker`; `xai-grok-update/src/
 * auto_update.rs` `ensure_latest_on_disk`), ending the seat. Each process reads the variable from
 * its own environment by value (`xai-grok-pager-bin/src/main.rs` `should_check_for_updates`,
 * `env_flag_enabled`: `""`, `0`, `false`, `off`, `no` do NOT disable), so the value is `1`.
 * docs/design/decisions.md §12.1.
 */
export const SEAT_PANE_ENV: Readonly<Record<string, string>> = Object.freeze({
  GROK_DISABLE_AUTOUPDATER: "1",
});

/**
 * The pane environment: the caller's extra variables, then ours over them (a caller cannot turn
 * the update loop back on for a seat), then GROK_HOME (always the profile's).
 */
export function seatPaneEnv(
  callerEnv: Readonly<Record<string, string>> | undefined,
  grokHome: string,
): Record<string, string> {
  return { ...(callerEnv ?? {}), ...SEAT_PANE_ENV, GROK_HOME: grokHome };
}
