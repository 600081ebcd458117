/**
 * Live verification of a seat (opt-in; ADR 0224 (docs/design/adr-0224.md) "Evidence and limits"): on a machine with a
 * real Herdr and Grok Build >= 1.0.46, hire a seat through the public API, check the saved record
 * with the public CLI (`verify-proof record`), deliver one prompt and keep the native reply, wait
 * for the owner to quit the TUI, release, and check that the Herdr session descriptor is
 * byte-identical before and after. An explicitly supplied, existing Grok login (`--login`) is
 * copied into a temporary private profile; nothing signs in, nothing is installed, nothing is
 * typed into a pane. Every step writes one file into a private evidence directory; instrument
 * failures (our tooling) are kept apart from results (Grok's and Herdr's behaviour).
 *
 *   npm run verify:live -- --login ~/.grok/auth.json [--herdr-socket P | --herdr-session N]
 *                          [--grok PATH] [--cwd DIR] [--evidence DIR] [--model ID [--effort E]]
 *                          [--wait-exit-ms N]
 *   npm run verify:live -- --sim [--evidence DIR]     the same script against the simulators
 *
 * In `--sim` mode the script plays the owner (it types /quit into the simulated pane through
 * tmux); live, it asks you to quit the TUI yourself and waits. Exit status: 0 every result passed,
 * 1 a result failed, 2 usage or instrument failure.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { discoverSocket } from "../lib/herdr/discovery.js";
import { type HireEvent, hire, type Seat, SeatRefusal } from "../lib/index.js";
import type { JsonValue } from "../lib/json.js";
import { kernelInfo, systemKernel } from "../lib/kernel/index.js";
import { readSessionDescriptor } from "../lib/observe/herdr-descriptor.js";
import { trustedHerdrClient } from "../lib/observe/herdr-trust.js";
import { removeRuntimeDir } from "../lib/seat/runtime-dir.js";
import { Evidence } from "./lib/evidence.js";
import { quitTuiAsOwner } from "./lib/owner.js";
import { requireTmux, type SimWorld, startSimWorld } from "./lib/sims.js";

const ROOT = join(import.meta.dirname, "..");
const CLI = join(ROOT, "lib", "cli", "verify-proof.ts");
const PROMPT =
  "This is a grok-seat live verification. In one short sentence, say which model you are and repeat the words: grok-seat verification.";

function usage(message: string): never {
  process.stderr.write(
    `verify-grok-seat: ${message}\nusage: verify-grok-seat --login <auth.json> [--herdr-socket P | --herdr-session N] [--grok PATH] [--cwd DIR] [--evidence DIR] [--model ID [--effort E]] [--wait-exit-ms N]\n       verify-grok-seat --sim [--evidence DIR]\n`,
  );
  process.exit(2);
}

const OPTIONS = {
  sim: { type: "boolean" },
  login: { type: "string" },
  "herdr-socket": { type: "string" },
  "herdr-session": { type: "string" },
  grok: { type: "string" },
  cwd: { type: "string" },
  evidence: { type: "string" },
  model: { type: "string" },
  effort: { type: "string" },
  "wait-exit-ms": { type: "string" },
} as const;

function parse() {
  try {
    return parseArgs({ options: OPTIONS, strict: true });
  } catch (err) {
    return usage(err instanceof Error ? err.message : String(err));
  }
}
const parsed = parse();
const a = parsed.values;
const sim = a.sim === true;
if (!sim && a.login === undefined)
  usage("--login <existing Grok login file> is required (or --sim)");
if (sim && a.login !== undefined) usage("--sim brings its own stand-in login; do not pass --login");
const waitExitMs =
  a["wait-exit-ms"] === undefined ? (sim ? 15_000 : 300_000) : Number(a["wait-exit-ms"]);
if (!Number.isInteger(waitExitMs) || waitExitMs < 0) usage("--wait-exit-ms must be a whole number");
if (sim) {
  const noTmux = requireTmux();
  if (noTmux !== null) usage(noTmux);
}

const evidenceDir = a.evidence ?? mkdtempSync(join(tmpdir(), "grok-seat-evidence-"));
let ev: Evidence;
try {
  ev = new Evidence(evidenceDir);
} catch (err) {
  usage(err instanceof Error ? err.message : String(err));
}
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
say(`verify-grok-seat (${sim ? "simulators" : "live"}): evidence in ${evidenceDir}`);

function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] ?? null)}`)
    .join(",")}}`;
}

function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLI, ...args],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== "number") return reject(err);
        resolve({ code: err === null ? 0 : Number(err.code), stdout, stderr });
      },
    );
  });
}

function mode(path: string): string {
  return `0${(lstatSync(path).mode & 0o777).toString(8)}`;
}

let world: SimWorld | null = null;
let seat: Seat | null = null;
let removeRuntime: string | null = null;
try {
  if (sim) {
    try {
      world = await startSimWorld();
    } catch (err) {
      ev.instrument("simulators", err);
      throw err;
    }
  }
  const herdrSocket =
    world?.herdr.socketPath ??
    discoverSocket({
      explicitPath: a["herdr-socket"],
      explicitSession: a["herdr-session"],
      env: process.env,
      tmpdir: tmpdir(),
      cwd: process.cwd(),
    }).socketPath;
  const herdr = trustedHerdrClient({ socketPath: herdrSocket }, systemKernel);
  const grok = world?.grok ?? a.grok;
  const login = world?.loginFile ?? a.login ?? "";
  const cwd = world?.cwd ?? realpathSync(a.cwd ?? process.cwd());

  ev.result("environment", true, {
    mode: sim ? "simulators" : "live",
    node: process.version,
    platform: process.platform,
    kernel: { ...kernelInfo() },
    herdrSocket,
    grok: grok ?? "grok on PATH",
    cwd,
    loginFile: login,
  });

  const descriptor = async (): Promise<{ json: string; sha256: string } | null> => {
    try {
      const d = await readSessionDescriptor(herdr, systemKernel, null);
      const json = canonicalJson(JSON.parse(JSON.stringify(d)));
      return { json, sha256: createHash("sha256").update(json).digest("hex") };
    } catch (err) {
      ev.instrument("herdr-descriptor", err);
      return null;
    }
  };
  const before = await descriptor();
  if (before !== null)
    ev.result("herdr-descriptor-before", true, {
      sha256: before.sha256,
      descriptor: JSON.parse(before.json),
    });

  const events: HireEvent[] = [];
  try {
    seat = await hire({
      cwd,
      profile: { kind: "temporary", loginFile: login },
      ...(grok === undefined ? {} : { grok }),
      herdr: { socketPath: herdrSocket },
      ...(world === null ? {} : { runtimeBase: world.runtimeBase }),
      conversationId: `verify-${Date.now()}`,
      label: "grok seat (verification)",
      ...(a.model === undefined ? {} : { model: { modelId: a.model, effort: a.effort ?? null } }),
      onProgress: (e) => {
        events.push(e);
        if (e.type === "proven") say(`  ✓ ${e.step}: ${e.summary}`);
        if (e.type === "refused") say(`  ✗ ${e.step}: ${e.code}: ${e.reason}`);
        if (e.type === "waiting")
          say(`  … ${e.step}: waiting for the owner (${e.gate}): ${e.ownerStep}`);
      },
    });
    ev.result("hire", true, {
      events: events.map((e) => ({
        ...e,
        checks: "checks" in e ? e.checks.map((c) => ({ ...c })) : [],
      })),
      recordPath: seat.recordPath,
    });
  } catch (err) {
    if (!(err instanceof SeatRefusal)) throw err;
    ev.result("hire", false, {
      refusal: JSON.parse(JSON.stringify(err.toRefusal())),
      events: events.map((e) => ({
        ...e,
        checks: "checks" in e ? e.checks.map((c) => ({ ...c })) : [],
      })),
    });
    say(`  refused: ${err.code}: ${err.reason}\n  owner's next step: ${err.ownerNextStep}`);
  }

  if (seat !== null) {
    const s = seat;
    const { record } = s;

    const live = await cli(["record", s.recordPath, "--json"]);
    const liveDoc: unknown = JSON.parse(live.stdout);
    const liveOk =
      live.code === 0 &&
      typeof liveDoc === "object" &&
      liveDoc !== null &&
      Reflect.get(liveDoc, "ok") === true;
    ev.result("record-cli-live", liveOk, {
      exitCode: live.code,
      document: JSON.parse(live.stdout),
    });
    say(`  verify-proof record (live seat): exit ${live.code}`);

    let agentResult: string | null = null;
    s.on((e) => {
      if (
        e.type === "grok" &&
        (e.event.type === "prompt_complete" || e.event.type === "turn_completed")
      ) {
        agentResult ??= e.event.agentResult;
      }
    });
    try {
      const d = await s.deliver(PROMPT);
      const timeout = new Promise<null>((r) =>
        setTimeout(() => r(null), sim ? 30_000 : 300_000).unref(),
      );
      const done = await Promise.race([d.completed, timeout]);
      const r = done ?? s.receipt(d.promptId) ?? d.receipt;
      ev.result("deliver", r.state === "completed", {
        promptId: d.promptId,
        receipt: JSON.parse(JSON.stringify(r)),
        // The agent's own result text when it reports one (an error turn); the reply itself streams
        // to the TUI as session updates, which the ACP seat does not expose as text.
        agentResult,
      });
      say(
        `  delivered ${d.promptId}: ${r.state}${agentResult === null ? "" : ` — "${String(agentResult).slice(0, 120)}"`}`,
      );
    } catch (err) {
      if (!(err instanceof Error && "code" in err)) throw err;
      ev.result("deliver", false, { error: { code: String(err.code), message: err.message } });
    }

    if (sim && world !== null) {
      quitTuiAsOwner(world.herdr.tmuxSocket, record.pane.process.pid);
    } else {
      say(
        `  please quit the Grok TUI in Herdr pane ${record.pane.pane.paneId} (type /quit); waiting up to ${Math.round(waitExitMs / 1000)} s`,
      );
    }
    const verdict = await Promise.race([
      s.tuiExit,
      new Promise<null>((r) => setTimeout(() => r(null), waitExitMs).unref()),
    ]);
    const tuiExited = verdict?.exited === true;
    ev.result("owner-exit", tuiExited, {
      verdict: verdict === null ? null : JSON.parse(JSON.stringify(verdict)),
    });

    // The copied login's mode while the seat holds it; release removes it (with the profile).
    const loginCopy = record.profile.loginFile === null ? null : record.profile.loginFile.copiedTo;
    const loginCopyMode = loginCopy === null ? null : mode(loginCopy);
    const report = await s.release({ waitForTuiExitMs: 1000 });
    const releaseOk = tuiExited
      ? report.leader.action === "stopped"
      : report.leader.action === "left_running" && report.leader.reasons.includes("TUI_ALIVE");
    ev.result("release", releaseOk, JSON.parse(JSON.stringify(report)));
    say(
      `  release: leader ${report.leader.action}${report.leader.reasons.length === 0 ? "" : ` (${report.leader.reasons.join(", ")})`}`,
    );

    const after = await cli(["record", s.recordPath, "--json"]);
    const afterDoc: unknown = JSON.parse(after.stdout);
    const release =
      typeof afterDoc === "object" && afterDoc !== null
        ? Reflect.get(Reflect.get(afterDoc, "facts") ?? {}, "release")
        : null;
    // With the TUI gone and the leader stopped the seat is no longer live (exit 1); with the TUI
    // still running, its leader runs too and the record still verifies (exit 0).
    const expectedCode = tuiExited ? 1 : 0;
    ev.result("record-cli-after-release", after.code === expectedCode, {
      exitCode: after.code,
      expectedExitCode: expectedCode,
      release: release === undefined ? null : JSON.parse(JSON.stringify(release)),
      document: JSON.parse(after.stdout),
    });

    const priv = {
      runtimeDir: mode(record.runtimeDir),
      record: mode(s.recordPath),
      loginCopy: loginCopyMode,
      loginCopyRemoved: loginCopy === null ? null : !existsSync(loginCopy),
      evidenceDir: mode(evidenceDir),
    };
    ev.result(
      "private-state",
      priv.runtimeDir === "0700" &&
        priv.record === "0600" &&
        (priv.loginCopy === null ||
          (priv.loginCopy === "0600" && priv.loginCopyRemoved === true)) &&
        priv.evidenceDir === "0700",
      priv,
    );
    if (report.leader.action === "stopped") removeRuntime = record.runtimeDir;
  }

  const afterDescriptor = await descriptor();
  if (before !== null && afterDescriptor !== null) {
    ev.result("herdr-descriptor-after", afterDescriptor.json === before.json, {
      identical: afterDescriptor.json === before.json,
      before: before.sha256,
      after: afterDescriptor.sha256,
      descriptor: JSON.parse(afterDescriptor.json),
    });
  }
} catch (err) {
  ev.instrument("run", err);
} finally {
  if (seat !== null && seat.state === "ready") await seat.release().catch(() => undefined);
  // The runtime dir holds the copied login: removed once its leader is proven stopped.
  if (removeRuntime !== null) removeRuntimeDir(removeRuntime);
  if (world !== null) {
    const r = seat?.record;
    world.sweep([r?.pane.process.pid, r?.leader.pid]);
    await world.stop();
  }
}
const { ok, path } = ev.summary({ mode: sim ? "simulators" : "live" });
const instrumentFailed = ev.entries.some((e) => e.kind === "instrument");
say(
  `${ok ? "verification passed" : instrumentFailed ? "instrument failure" : "verification FAILED"}: ${path}`,
);
process.exit(ok ? 0 : instrumentFailed ? 2 : 1);
