/**
 * `npm run demo`: the whole seat against the simulators, in private temp dirs, in a few seconds.
 *
 *   hire (each proof printed as it is established) -> deliver a prompt (its receipt moves to
 *   `completed`, and `delivery.reply` prints what the agent answered) -> the owner quits the TUI -> release (the proven leader is stopped only now)
 *   -> clean up
 *
 * The demo plays the owner when it quits the TUI: it types `/quit` into the pane through tmux,
 * as a person attached to the pane would. The library never types into a pane. Attach to the
 * simulator's tmux server (the command is printed) to watch the TUI; with `--keep` the demo waits
 * for *you* to quit the TUI there (or Ctrl-C) instead of doing it itself.
 *
 * Requirements: tmux (checked, with a clear message) and the native addon built by `npm install`.
 */
import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GrokSeatError } from "../lib/errors.js";
import { kernelInfo } from "../lib/kernel/index.js";
import { hire } from "../lib/seat/hire.js";
import { SeatRefusal } from "../lib/seat/refusal.js";
import type { Seat } from "../lib/seat/seat.js";
import { echoBehaviour, OperatorBank } from "../test/sim/mcp-bank/bank.js";
import { loadBankTools } from "../test/sim/mcp-bank/fixture.js";
import { type BankHttp, serveBankHttp } from "../test/sim/mcp-bank/http.js";
import { attachHint, quitTuiAsOwner } from "./lib/owner.js";
import { color, progressLine, refusalLines, useColor } from "./lib/print.js";
import { requireTmux, type SimWorld, startSimWorld } from "./lib/sims.js";

/** `text` with every control and format character written as `\u{…}`, for a terminal. */
function terminalSafe(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`);
}

const keep = process.argv.includes("--keep");
const c = color(useColor(process.stdout));
const out = (line = ""): void => {
  process.stdout.write(`${line}\n`);
};

function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(1);
}

const noTmux = requireTmux();
if (noTmux !== null) fail(noTmux);
try {
  kernelInfo();
} catch (err) {
  fail(
    `the native addon is not built (${err instanceof GrokSeatError ? err.code : String(err)}). Run \`npm install\` first; it builds build/Release/grok_seat_proofs.node.`,
  );
}

out(c.bold("grok-seat demo: a proven native channel into a visible Grok session"));
out(c.dim("Everything below runs against the Herdr and grok simulators in private temp dirs."));
out();
const t0 = performance.now();
out("setting up");
out(`  building the grok simulator (skipped when unchanged) ...`);
let world: SimWorld;
try {
  world = await startSimWorld();
} catch (err) {
  fail(`the simulators did not start: ${err instanceof Error ? err.message : String(err)}`);
}
out(`  grok simulator   ${world.grok}`);
out(`  Herdr simulator  pid ${world.herdr.pid}, socket ${world.herdr.socketPath}`);
out(`  work directory   ${world.cwd}`);
out(
  `  login to copy    ${world.loginFile} ${c.dim("(a stand-in; the simulator needs no real login)")}`,
);
// The seat the orchestrator hires: a persona, the operator's MCP bank (a simulated one behind
// its own token) and a selected skill.
const skillDir = join(world.root, "skills", "review");
mkdirSync(skillDir, { recursive: true });
writeFileSync(
  join(skillDir, "SKILL.md"),
  "---\nname: review\ndescription: Review a change before it lands.\n---\nRead the diff first.\n",
);
const bankToken = crypto.randomUUID();
let bankHttp: BankHttp;
try {
  bankHttp = await serveBankHttp({
    bank: new OperatorBank({ tools: loadBankTools(), behaviour: echoBehaviour }),
    token: bankToken,
  });
} catch (err) {
  await world.stop();
  fail(`the MCP bank simulator did not start: ${err instanceof Error ? err.message : String(err)}`);
}
out(`  operator MCP bank ${bankHttp.url.href} ${c.dim("(behind its own bearer token)")}`);
out(`  selected skill   ${skillDir}`);
out(c.dim(`  ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`));

let seat: Seat | null = null;
let exitCode = 0;
const leftovers: (number | null)[] = [];
let interrupted = false;
process.once("SIGINT", () => {
  interrupted = true;
});

try {
  out();
  out("hire");
  seat = await hire({
    cwd: world.cwd,
    profile: { kind: "temporary", loginFile: world.loginFile },
    grok: world.grok,
    herdr: { socketPath: world.herdr.socketPath },
    runtimeBase: world.runtimeBase,
    conversationId: "demo-conversation",
    label: "grok seat (demo)",
    persona:
      "You are the demo orchestrator's service seat.\nMemory card: the demo project has one README.",
    mcpBank: {
      name: "ops",
      url: bankHttp.url.href,
      headers: { Authorization: `Bearer ${bankToken}` },
    },
    skills: [skillDir],
    onProgress: (e) => {
      const line = progressLine(e, c);
      if (line !== null) out(line);
      if (
        e.type === "proven" &&
        e.step === "launch" &&
        typeof e.facts === "object" &&
        e.facts !== null &&
        !Array.isArray(e.facts)
      ) {
        out(
          c.dim(
            `      watch it: ${attachHint(world.herdr.tmuxSocket, String(e.facts.workspaceId))}   (detach: Ctrl-b d)`,
          ),
        );
      }
    },
  });
  const s = seat;
  const { record } = s;
  leftovers.push(record.pane.process.pid, record.leader.pid);
  out(
    `  record ${s.recordPath} ${c.dim(`(0${(lstatSync(s.recordPath).mode & 0o777).toString(8)})`)}`,
  );
  out(c.dim(`  try: node --import tsx lib/cli/verify-proof.ts record ${s.recordPath}`));

  out();
  out("deliver");
  s.on((e) => {
    if (e.type === "dispatched" || e.type === "consumed" || e.type === "completed") {
      const r = e.receipt;
      const how =
        e.type === "dispatched"
          ? "fenced durably, then written to the leader"
          : e.type === "consumed"
            ? `Grok took it (${r.consumption?.kind ?? "queue"}), not yet model awareness`
            : `final result echoing our session and prompt id (${r.result?.stopReason ?? "?"}, via ${r.result?.channel ?? "?"})`;
      out(`  receipt ${r.promptId.slice(0, 8)}  ${c.green(r.state.padEnd(10))}  ${how}`);
    }
  });
  const delivery = await s.deliver("Hello from grok-seat: please say hello back in one sentence.");
  const done = await delivery.completed;
  if (done.state !== "completed") throw new Error(`the receipt ended ${done.state}`);
  // The awareness evidence: what Grok's model answered, from the updates Grok stamped with our
  // prompt id (not from the terminal). Bytes from Grok never reach our terminal unescaped.
  const reply = await delivery.reply;
  out(`  the agent answered ${c.dim(`(delivery.reply, ${reply.stopReason})`)}:`);
  out(`    ${c.green(terminalSafe(reply.text))}`);

  out();
  out("the owner quits the TUI");
  if (keep) {
    out(`  --keep: the seat stays up. Attach with`);
    out(`    ${attachHint(world.herdr.tmuxSocket, record.pane.pane.workspaceId)}`);
    out(`  and type /quit in the Grok pane when you are done (or press Ctrl-C here to clean up).`);
    await Promise.race([
      s.tuiExit,
      new Promise<void>((resolve) => {
        const tick = setInterval(() => {
          if (interrupted) {
            clearInterval(tick);
            resolve();
          }
        }, 100);
        void s.tuiExit.then(() => clearInterval(tick));
      }),
    ]);
  } else {
    out(
      c.dim(
        "  (the demo plays the owner: it types /quit into the pane through tmux; the library never types)",
      ),
    );
    quitTuiAsOwner(world.herdr.tmuxSocket, record.pane.process.pid);
  }
  const verdict = await Promise.race([
    s.tuiExit,
    new Promise<null>((r) => setTimeout(() => r(null), keep ? 10 : 15_000).unref()),
  ]);
  if (verdict?.exited === true) {
    const herdr = verdict.herdr.kind === "none" ? "no Herdr event" : `Herdr ${verdict.herdr.kind}`;
    out(
      `  ${c.green("✓")} TUI pid ${record.pane.process.pid} exited: kernel handle on its bound identity; ${herdr}`,
    );
  } else {
    out(`  the TUI is still running`);
  }

  out();
  out("release");
  const report = await s.release({ waitForTuiExitMs: 1000 });
  out(`  ${c.green("✓")} controller closed: disconnect frame, socket, admission lock, journal`);
  if (report.leader.action === "stopped") {
    out(
      `  ${c.green("✓")} leader pid ${report.leader.pid} stopped with SIGTERM through its kernel handle ${c.dim("(we launched it, it is still the proven process, the TUI's exit was observed)")}`,
    );
    if (report.leader.removed.length > 0)
      out(c.dim(`    stale files removed: ${report.leader.removed.join(", ")}`));
  } else {
    out(`  leader pid ${report.leader.pid} left running: ${report.leader.reasons.join(", ")}`);
    if (!keep) exitCode = 1;
  }
} catch (err) {
  exitCode = 1;
  if (err instanceof SeatRefusal) {
    for (const l of refusalLines(err, c)) out(`  ${l}`);
    const d = err.context;
    leftovers.push(
      typeof d.tuiPid === "number" ? d.tuiPid : null,
      typeof d.leaderPid === "number" ? d.leaderPid : null,
    );
  } else {
    out(`  ${c.red("error")}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
  if (seat !== null && seat.state === "ready") await seat.release().catch(() => undefined);
} finally {
  out();
  out("cleanup");
  world.sweep(leftovers);
  await bankHttp.close().catch(() => undefined);
  await world.stop();
  out(`  simulators stopped, ${world.root} removed`);
  out();
  out(
    exitCode === 0
      ? c.green(`demo OK in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
      : c.red("demo FAILED"),
  );
}
process.exit(exitCode);
