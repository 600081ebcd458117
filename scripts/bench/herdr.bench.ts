/**
 * Herdr pane proof: time from the `layout.apply` reply to a bound `PaneProofRecord`, against the
 * Herdr simulator on real tmux terminals, split into time inside Herdr round trips and time inside
 * kernel fact reads. Side by side: the kernel facts a user would otherwise get from `ps`, and
 * the re-verification (`verifyPane`) that runs before every control.
 *
 *   npm run bench -- herdr
 */
import { execFile } from "node:child_process";
import { createConnection, type Socket } from "node:net";
import { promisify } from "node:util";
import { HerdrClient, type RequestOptions } from "../../lib/herdr/client.js";
import { launchPane } from "../../lib/herdr/launch.js";
import type { HerdrMethod, HerdrParams, HerdrResult } from "../../lib/herdr/methods.js";
import { type KernelPort, systemKernel } from "../../lib/kernel/index.js";
import { readSessionDescriptor } from "../../lib/observe/herdr-descriptor.js";
import { trustedHerdrClient } from "../../lib/observe/herdr-trust.js";
import { bindPane, verifyPane } from "../../lib/observe/pane.js";
import { startHerdrSim } from "../../test/helpers/herdr-sim.js";
import { figure, row, summarize } from "./lib/stats.js";

const run = promisify(execFile);
const N = Number(process.env.BENCH_HERDR_N ?? 60);

/** Time spent inside Herdr round trips and kernel reads during one measured phase. */
const spent = { herdrUs: 0, kernelUs: 0, herdrCalls: 0, kernelCalls: 0 };
const now = (): bigint => process.hrtime.bigint();
const us = (t0: bigint): number => Number(now() - t0) / 1000;

class TimedClient extends HerdrClient {
  override async requestWithPeer<M extends HerdrMethod, P>(
    method: M,
    params: HerdrParams[M],
    inspect: (socket: Socket) => P,
    options: RequestOptions = {},
  ): Promise<{ result: HerdrResult<M>; peer: P }> {
    const t0 = now();
    try {
      return await super.requestWithPeer(method, params, inspect, options);
    } finally {
      spent.herdrUs += us(t0);
      spent.herdrCalls += 1;
    }
  }
}

function timed<A extends unknown[], R>(fn: (...a: A) => R): (...a: A) => R {
  return (...a: A): R => {
    const t0 = now();
    try {
      return fn(...a);
    } finally {
      spent.kernelUs += us(t0);
      spent.kernelCalls += 1;
    }
  };
}

const kernel: KernelPort = {
  ...systemKernel,
  processFacts: timed(systemKernel.processFacts),
  peerCredentials: timed(systemKernel.peerCredentials),
};

const sim = await startHerdrSim({});
try {
  const client = new TimedClient({ socketPath: sim.socketPath });
  const descriptor = await readSessionDescriptor(client, kernel, sim.sessionName);
  const bindTotal: number[] = [];
  const bindHerdr: number[] = [];
  const bindKernel: number[] = [];
  const herdrCalls: number[] = [];
  const verifyTotal: number[] = [];
  const factsUs: number[] = [];
  const psUs: number[] = [];
  const descUs: number[] = [];
  for (let i = 0; i < N; i++) {
    const launch = await launchPane(client, {
      argv: ["sleep", "600"],
      label: `bench ${i}`,
      target: { newWorkspace: { label: `bench ${i}` } },
    });
    Object.assign(spent, { herdrUs: 0, kernelUs: 0, herdrCalls: 0, kernelCalls: 0 });
    const t0 = now();
    const bound = await bindPane(client, kernel, {
      paneId: launch.paneId,
      launch: { argv: launch.argv, cwd: launch.cwd },
      sessionName: sim.sessionName,
      descriptor,
    });
    bindTotal.push(us(t0));
    bindHerdr.push(spent.herdrUs);
    bindKernel.push(spent.kernelUs);
    herdrCalls.push(spent.herdrCalls);
    const record = bound.record;
    if (record === null)
      throw new Error(`bind failed: ${JSON.stringify(bound.checks.filter((c) => !c.ok))}`);

    const t1 = now();
    const verified = await verifyPane(client, kernel, record);
    verifyTotal.push(us(t1));
    if (!verified.checks.every((c) => c.ok)) throw new Error("re-verification failed");

    const t2 = now();
    systemKernel.processFacts(record.process.pid);
    factsUs.push(us(t2));
    const t3 = now();
    await run("ps", ["-o", "pid=,ppid=,uid=,tty=,lstart=,comm=", "-p", String(record.process.pid)]);
    psUs.push(us(t3));
    const t4 = now();
    await readSessionDescriptor(client, kernel, sim.sessionName);
    descUs.push(us(t4));

    process.kill(record.process.pid, "SIGTERM"); // the pane closes with its process
  }

  const s = {
    bind: summarize(bindTotal),
    herdr: summarize(bindHerdr),
    kernel: summarize(bindKernel),
    verify: summarize(verifyTotal),
    facts: summarize(factsUs),
    ps: summarize(psUs),
    desc: summarize(descUs),
  };
  const w = [52, 12, 12];
  process.stdout.write(`\nHerdr pane proof against the simulator (n=${N}, µs)\n`);
  process.stdout.write(`${row(["phase", "median", "p99"], w)}\n`);
  const show = (name: string, x: { median: number; p99: number }): void => {
    process.stdout.write(`${row([name, x.median, x.p99], w)}\n`);
  };
  show("bind: layout.apply reply -> record", s.bind);
  show("  of which Herdr round trips (summed)", s.herdr);
  show("  of which kernel facts (summed)", s.kernel);
  show("re-verify before control (verifyPane)", s.verify);
  show("session descriptor (lstat+ping+peer creds)", s.desc);
  show("kernel processFacts, one pid", s.facts);
  show("ps -o ... -p <pid>, one pid (what a user would run)", s.ps);
  const herdrShare = s.herdr.median / (s.herdr.median + s.kernel.median);
  process.stdout.write(
    `\nshare of median bind time: Herdr round trips ${(herdrShare * 100).toFixed(1)}%, kernel facts ${((1 - herdrShare) * 100).toFixed(1)}% ` +
      `(median ${summarize(herdrCalls).median} Herdr requests per bind; Herdr requests partly run in parallel)\n`,
  );
  process.stdout.write(`ps / processFacts: ${(s.ps.median / s.facts.median).toFixed(0)}x slower\n`);

  figure("herdr.bind.median", s.bind.median, "us", { n: N });
  figure("herdr.bind.p99", s.bind.p99, "us", { n: N });
  figure("herdr.bind.herdr_share", herdrShare, "ratio", {
    herdr_median_us: s.herdr.median,
    kernel_median_us: s.kernel.median,
  });
  figure("herdr.verify.median", s.verify.median, "us", { n: N });
  figure("herdr.verify.p99", s.verify.p99, "us", { n: N });
  figure("herdr.descriptor.median", s.desc.median, "us", { n: N });
  figure("herdr.kernel_facts_vs_ps", s.ps.median / s.facts.median, "ratio", {
    facts_us: s.facts.median,
    ps_us: s.ps.median,
  });

  // One request's CPU in this process: Herdr's API takes one request per connection, so each is a
  // connect, a line out, a line back and a close. Ours (the client a hire uses, with the server's
  // trust gate: socket owner, its directory's ancestry, the peer's uid) beside a bare Node
  // connection doing the same bytes, and the client without the gate, in one run.
  const gated = trustedHerdrClient({ socketPath: sim.socketPath }, systemKernel);
  const plain = new HerdrClient({ socketPath: sim.socketPath });
  const bare = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const c = createConnection({ path: sim.socketPath, allowHalfOpen: true });
      let got = "";
      c.on("data", (d: Buffer) => {
        got += d.toString("utf8");
        if (got.includes("\n")) {
          c.destroy();
          resolve();
        }
      });
      c.on("error", reject);
      c.on("connect", () =>
        c.write(`${JSON.stringify({ id: "b", method: "ping", params: {} })}\n`),
      );
    });
  const cpuPer = async (fn: () => Promise<unknown>, n: number): Promise<number> => {
    for (let i = 0; i < 20; i++) await fn();
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await fn();
    const d = process.cpuUsage(c0);
    return (d.user + d.system) / n;
  };
  const rounds = { gated: [] as number[], plain: [] as number[], bare: [] as number[] };
  for (let r = 0; r < 5; r++) {
    rounds.gated.push(await cpuPer(() => gated.request("ping", {}), 100));
    rounds.plain.push(await cpuPer(() => plain.request("ping", {}), 100));
    rounds.bare.push(await cpuPer(bare, 100));
  }
  const req = {
    gated: summarize(rounds.gated).median,
    plain: summarize(rounds.plain).median,
    bare: summarize(rounds.bare).median,
  };
  process.stdout.write(
    `\none Herdr request (ping), our process's CPU, median of 5 rounds of 100 (µs)\n` +
      `  HerdrClient with the trust gate (as a hire)   ${req.gated.toFixed(0)}\n` +
      `  HerdrClient without the gate                  ${req.plain.toFixed(0)}\n` +
      `  a bare node:net connection, same bytes        ${req.bare.toFixed(0)}\n`,
  );
  figure("herdr.request_cpu_us", req.gated, "us", { plain: req.plain, bareNet: req.bare });
  figure("herdr.request_cpu.vs_bare_net", req.gated / req.bare, "x", {
    plain: req.plain / req.bare,
  });
} finally {
  await sim.stop();
}
