/**
 * T10, wrong target (docs/design/reliability-plan.md §6 T10): two seats whose names and sockets are prefixes
 * of each other (`bill`, `billing`; sockets `<dir>/bill`, `<dir>/billing`), each a simulated TUI
 * with the leader it spawned. Every iteration looks one seat up by its exact name and takes the
 * seat path (socket proof → admission → connect → register → leader proof); when admitted it
 * attaches to that TUI's session and delivers one prompt naming its target. Between lookup and
 * connect the names are swapped by rename: at rest (sockets alone, or sockets and locks), at the
 * exact moment between the socket proof and the connect, or by a swapper process flipping them in
 * a loop while the seat connects. Ground truth is each leader's frame log (GROK_SIM_LOG): 0
 * prompts and 0 frames of ours may reach the wrong leader, and every mismatch is refused by name.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { attachSession } from "../../lib/acp/acp-handshake.js";
import { recordClaim, scaled } from "../helpers/claims.js";
import { type Refused, seatPath } from "./fixtures/socket-path.js";
import {
  NAMES,
  type SeatName,
  startTargetWorld,
  type TargetWorld,
} from "./fixtures/target-seats.js";

const ITERATIONS = scaled(20, 1000);
const startedAt = Date.now();

type Mode = "straight" | "crossed-sockets" | "crossed-all" | "swap-at-connect" | "racing";
const MODES: readonly Mode[] = [
  "straight",
  "crossed-sockets",
  "crossed-all",
  "swap-at-connect",
  "racing",
];
/** What each deterministic mode must end in. */
const EXPECTED: Partial<Record<Mode, string>> = {
  straight: "ADMITTED",
  "crossed-sockets": "socket_proof/SOCKET_UNPROVEN/socket.lock_pid_listens",
  "crossed-all": "connect/LEADER_UNPROVEN/connect.peer_parent",
  "swap-at-connect": "connect/SOCKET_UNPROVEN/connect.peer_listener",
};

const skip = process.platform !== "linux" ? "T10 uses Linux kernel proofs (sock_diag)" : null;
if (skip !== null) console.log(`SKIP: ${skip}`);

let world: TargetWorld | null = null;
test.before(async () => {
  if (skip === null) world = await startTargetWorld();
});
test.after(async () => {
  await world?.close();
  world = null;
});

function w(): TargetWorld {
  if (world === null) throw new Error("no world");
  return world;
}

function reasonOf(r: Refused): string {
  return `${r.step}/${r.code}/${String(r.check)}`;
}

interface LogFacts {
  /** `register` frames a grok-seat client sent this leader. */
  registers: number;
  /** Accepted prompts by the target they name. */
  prompts: Map<string, number>;
}

function logFacts(path: string): LogFacts {
  const out: LogFacts = { registers: 0, prompts: new Map() };
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const raw: unknown = JSON.parse(line);
    if (typeof raw !== "object" || raw === null) continue;
    const l = Object.fromEntries(Object.entries(raw));
    const f = l.frame;
    if (
      l.event === "frame_in" &&
      typeof f === "object" &&
      f !== null &&
      "type" in f &&
      f.type === "register" &&
      "client_type" in f &&
      f.client_type === "grok-seat"
    ) {
      out.registers += 1;
    }
    if (l.event === "prompt" && typeof l.text === "string") {
      const m = /<<(\w+)>>/.exec(l.text);
      const target = m?.[1] ?? "(none)";
      out.prompts.set(target, (out.prompts.get(target) ?? 0) + 1);
    }
  }
  return out;
}

test("T10: prefix-named seats, sockets swapped between lookup and connect", async () => {
  if (skip !== null) return;
  const outcomes = new Map<string, number>();
  const byMode = new Map<Mode, { runs: number; asExpected: number }>();
  const delivered = new Map<SeatName, number>([
    ["bill", 0],
    ["billing", 0],
  ]);
  const pastConnect = new Map<SeatName, number>([
    ["bill", 0],
    ["billing", 0],
  ]);
  let flips = 0;
  const unexpected: string[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const mode = MODES[i % MODES.length] ?? "straight";
    const name: SeatName = NAMES[Math.floor(i / MODES.length) % 2] ?? "bill";
    w().setState("straight", "sockets+locks");
    if (mode === "crossed-sockets") w().setState("crossed", "sockets");
    if (mode === "crossed-all") w().setState("crossed", "sockets+locks");
    const swapper =
      mode === "racing"
        ? await w().startSwapper(
            Math.floor(i / MODES.length) % 2 === 0 ? "sockets" : "sockets+locks",
          )
        : null;
    const seat = w().lookup(name);
    if (seat === undefined) throw new Error(`no seat ${name}`);
    let r: Awaited<ReturnType<typeof seatPath>>;
    try {
      r = await seatPath({
        socketPath: seat.socketPath,
        uid: process.getuid?.() ?? 0,
        tui: seat.record,
        grokExecutable: w().grok,
        cli: w().cli,
        admissionDir: seat.admissionDir,
        timeoutMs: 10_000,
        ...(mode === "swap-at-connect"
          ? { afterSocketProof: async () => w().setState("crossed", "sockets") }
          : {}),
      });
    } finally {
      if (swapper !== null) flips += await swapper.stop();
      w().setState("straight", "sockets+locks");
    }
    const reason = r.outcome === "admitted" ? "ADMITTED" : reasonOf(r);
    outcomes.set(`${mode}: ${reason}`, (outcomes.get(`${mode}: ${reason}`) ?? 0) + 1);
    const m = byMode.get(mode) ?? { runs: 0, asExpected: 0 };
    m.runs += 1;
    const expected = EXPECTED[mode];
    if (
      expected === undefined
        ? reason === "ADMITTED" || r.outcome === "refused"
        : reason === expected
    )
      m.asExpected += 1;
    else unexpected.push(`#${i} ${mode} ${name}: ${reason}`);
    byMode.set(mode, m);
    if (r.outcome === "refused") {
      if (r.check === null) unexpected.push(`#${i} ${mode}: refused without a named check`);
      if (r.step === "register" || r.step === "leader_proof")
        pastConnect.set(name, (pastConnect.get(name) ?? 0) + 1);
      continue;
    }
    pastConnect.set(name, (pastConnect.get(name) ?? 0) + 1);
    try {
      const acp = await attachSession(r.conn, {
        sessionId: seat.tui.sessionId,
        cwd: seat.cwd,
        journal: r.controller.journal,
        leaderIdentity: `leader:${r.leaderPid}:${r.identity.value}`,
        paneIdentity: `tmux:${seat.tui.tmuxServer}`,
        requestTimeoutMs: 10_000,
      });
      try {
        const d = await acp.deliver(`<<${name}>> #${i} [[sim:chunks=1]]`);
        const done = await Promise.race([
          d.completed.then(() => true),
          new Promise<false>((res) => setTimeout(() => res(false), 15_000)),
        ]);
        if (!done) unexpected.push(`#${i}: the prompt did not complete`);
        delivered.set(name, (delivered.get(name) ?? 0) + 1);
      } finally {
        acp.close();
      }
    } finally {
      await r.close();
    }
  }

  let wrongPrompts = 0;
  let wrongFrames = 0;
  const logs: string[] = [];
  for (const name of NAMES) {
    const seat = w().seats.get(name);
    if (seat === undefined) continue;
    const f = logFacts(seat.logPath);
    const other = name === "bill" ? "billing" : "bill";
    const wrong = f.prompts.get(other) ?? 0;
    wrongPrompts += wrong + (f.prompts.get("(none)") ?? 0);
    wrongFrames += Math.max(0, f.registers - (pastConnect.get(name) ?? 0));
    logs.push(
      `${name}: ${f.registers} registers (expected ${pastConnect.get(name)}), prompts ${JSON.stringify(Object.fromEntries(f.prompts))}`,
    );
    assert.is(wrong, 0, `no prompt for ${other} reached ${name}'s leader`);
    assert.is(
      f.prompts.get(name) ?? 0,
      delivered.get(name),
      `${name}: each delivered prompt arrived once`,
    );
    assert.is(
      f.registers,
      pastConnect.get(name),
      `${name}: only connections proven to it registered`,
    );
  }
  console.log(`T10 logs: ${logs.join("; ")}`);
  console.log(`T10 outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  const admitted = [...delivered.values()].reduce((a, b) => a + b, 0);
  const refused = ITERATIONS - admitted;
  const held = unexpected.length === 0 && wrongPrompts === 0 && wrongFrames === 0;
  const refusedReasons = new Map<string, number>();
  for (const [k, v] of outcomes) {
    const reason = k.split(": ")[1] ?? k;
    if (reason !== "ADMITTED") refusedReasons.set(reason, (refusedReasons.get(reason) ?? 0) + v);
  }
  const racing = byMode.get("racing") ?? { runs: 0, asExpected: 0 };
  recordClaim(
    {
      id: "T10-wrong-target",
      title: "A prompt never reaches the wrong seat's leader",
      claim:
        `${ITERATIONS} connects to seats named bill and billing (sockets <dir>/bill and ` +
        `<dir>/billing), with the names swapped by rename at rest, at the exact moment between ` +
        `socket proof and connect, or by a racing swapper (${racing.runs} runs, ${flips} flips): ` +
        `${admitted} admitted, each prompt delivered once to the right leader; ${wrongPrompts} ` +
        `prompts and ${wrongFrames} frames delivered to the wrong leader; ${refused} refused, ` +
        `each with a named reason (${[...refusedReasons.keys()].map((k) => k.split("/").pop()).join(", ")}).`,
      counts: {
        iterations: ITERATIONS,
        admitted,
        refused,
        wrongPrompts,
        wrongFrames,
        flips,
        unexpected: unexpected.length,
        ...Object.fromEntries([...refusedReasons].map(([k, v]) => [`reason:${k}`, v])),
        ...Object.fromEntries([...byMode].map(([k, v]) => [`mode:${k}`, v.runs])),
      },
      held,
      method:
        "test/reliability/wrong-target.test.ts: two simulated TUIs (tmux) with their leaders on " +
        "sockets <dir>/bill and <dir>/billing, exact-name lookup, the seat path of " +
        "lib/seat/steps/ (test/reliability/fixtures/socket-path.ts), attachSession + " +
        "deliver when admitted; swaps by link+rename (root, at rest or at the hook after the " +
        "socket proof) and by a swapper child in a loop; each leader's GROK_SIM_LOG is the oracle.",
    },
    startedAt,
  );
  if (unexpected.length > 0 && w().simRebuilt()) {
    console.log("NOTE: the simulator binary was rebuilt during this run (a concurrent build:sim)");
  }
  assert.equal(unexpected, [], "every outcome as expected or refused by name");
  assert.ok(held);
});

test.run();
