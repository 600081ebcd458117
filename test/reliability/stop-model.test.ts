// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * T6 — stop only what we proved (docs/design/reliability-plan.md §6 T6; ADR 0224 (docs/design/adr-0224.md): "only an observed
 * original TUI exit permits stopping its own proven leader"). Model-based, fast-check `commands`:
 *
 * 1. Stand-in lifecycles (fixtures/stop-lifecycles.ts, inside a pid namespace when the kernel
 *    allows it): real processes — a TUI that can exit or exec another program, a leader, an
 *    imposter and a pid squatter given the very pid of the process they replace, a TUI whose
 *    main thread exits while another thread lingers (exit under way) — each logging
 *    every signal it receives; a controller built from the library's own release pieces
 *    (fixtures/stop-world.ts), restarted from its record at random. The model predicts each
 *    decision and its reasons; the signal logs must show SIGTERM only to leaders whose stop the
 *    model allowed, and nothing else to anyone.
 * 2. Real hire/release lifecycles (fixtures/stop-real.ts): the Herdr and grok simulators, a
 *    controller process that hires and releases through `Seat.release()`, the owner quitting the
 *    TUI, leader crashes (the TUI respawns one), an imposter at the socket, kill -9 of the
 *    controller. Oracle: the kernel (every process the model keeps alive is alive).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { GrokSeatError } from "../../lib/errors.js";
import { recordClaim, scaled } from "../helpers/claims.js";
import { type Stack, startStack } from "../seat/stack.js";
import {
  ControllerRestarts,
  ImposterTakesSocket,
  LeaderCrashes,
  OwnerQuits,
  realCommands,
  realCounts,
  realLifecycle,
  realReasons,
  StopRequested,
} from "./fixtures/stop-real.js";

const startedAt = Date.now();
const seed = Number(process.env.GROK_SEAT_SEED ?? Date.now() % 2 ** 31);
const standinRuns = scaled(40, 500);
const realRuns = scaled(2, 30);
const FIXTURE = join(import.meta.dirname, "fixtures", "stop-lifecycles.ts");

const ResultSchema = v.object({
  ok: v.boolean(),
  inNamespace: v.boolean(),
  counts: v.record(v.string(), v.number()),
  reasons: v.record(v.string(), v.number()),
  error: v.optional(v.string()),
});
let standin: v.InferOutput<typeof ResultSchema> | null = null;
let realHeld = false;
let realScripted = 0;
const failures: string[] = [];

function describe(err: unknown): string {
  return err instanceof GrokSeatError
    ? `${err.code}: ${err.message} ${JSON.stringify(err.context)}`
    : String(err);
}

function python(): string | null {
  for (const p of ["/usr/bin/python3", "python3"]) {
    if (spawnSync(p, ["-c", "import os; os.pidfd_open"], { stdio: "ignore" }).status === 0)
      return p;
  }
  return null;
}

test("stand-in lifecycles: stop iff launched, handle valid and TUI exit observed", () => {
  const py = python();
  if (py === null) {
    console.log("SKIP: no python3 for the stand-in processes");
    failures.push("no python3");
    return;
  }
  const work = mkdtempSync(join(tmpdir(), "grok-seat-t6-"));
  try {
    const args = [
      process.execPath,
      "--import",
      "tsx",
      FIXTURE,
      work,
      py,
      String(standinRuns),
      "30",
      String(seed),
    ];
    const ns = ["--user", "--map-root-user", "--pid", "--fork", "--mount-proc"];
    const probe = spawnSync("unshare", [...ns, "true"], { encoding: "utf8" });
    if (probe.status !== 0) console.log(`NOTE: no pid namespace (${probe.stderr.trim()})`);
    const [cmd, ...rest] = probe.status === 0 ? ["unshare", ...ns, ...args] : args;
    const r = spawnSync(cmd ?? "unshare", rest, {
      cwd: join(import.meta.dirname, "..", ".."),
      encoding: "utf8",
      timeout: scaled(240_000, 1_800_000),
    });
    const last = r.stdout.trim().split("\n").pop() ?? "";
    assert.ok(last.startsWith("{"), `fixture printed no result (status ${r.status}): ${r.stderr}`);
    standin = v.parse(ResultSchema, JSON.parse(last));
    assert.ok(standin.ok, standin.error);
    assert.is(r.status, 0, r.stderr);
    const c = standin.counts;
    assert.is(c.signalsToUnproven, 0, "no signal to a process we did not prove");
    assert.is(c.signalsToProvenLeaders, c.stops, "one SIGTERM per allowed stop");
    assert.ok((c.stops ?? 0) >= 4, "the scripted allowed stops happened");
    for (const reason of ["NOT_OWNED", "TUI_ALIVE", "LEADER_REPLACED", "LEADER_GONE"]) {
      assert.ok((standin.reasons[reason] ?? 0) > 0, `${reason} was reached`);
    }
    if (standin.inNamespace) {
      assert.ok((c.imposterSamePid ?? 0) > 0, "an imposter got the leader's very pid");
      assert.ok((c.tuiPidReuseSamePid ?? 0) > 0, "a squatter got the dead TUI's very pid");
      assert.ok((standin.reasons.IDENTITY_UNPROVEN ?? 0) > 0, "IDENTITY_UNPROVEN was reached");
    }
  } catch (err) {
    failures.push(`stand-in: ${String(err)}`);
    throw err;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("real hire/release lifecycles through the simulators", async () => {
  let stack: Stack | null = null;
  try {
    stack = await startStack();
    const s = stack;
    // Scripted first: each outcome on the real path whatever the seed.
    const Q = new OwnerQuits();
    const C = new LeaderCrashes();
    const scripted = [
      [Q],
      [],
      [Q, C, new ImposterTakesSocket()],
      [C],
      [Q, C],
      [Q, new ControllerRestarts()],
      [Q, new StopRequested()],
    ];
    for (const script of scripted) await realLifecycle(s, script);
    realScripted = scripted.length;
    await fc.assert(
      fc.asyncProperty(fc.commands(realCommands, { maxCommands: 6, size: "max" }), (cmds) =>
        realLifecycle(s, cmds),
      ),
      { numRuns: realRuns, seed, endOnFailure: true },
    );
    assert.ok((realCounts.stops ?? 0) >= 2, "allowed stops on the real path");
    for (const reason of ["TUI_ALIVE", "LEADER_REPLACED", "LEADER_GONE", "NOT_OWNED"]) {
      assert.ok((realReasons[reason] ?? 0) > 0, `${reason} was reached on the real path`);
    }
    realHeld = true;
  } catch (err) {
    // fast-check keeps the failing command's error as `cause`; uvu would not print it, and it
    // formats `details` as a string (a GrokSeatError's details object would hide the failure).
    const cause =
      err instanceof Error && err.cause !== undefined ? ` cause: ${describe(err.cause)}` : "";
    failures.push(`real: ${describe(err)}${cause}`);
    if (cause !== "" || err instanceof GrokSeatError) throw new Error(`${describe(err)}${cause}`);
    throw err;
  } finally {
    await stack?.cleanup();
  }
});

test("claim T6-stop-only-proven", () => {
  const c = standin?.counts ?? {};
  const reasons: Record<string, number> = {};
  for (const [k, n] of [...Object.entries(standin?.reasons ?? {}), ...Object.entries(realReasons)])
    reasons[k] = (reasons[k] ?? 0) + n;
  const lifecycles = (c.lifecycles ?? 0) + (realCounts.lifecycles ?? 0);
  const commands = (c.commands ?? 0) + (realCounts.commands ?? 0);
  const stops = (c.stops ?? 0) + (realCounts.stops ?? 0);
  const scripted = (c.scripted ?? 0) + realScripted;
  const held = standin?.ok === true && realHeld && failures.length === 0;
  const byReason = Object.entries(reasons)
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  recordClaim(
    {
      id: "T6-stop-only-proven",
      title: "Stop only what we proved",
      claim:
        `${lifecycles} lifecycles (${scripted} scripted, ${lifecycles - scripted} randomized by ` +
        `fast-check; ${realCounts.lifecycles} through the real hire/release path; ${commands} ` +
        "commands): the leader was stopped only when " +
        "(launched ∧ handle valid ∧ TUI exit observed through the pidfd) — " +
        `${stops} stops, 0 stops otherwise; refusals by reason {${byReason}}; ` +
        `${c.signalsToUnproven ?? 0} signals to processes we did not prove ` +
        `(${c.imposterSamePid ?? 0} imposters and ${c.tuiPidReuseSamePid ?? 0} squatters had the ` +
        `very pid of the process they replaced; ${c.tuiExitsLingering ?? 0} TUI exits were caught ` +
        "under way, main thread gone and pidfd not yet readable, and waited for).",
      counts: {
        lifecycles,
        commands,
        stops,
        scripted,
        standinLifecycles: c.lifecycles ?? 0,
        realLifecycles: realCounts.lifecycles ?? 0,
        stopRequests: (c.stopRequests ?? 0) + (realCounts.stopRequests ?? 0),
        signalsToUnproven: c.signalsToUnproven ?? 0,
        imposters: (c.imposters ?? 0) + (realCounts.imposters ?? 0),
        imposterSamePid: c.imposterSamePid ?? 0,
        tuiExecs: c.tuiExecs ?? 0,
        tuiExitsLingering: c.tuiExitsLingering ?? 0,
        tuiPidReuseSamePid: c.tuiPidReuseSamePid ?? 0,
        restarts: (c.restarts ?? 0) + (realCounts.restarts ?? 0),
        replacements: realCounts.replacements ?? 0,
        hireRetries: realCounts.hireRetries ?? 0,
        ...Object.fromEntries(Object.entries(reasons).map(([k, n]) => [`refused_${k}`, n])),
      },
      held,
      seeds: [seed],
      method:
        "fast-check commands/asyncModelRun; stand-ins: python processes logging every signal, " +
        "run under unshare --user --map-root-user --pid (ns_last_pid forces pid reuse), " +
        "controller = the library's release pieces (openProcessHandle in the spawn tick, " +
        "watchPaneExit, leaderNow, decideLeaderStop, stopLeader); real path: hire() and " +
        "Seat.release() in a controller process against the Herdr and grok simulators, kill -9 " +
        "of the controller, verifyRecord after restart; oracle: signal logs and /proc; a hire " +
        "refused by the Herdr simulator's launcher race is retried (counted: hireRetries)",
    },
    startedAt,
  );
  assert.ok(held, failures.join("; "));
});

test.run();
