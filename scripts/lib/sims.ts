/**
 * The simulated world the demo and `verify-grok-seat.ts --sim` run in: the Herdr simulator (its
 * panes are real terminals on a private tmux server) and the `grok` simulator binary, with a
 * private temp root holding the work cwd, a stand-in login file and the seats' runtime dirs.
 * Nothing outside the temp root is touched; `stop()` leaves no process and no directory behind.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processFacts } from "../../lib/kernel/index.js";
import { authJson, ensureGrokSim } from "../../test/helpers/grok-sim.js";
import { type HerdrSimHandle, startHerdrSim } from "../../test/helpers/herdr-sim.js";

export interface SimWorld {
  readonly herdr: HerdrSimHandle;
  /** Canonical path of the simulated grok executable. */
  readonly grok: string;
  readonly root: string;
  /** The work directory the TUI runs in. */
  readonly cwd: string;
  /** A stand-in for an existing Grok login (`auth.json`); the simulator needs no real one. */
  readonly loginFile: string;
  /** Where seats create their private runtime directories. */
  readonly runtimeBase: string;
  /** Kill these pids if they still run the simulated grok (a refused hire leaves its TUI). */
  sweep(pids: readonly (number | null | undefined)[]): void;
  stop(): Promise<void>;
}

/** tmux is the one system requirement; say so plainly when it is missing. */
export function requireTmux(): string | null {
  const r = spawnSync("tmux", ["-V"], { encoding: "utf8" });
  if (r.error !== undefined || r.status !== 0) {
    return [
      "tmux was not found. It is the one system requirement of the simulators (their panes are real",
      "terminals on a private tmux server). Install it, then run this again:",
      "  Debian/Ubuntu: sudo apt-get install tmux    macOS: brew install tmux",
    ].join("\n");
  }
  return null;
}

export async function startSimWorld(): Promise<SimWorld> {
  const grok = realpathSync(await ensureGrokSim());
  const root = realpathSync(mkdtempSync(join(tmpdir(), "grok-seat-demo-")));
  const cwd = join(root, "work");
  const runtimeBase = join(root, "seats");
  mkdirSync(cwd, { mode: 0o700 });
  mkdirSync(runtimeBase, { mode: 0o700 });
  writeFileSync(join(cwd, "README.md"), "# demo project\n");
  const loginFile = join(root, "existing-login.json");
  // A signed-in login shaped like the real auth.json (fake tokens): the simulated TUI shows its
  // sign-in screen without one, as real Grok does.
  writeFileSync(loginFile, authJson(), { mode: 0o600 });
  let herdr: HerdrSimHandle;
  try {
    herdr = await startHerdrSim({ dir: join(root, "herdr"), switches: { detectMs: 100 } });
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  const sweep = (pids: readonly (number | null | undefined)[]): void => {
    for (const pid of pids) {
      if (typeof pid !== "number" || pid <= 1) continue;
      try {
        if (processFacts(pid).executable !== grok) continue;
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  };
  return {
    herdr,
    grok,
    root,
    cwd,
    loginFile,
    runtimeBase,
    sweep,
    stop: async () => {
      await herdr.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
