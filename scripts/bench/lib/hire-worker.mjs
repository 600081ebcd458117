// The timed hires of scripts/bench/seat.bench.ts, in a plain `node` process that imports the built
// package (dist/), as an orchestrator's process would. The bench itself runs under tsx, whose
// module hooks answer every dynamic import() on another thread: ~0.6 ms of CPU per call even for
// a module already loaded (~15 µs without them), and a hire makes several, so measured there our
// CPU would carry the harness's.
//
// Protocol: argv[2] is a JSON config; each line "hire" on stdin runs one hire, releases it and
// prints one JSON line (the events, this process's CPU from the launch reply to ready, its split
// by thread, each step's CPU); the parent cleans the simulators up before sending the next line.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const config = JSON.parse(process.argv[2] ?? "{}");
const { hire } = await import(config.entry);

/**
 * CPU ns of this process's threads from /proc/self/task/<tid>/schedstat (its first field: time on
 * a CPU, in ns): the main thread (tid = pid), where our code runs, apart from the others (V8's GC
 * and compiler workers, libuv's file-system pool), which process.cpuUsage() adds in; and the main
 * thread's utime and stime (fields 14 and 15 of its stat) in clock ticks: too coarse for one hire,
 * summed over all of them they split its CPU into user space and the kernel's work (syscalls, page
 * faults). Linux only (null elsewhere).
 */
function threadCpu() {
  const tasks = `/proc/${process.pid}/task`;
  if (!existsSync(tasks)) return null;
  const stat = readFileSync(`${tasks}/${process.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(tasks)) {
    let ns = 0;
    try {
      ns = Number(readFileSync(`${tasks}/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      continue; // the thread exited meanwhile
    }
    if (tid === String(process.pid)) main += ns;
    else others += ns;
  }
  return { main, others, mainSysTicks: stime, mainTicks: utime + stime };
}

const cpuMsSince = (c0) => {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1000;
};

async function oneHire() {
  const events = [];
  const stepCpu = {};
  const stepStart = new Map();
  let cpuAtLaunch = null;
  let threadsAtLaunch = null;
  let cpuMs = 0;
  let threads = null;
  const seat = await hire({
    cwd: config.cwd,
    profile: { kind: "grok-home", grokHome: config.grokHome },
    grok: config.grok,
    herdr: { socketPath: config.herdrSocketPath },
    runtimeBase: config.runtimeBase,
    onProgress: (e) => {
      events.push({ type: e.type, step: e.step, elapsedMs: e.elapsedMs });
      if (e.type === "started") stepStart.set(e.step, process.cpuUsage());
      if (e.type !== "proven") return;
      const s0 = stepStart.get(e.step);
      if (s0 !== undefined) stepCpu[e.step] = cpuMsSince(s0);
      if (e.step === "launch") {
        cpuAtLaunch = process.cpuUsage();
        threadsAtLaunch = threadCpu();
      }
      if (e.step === "ready" && cpuAtLaunch !== null) {
        cpuMs = cpuMsSince(cpuAtLaunch);
        const t = threadCpu();
        if (t !== null && threadsAtLaunch !== null) {
          threads = {
            main: (t.main - threadsAtLaunch.main) / 1e6,
            others: (t.others - threadsAtLaunch.others) / 1e6,
            mainSysTicks: t.mainSysTicks - threadsAtLaunch.mainSysTicks,
            mainTicks: t.mainTicks - threadsAtLaunch.mainTicks,
          };
        }
      }
    },
  });
  await seat.release();
  return { events, cpuMs, threads, stepCpu };
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line !== "hire") break;
  process.stdout.write(`${JSON.stringify(await oneHire())}\n`);
}
