/**
 * For the steps that wait for a file the TUI or its leader creates in one directory (the leader's
 * socket and lock in the runtime directory, `active_sessions.json` in GROK_HOME): look again when
 * the directory changes, not on a fixed fast tick. Polling every 10 ms for the seconds Grok takes
 * to start cost more of our CPU than the rest of the hire (issue 19). An inotify watch can miss or
 * be refused (no watches left, a directory replaced), so a poll remains underneath it: `base` ms
 * after each change (a socket is bound before it listens, which no file event reports), doubling to
 * `slowMs` while nothing changes. Without a watch the poll keeps `base`, the old behaviour.
 */
import { type FSWatcher, watch } from "node:fs";
import type { ProcessHandle } from "../../kernel/index.js";

/** The slowest fallback poll while a watch is in place. */
export const SLOW_POLL_MS = 100;

export interface DirWake {
  /** Wait until the directory changes, the TUI exits, or the current poll interval passes. */
  pause(tui: Pick<ProcessHandle, "exited">): Promise<void>;
  /** Whether a watch is in place (false: plain polling every `base` ms). */
  readonly watching: boolean;
  /** Stop watching; a pending pause ends now. */
  close(): void;
}

export function watchDir(dir: string, base: number, slowMs = SLOW_POLL_MS): DirWake {
  let changed = false;
  let wake: (() => void) | null = null;
  let end: (() => void) | null = null;
  let watcher: FSWatcher | null = null;
  const onChange = (): void => {
    changed = true;
    wake?.();
  };
  try {
    watcher = watch(dir, { persistent: false }, onChange);
    // A watch that fails later (the directory removed) leaves the poll, at its fast pace.
    watcher.on("error", () => {
      watcher?.close();
      watcher = null;
      onChange();
    });
  } catch {
    watcher = null;
  }
  let interval = base;
  return {
    get watching() {
      return watcher !== null;
    },
    pause(tui) {
      // A change seen since the last pause (during the look) means: look again now.
      if (changed) {
        changed = false;
        interval = base;
        return Promise.resolve();
      }
      const ms = interval;
      interval = watcher === null ? base : Math.min(interval * 2, Math.max(base, slowMs));
      return new Promise<void>((resolve) => {
        let settled = false;
        const mine = (): void => {
          changed = false;
          interval = base;
          done();
        };
        const done = (): void => {
          if (settled) return;
          settled = true;
          clearTimeout(t);
          if (wake === mine) wake = null;
          if (end === done) end = null;
          resolve();
        };
        const t = setTimeout(done, ms);
        wake = mine;
        end = done;
        void tui.exited.then(done, () => {});
      });
    },
    close() {
      wake = null;
      end?.();
      watcher?.close();
      watcher = null;
    },
  };
}
