/**
 * For the steps that wait for evidence the TUI writes or Herdr reports some time after launch:
 * pause between looks, waking at once when the TUI exits, and the refusal when it did.
 */
import type { ProcessHandle } from "../../kernel/index.js";
import type { HireStep } from "../hire-events.js";
import { SeatRefusal } from "../refusal.js";

/** Wait `ms`, or less if the TUI exits meanwhile (its kernel handle says so). */
export function pauseWhileTuiLives(ms: number, tui: ProcessHandle): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    void tui.exited.then(
      () => {
        clearTimeout(t);
        resolve();
      },
      () => {},
    );
  });
}

/** TUI_EXITED at `<step>.tui_alive`. */
export function tuiExited(step: HireStep, tui: ProcessHandle): SeatRefusal {
  return new SeatRefusal({
    step,
    code: "TUI_EXITED",
    check: `${step}.tui_alive`,
    reason: `the TUI (pid ${tui.pid}) exited during the hire`,
  });
}
