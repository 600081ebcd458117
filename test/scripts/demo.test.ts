// @platform linux: reads /proc as its independent oracle
/**
 * `npm run demo` end to end (the script itself, as CI runs it): exit 0, every hire step proven
 * and printed, the receipt reaches `completed`, the leader is stopped after the TUI's exit, and
 * nothing is left behind (no temp root, no tmux server, no simulator process). Without tmux on
 * PATH the demo stops at once with a message naming tmux.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { HIRE_STEPS } from "../../lib/seat/hire-events.js";

const ROOT = join(import.meta.dirname, "..", "..");
const DEMO = join(ROOT, "scripts", "demo.ts");

function runDemo(
  env: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", DEMO],
      {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1", ...env },
        timeout: 120_000,
      },
      (err, stdout, stderr) => {
        resolve({
          code: err === null ? 0 : typeof err.code === "number" ? err.code : -1,
          stdout,
          stderr,
        });
      },
    );
  });
}

function simProcessesUnder(root: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`).startsWith(root)) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

test("the demo hires, delivers, quits as the owner, releases, cleans up, exits 0", async () => {
  const r = await runDemo({});
  assert.is(r.code, 0, r.stdout + r.stderr);
  for (const step of HIRE_STEPS.filter((s) => s !== "model")) {
    assert.match(r.stdout, new RegExp(`✓ ${step} `), `step ${step} printed as proven`);
  }
  assert.match(r.stdout, /receipt \w+ {2}dispatched/);
  assert.match(r.stdout, /receipt \w+ {2}completed/);
  // The reply from delivery.reply: the simulated model's answer to the demo's own prompt.
  assert.match(
    r.stdout,
    /the agent answered \(delivery\.reply, end_turn\):\n {4}Simulated reply to "Hello from grok-seat: please say hello back in one sentence\." \(10 words, digest [0-9a-f]{8}\)\./,
  );
  assert.match(r.stdout, /TUI pid \d+ exited/);
  assert.match(r.stdout, /leader pid \d+ stopped with SIGTERM/);
  assert.match(r.stdout, /tmux -L \S+ attach -t w\d+/);
  assert.match(r.stdout, /demo OK/);
  const root = /simulators stopped, (\S+) removed/.exec(r.stdout)?.[1];
  assert.ok(root !== undefined);
  assert.not.ok(existsSync(root), "the temp root is gone");
  assert.equal(simProcessesUnder(root), [], "no process runs in the demo's directories");
  const tmuxSocket = /tmux -L (\S+) attach/.exec(r.stdout)?.[1] ?? "";
  const ls = spawnSync("tmux", ["-L", tmuxSocket, "list-sessions"], { encoding: "utf8" });
  assert.not.equal(ls.status, 0, "the simulator's tmux server is gone");
});

test("without tmux on PATH the demo names tmux as the requirement and exits 1", async () => {
  const empty = mkdtempSync(join(tmpdir(), "no-tmux-"));
  try {
    const r = await runDemo({ PATH: empty });
    assert.is(r.code, 1);
    assert.match(r.stderr, /tmux was not found/);
    assert.match(r.stderr, /apt-get install tmux/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test.run();
