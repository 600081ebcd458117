/**
 * Seat figures (issue 8 "Performance"), against the Herdr and grok simulators in one run:
 *
 * 1. Hire overhead, from the `layout.apply` reply (the `launch` step proven) to `ready`:
 *    - wall clock, total;
 *    - minus the time spent waiting for the simulators to start: the `leader_wait` step (the TUI
 *      spawning its leader, which binds its socket) and the `active_sessions` step (the TUI
 *      writing its entry after `session/new`). This still contains the simulators' answer times
 *      (the Herdr simulator takes ~10 ms per `pane.get`, the grok simulator answers while it is
 *      still setting up its own session), so it is an upper bound of our work;
 *    - our own work: the CPU time this process spent in the same interval (proofs, kernel reads,
 *      framing and parsing, ACP attach, journal and record writes), median and p99 (issue 19's
 *      target: 15 ms). Per-step wall-clock and CPU medians show where the time goes. The timed
 *      hires run without a profiler: a sampling profiler's own thread is this process's CPU too
 *      (at a 200 µs interval it tripled the figure);
 *    - where that CPU goes: a few more hires under a CPU profile (node:inspector), each sample
 *      put in the step that was running when it was taken and in the nearest of our functions
 *      on its stack (or Node's / the GC's when none is ours).
 * 2. The simulator's own startup, timed separately with a bare TUI in tmux (the helper tests
 *    use): spawn to a listening leader and to the `active_sessions.json` entry. The whole hire
 *    (launch -> ready) is compared with it as a ratio: what a seat adds over just starting Grok.
 * 3. Memory of one process holding 10 ready seats: RSS and heap after GC, before and after.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { type Profiler, Session } from "node:inspector";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as v from "valibot";
import { hire } from "../../lib/seat/hire.js";
import type { HireStep } from "../../lib/seat/hire-events.js";
import { HIRE_STEPS } from "../../lib/seat/hire-events.js";
import type { Seat } from "../../lib/seat/seat.js";
import {
  ensureGrokSim,
  grokHomeFixture,
  startGrokTui,
  waitFor,
} from "../../test/helpers/grok-sim.js";
import { startHerdrSim } from "../../test/helpers/herdr-sim.js";
import { killSimProcesses } from "../../test/seat/stack.js";
import { figure, row, summarize } from "./lib/stats.js";

const N = Number(process.env.SEAT_BENCH_N ?? 20);
const here = dirname(fileURLToPath(import.meta.url));

/**
 * A CPU profile (node:inspector's Profiler) of the timed hires, its self time grouped by where the
 * code lives: our lib/<folder>, a package, Node's internals, the GC.
 */
const INTERVAL_US = 500;
const profiler = (() => {
  const session = new Session();
  session.connect();
  const post = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  let result: Profiler.Profile | null = null;
  /** [µs on the profile's clock, step] whenever a profiled hire's step starts; null: between hires. */
  const marks: [number, HireStep | null][] = [];
  const group = (url: string, fn: string): string => {
    if (url === "") return fn.startsWith("(") ? fn : "(native)";
    const lib = /\/lib\/([^/]+)\//.exec(url);
    if (lib !== null && !url.includes("node_modules")) return `lib/${lib[1]}`;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (pkg !== null) return pkg[1] ?? url;
    if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
    return url.split("/").slice(-2).join("/");
  };
  return {
    start: async (): Promise<void> => {
      await post("Profiler.enable");
      await post("Profiler.setSamplingInterval", { interval: INTERVAL_US });
      await post("Profiler.start");
    },
    stop: async (): Promise<void> => {
      result = ((await post("Profiler.stop")) as { profile: Profiler.Profile }).profile;
    },
    /** The profile's clock (V8's TimeTicks: CLOCK_MONOTONIC, as process.hrtime) in µs. */
    mark: (step: HireStep | null): void => {
      marks.push([Number(process.hrtime.bigint() / 1000n), step]);
    },
    /**
     * Per step: the step's profiled CPU ms per hire (samples x interval / hires) and its largest
     * parts, each the nearest of our functions on the sample's stack, else the leaf's group.
     */
    bySteps: (hires: number): Map<HireStep, { ms: number; parts: [string, number][] }> => {
      const out = new Map<HireStep, { ms: number; parts: [string, number][] }>();
      if (result === null) return out;
      const byId = new Map(result.nodes.map((n) => [n.id, n]));
      const parent = new Map<number, number>();
      for (const n of result.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
      const ours = (id: number): string => {
        const leaf = byId.get(id);
        for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
          const f = byId.get(cur)?.callFrame;
          if (f === undefined) break;
          const m = /\/lib\/(.+)$/.exec(f.url);
          if (m !== null && !f.url.includes("node_modules"))
            return `${m[1]} ${f.functionName || "(top)"}`;
        }
        const f = leaf?.callFrame;
        return f === undefined ? "?" : group(f.url, f.functionName);
      };
      const counts = new Map<HireStep, Map<string, number>>();
      let t = result.startTime;
      let m = 0;
      const samples = result.samples ?? [];
      const deltas = result.timeDeltas ?? [];
      for (let i = 0; i < samples.length; i++) {
        t += deltas[i] ?? 0;
        while (m < marks.length && (marks[m]?.[0] ?? 0) <= t) m++;
        const step = m === 0 ? null : (marks[m - 1]?.[1] ?? null);
        const id = samples[i];
        const n = id === undefined ? undefined : byId.get(id);
        if (step === null || id === undefined || n?.callFrame.functionName === "(idle)") continue;
        const c = counts.get(step) ?? new Map<string, number>();
        const k = ours(id);
        c.set(k, (c.get(k) ?? 0) + 1);
        counts.set(step, c);
      }
      const perHire = (samplesN: number): number => (samplesN * INTERVAL_US) / 1000 / hires;
      for (const [step, c] of counts) {
        const total = [...c.values()].reduce((a, b) => a + b, 0);
        const parts = [...c]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 4)
          .map(([k, x]): [string, number] => [k, perHire(x)]);
        out.set(step, { ms: perHire(total), parts });
      }
      return out;
    },
    /** [group, share of non-idle samples], largest first. */
    summary: (): [string, number][] => {
      if (result === null) return [];
      const byId = new Map(result.nodes.map((n) => [n.id, n]));
      const counts = new Map<string, number>();
      let busy = 0;
      for (const id of result.samples ?? []) {
        const n = byId.get(id);
        if (n === undefined || n.callFrame.functionName === "(idle)") continue;
        const g = group(n.callFrame.url, n.callFrame.functionName);
        counts.set(g, (counts.get(g) ?? 0) + 1);
        busy++;
      }
      return [...counts]
        .map(([g, c]): [string, number] => [g, c / busy])
        .sort((a, b) => b[1] - a[1]);
    },
  };
})();
const BARE_N = Number(process.env.SEAT_BENCH_BARE_N ?? 10);
/** Hires run under the profiler, after the timed ones (their CPU is not in the timed figures). */
const PROFILED_N = Number(process.env.SEAT_BENCH_PROFILED_N ?? 5);
const HOLD = 10;
const SIM_WAIT_STEPS: readonly HireStep[] = ["leader_wait", "active_sessions"];

function gc(): void {
  const g: unknown = Reflect.get(globalThis, "gc");
  if (typeof g === "function") {
    g();
    g();
  }
}

interface HireTiming {
  readonly total: number;
  readonly fromRequest: number;
  readonly waits: number;
  readonly wallOurs: number;
  readonly cpu: number;
  readonly steps: Partial<Record<HireStep, number>>;
}

function timing(events: readonly StepEvent[], cpuMs: number): HireTiming {
  const started = new Map<HireStep, number>();
  const steps: Partial<Record<HireStep, number>> = {};
  for (const e of events) {
    if (e.type === "started") started.set(e.step, e.elapsedMs);
    if (e.type === "proven") steps[e.step] = e.elapsedMs - (started.get(e.step) ?? e.elapsedMs);
  }
  const at = (step: HireStep): number => {
    const e = events.find((x) => x.type === "proven" && x.step === step);
    if (e === undefined) throw new Error(`no ${step} in the events`);
    return e.elapsedMs;
  };
  const total = at("ready") - at("launch");
  const fromRequest = at("ready") - (started.get("launch") ?? at("launch"));
  const waits = SIM_WAIT_STEPS.reduce((sum, s) => sum + (steps[s] ?? 0), 0);
  return { total, fromRequest, waits, wallOurs: total - waits, cpu: cpuMs, steps };
}

const grok = realpathSync(await ensureGrokSim());
const home = grokHomeFixture({ mcpServers: [] });
const cwd = realpathSync(home.cwd);
const runtimeBase = mkdtempSync(join(tmpdir(), "seat-bench-"));
const herdr = await startHerdrSim({ switches: { detectMs: 50 } });

/** Per step, the worker's CPU ms inside it (started -> proven), one value per timed hire. */
const cpuBySteps: Partial<Record<HireStep, number[]>> = {};

const StepEvent = v.object({
  type: v.string(),
  step: v.picklist(HIRE_STEPS),
  elapsedMs: v.number(),
});
const Threads = v.object({
  main: v.number(),
  others: v.number(),
  mainSysTicks: v.number(),
  mainTicks: v.number(),
});
const WorkerHire = v.object({
  events: v.array(StepEvent),
  cpuMs: v.number(),
  threads: v.nullable(Threads),
  stepCpu: v.record(v.string(), v.number()),
});
type StepEvent = v.InferOutput<typeof StepEvent>;

/**
 * The timed hires run in scripts/bench/lib/hire-worker.mjs: plain node on dist/, as a user's
 * process would (this file runs under tsx, whose module hooks cost ~0.6 ms of CPU per dynamic
 * import()). One line per hire; the simulators are cleaned up here between hires.
 */
function startWorker(): {
  hireOnce: () => Promise<v.InferOutput<typeof WorkerHire>>;
  stop: () => void;
} {
  const entry = join(process.cwd(), "dist", "index.js");
  if (!existsSync(entry))
    throw new Error("seat bench: dist/ is missing; run npm run build:ts first");
  const config = {
    entry: pathToFileURL(entry).href,
    cwd,
    grokHome: home.dir,
    grok,
    herdrSocketPath: herdr.socketPath,
    runtimeBase,
  };
  const child = spawn(
    process.execPath,
    [join(here, "lib", "hire-worker.mjs"), JSON.stringify(config)],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    hireOnce: async () => {
      child.stdin.write("hire\n");
      const next = await lines.next();
      if (next.done === true) throw new Error("the hire worker exited");
      return v.parse(WorkerHire, JSON.parse(next.value) as unknown);
    },
    stop: () => {
      child.stdin.end();
    },
  };
}

/** A hire in this process (the profiled hires and the 10 held seats). */
async function oneHire(mark?: (step: HireStep | null) => void): Promise<Seat> {
  const seat = await hire({
    cwd,
    profile: { kind: "grok-home", grokHome: home.dir },
    grok,
    herdr: { socketPath: herdr.socketPath },
    runtimeBase,
    onProgress: (e) => {
      if (e.type === "started") mark?.(e.step);
    },
  });
  mark?.(null);
  return seat;
}

try {
  // 1. Hire overhead.
  const timings: HireTiming[] = [];
  const threadSplit: v.InferOutput<typeof Threads>[] = [];
  const worker = startWorker();
  try {
    for (let i = 0; i < N + 2; i++) {
      const h = await worker.hireOnce();
      await killSimProcesses(grok, cwd, 100);
      if (i < 2) continue; // warm-up
      timings.push(timing(h.events, h.cpuMs));
      if (h.threads !== null) threadSplit.push(h.threads);
      for (const [step, ms] of Object.entries(h.stepCpu)) {
        const xs = cpuBySteps[step as HireStep] ?? [];
        xs.push(ms);
        cpuBySteps[step as HireStep] = xs;
      }
    }
  } finally {
    worker.stop();
  }
  // Where the CPU goes: more hires here, under the profiler (its cost stays out of the figures
  // above; the profile also holds tsx's module hooks, which a user's process does not run).
  await profiler.start();
  for (let i = 0; i < PROFILED_N; i++) {
    const seat = await oneHire(profiler.mark);
    await seat.release();
    await killSimProcesses(grok, cwd, 100);
  }
  await profiler.stop();
  const cpu = summarize(timings.map((t) => t.cpu));
  const wallOurs = summarize(timings.map((t) => t.wallOurs));
  const total = summarize(timings.map((t) => t.total));
  const fromRequest = summarize(timings.map((t) => t.fromRequest));
  const waits = summarize(timings.map((t) => t.waits));
  const w = [40, 12, 12];
  console.log(`\nhire against the simulators, n=${timings.length} (ms)`);
  console.log(row(["", "median", "p99"], w));
  console.log(row(["launch reply -> ready, wall (total)", total.median, total.p99], w));
  console.log(row(["  waiting for the simulators to start", waits.median, waits.p99], w));
  console.log(row(["  the rest, wall (ours + sim answers)", wallOurs.median, wallOurs.p99], w));
  console.log(row(["  our own work (this process's CPU)", cpu.median, cpu.p99], w));
  const mainThread = threadSplit.length > 0 ? summarize(threadSplit.map((t) => t.main)) : null;
  const otherThreads = threadSplit.length > 0 ? summarize(threadSplit.map((t) => t.others)) : null;
  if (mainThread !== null && otherThreads !== null) {
    console.log(row(["    on the main thread (our code)", mainThread.median, mainThread.p99], w));
    console.log(row(["    on V8's and libuv's threads", otherThreads.median, otherThreads.p99], w));
  }
  console.log(`\nper step (median ms)`);
  for (const step of HIRE_STEPS) {
    const xs = timings.map((t) => t.steps[step]).filter((x): x is number => x !== undefined);
    if (xs.length === 0) continue;
    const s = summarize(xs);
    const tag = SIM_WAIT_STEPS.includes(step)
      ? "  (simulator wait)"
      : step === "preflight" || step === "launch"
        ? "  (before the layout.apply reply)"
        : "";
    const c = cpuBySteps[step];
    const cpuTag = c === undefined ? "" : `  cpu ${summarize(c).median.toFixed(1)} ms`;
    console.log(row([`  ${step}`, s.median, s.p99], w) + cpuTag + tag);
  }
  const cpuSteps = Object.fromEntries(
    HIRE_STEPS.filter((st) => cpuBySteps[st] !== undefined).map((st) => [
      st,
      summarize(cpuBySteps[st] ?? []).median,
    ]),
  );
  const profile = profiler.summary();
  console.log(
    `\nCPU profile of ${PROFILED_N} more hires (whole hire, this process), share of busy samples`,
  );
  for (const [what, share] of profile.slice(0, 12)) {
    console.log(row([`  ${what}`, `${(share * 100).toFixed(1)}%`, ""], w));
  }
  const bySteps = profiler.bySteps(PROFILED_N);
  console.log(`\nthe same profile by step (profiled CPU ms per hire; its largest parts)`);
  const profileSteps: Record<string, { ms: number; parts: Record<string, number> }> = {};
  for (const step of HIRE_STEPS) {
    const s = bySteps.get(step);
    if (s === undefined) continue;
    profileSteps[step] = { ms: s.ms, parts: Object.fromEntries(s.parts) };
    console.log(row([`  ${step}`, s.ms, ""], w));
    for (const [what, ms] of s.parts) console.log(row([`    ${what}`, ms, ""], [60, 12]));
  }
  figure(
    "seat.hire.cpu_by_step_ms",
    Object.values(cpuSteps).reduce((a, b) => a + b, 0),
    "ms",
    {
      note: "medians of this process's CPU inside each step (started -> proven); the sum of medians",
      steps: cpuSteps,
      profile: Object.fromEntries(profile.slice(0, 12)),
      profileSteps,
      profiledHires: PROFILED_N,
    },
  );
  figure("seat.hire.ours_cpu_ms.median", cpu.median, "ms", {
    p99: cpu.p99,
    n: cpu.n,
    target: "<= 15",
  });
  figure("seat.hire.ours_cpu_ms.p99", cpu.p99, "ms", { n: cpu.n });
  if (mainThread !== null && otherThreads !== null) {
    figure("seat.hire.main_thread_cpu_ms.median", mainThread.median, "ms", {
      p99: mainThread.p99,
      n: mainThread.n,
      note: "/proc/self/task/<pid>/schedstat: the thread our code runs on",
    });
    const ticks = threadSplit.reduce((a, t) => a + t.mainTicks, 0);
    const sysTicks = threadSplit.reduce((a, t) => a + t.mainSysTicks, 0);
    if (ticks > 0) {
      figure("seat.hire.main_thread_kernel_share", (100 * sysTicks) / ticks, "%", {
        ticks,
        sysTicks,
        note: "system time of the main thread over all timed hires (utime/stime of its stat)",
      });
      console.log(
        `    the main thread's time in the kernel (syscalls, page faults): ${((100 * sysTicks) / ticks).toFixed(0)}% of ${ticks} ticks`,
      );
    }
    figure("seat.hire.other_threads_cpu_ms.median", otherThreads.median, "ms", {
      p99: otherThreads.p99,
      n: otherThreads.n,
      note: "V8's GC and compiler workers and libuv's file-system pool",
    });
  }
  figure("seat.hire.ours_wall_upper_bound_ms.median", wallOurs.median, "ms", { p99: wallOurs.p99 });
  figure("seat.hire.launch_to_ready_ms.median", total.median, "ms", { p99: total.p99 });
  figure("seat.hire.sim_wait_ms.median", waits.median, "ms", { p99: waits.p99 });

  // 2. The simulator's own startup, alone.
  const bare: { listening: number; session: number }[] = [];
  for (let i = 0; i < BARE_N; i++) {
    const t0 = performance.now();
    const tui = await startGrokTui({
      grokHome: home.dir,
      cwd: home.cwd,
      // A bare TUI without a seat: set what a seat would, so the two start alike.
      env: { GROK_DISABLE_AUTOUPDATER: "1" },
    });
    try {
      await tui.leaderPid();
      const listening = performance.now() - t0;
      await waitFor("active_sessions entry", () => {
        const p = tui.paths.activeSessions;
        return existsSync(p) && readFileSync(p, "utf8").includes(tui.sessionId);
      });
      bare.push({ listening, session: performance.now() - t0 });
    } finally {
      await tui.stop();
    }
  }
  const bl = summarize(bare.map((b) => b.listening));
  const bs = summarize(bare.map((b) => b.session));
  console.log(`\nbare simulator startup (tmux spawn -> ...), n=${bare.length} (ms)`);
  console.log(row(["", "median", "p99"], w));
  console.log(row(["  leader listening", bl.median, bl.p99], w));
  console.log(row(["  active_sessions entry", bs.median, bs.p99], w));
  console.log(
    row(
      [
        "hire (layout.apply -> ready) / bare",
        `${(fromRequest.median / bs.median).toFixed(2)}x`,
        "",
      ],
      w,
    ),
  );
  figure("seat.sim.bare_startup_ms.median", bs.median, "ms", {
    p99: bs.p99,
    listening_median: bl.median,
  });
  figure("seat.hire.vs_bare_startup.ratio", fromRequest.median / bs.median, "x", {
    note: "hire (layout.apply request -> ready) over a bare TUI start in tmux (spawn -> active_sessions entry)",
  });

  // 3. Memory of 10 ready seats in one process. RSS moves with the allocator and GC; the JS
  // heap, external memory and open file descriptors are the seat's own footprint.
  const fds = (): number => readdirSync("/proc/self/fd").length;
  gc();
  const m0 = process.memoryUsage();
  const f0 = fds();
  const held: Seat[] = [];
  for (let i = 0; i < HOLD; i++) held.push(await oneHire());
  gc();
  const m1 = process.memoryUsage();
  const f1 = fds();
  const mib = (x: number): number => x / 1024 / 1024;
  const rss = mib(m1.rss - m0.rss);
  const heap = mib(m1.heapUsed - m0.heapUsed);
  const external = mib(m1.external - m0.external);
  console.log(`\nmemory of ${HOLD} ready seats in one process (after GC)`);
  console.log(row(["", "total", "per seat"], w));
  console.log(row(["  JS heap used (MiB)", heap, heap / HOLD], w));
  console.log(row(["  external + array buffers (MiB)", external, external / HOLD], w));
  console.log(row(["  RSS (MiB, allocator-noisy)", rss, rss / HOLD], w));
  console.log(row(["  open file descriptors", f1 - f0, (f1 - f0) / HOLD], w));
  console.log(row(["  process RSS with 10 seats (MiB)", mib(m1.rss), ""], w));
  figure("seat.memory.heap_per_seat_mib", heap / HOLD, "MiB", { seats: HOLD, total: heap });
  figure("seat.memory.external_per_seat_mib", external / HOLD, "MiB", { seats: HOLD });
  figure("seat.memory.rss_per_seat_mib", rss / HOLD, "MiB", {
    seats: HOLD,
    total: rss,
    note: "allocator-noisy",
  });
  figure("seat.memory.rss_with_10_seats_mib", mib(m1.rss), "MiB", { seats: HOLD });
  figure("seat.fds_per_seat", (f1 - f0) / HOLD, "fds", { seats: HOLD });
  for (const s of held) await s.release();
} finally {
  await killSimProcesses(grok, cwd, 100);
  await herdr.stop();
  home.remove();
  rmSync(runtimeBase, { recursive: true, force: true });
}
process.exit(0);
