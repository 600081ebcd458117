/**
 * Leader socket figures (issue 3 "Performance"):
 * 1. frame encode+decode vs JSON.stringify+JSON.parse of the same messages, 1 KiB and 1 MiB,
 *    side by side in one run (budget: at most 25% overhead);
 * 2. control round-trip latency (`get_leader_info`) over a real unix socket, median and p99,
 *    beside a bare ping/pong on the same connection.
 *
 * The round trips run against the grok simulator's leader (a separate `grok agent leader` process,
 * test/helpers/grok-sim.ts) and, as the floor of our own client and framing, against the in-test
 * fake leader in this process (test/helpers/fake-leader.ts).
 */

import { encodeFrame, FrameDecoder } from "../../lib/leader/frame-codec.js";
import { connectLeader } from "../../lib/leader/leader-connection.js";
import { parseServerMessage } from "../../lib/leader/messages.js";
import { figure, row, summarize, timeUs } from "./lib/stats.js";

const ASCII_WORDS =
  'The leader relays each line of the agent as one frame, with "quotes" and \\ too. ';
const UNICODE_WORDS = "Le leader relaie chaque ligne — «ünïcödé», 引用符 and 😀 emoji too. ";

/** A `session/update` agent message chunk as the leader relays it (§6), padded to about `bytes`. */
function acpUpdate(bytes: number, words: string): unknown {
  const base = {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: "0198b0c2-7d1e-7cc0-9a51-3f2e8d9b1c44",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" } },
      _meta: {
        totalTokens: 1234,
        eventId: "0198b0c2-57",
        agentTimestampMs: 1755633330123,
        promptId: "5f0c-uuid",
      },
    },
  };
  const room = bytes - Buffer.byteLength(JSON.stringify(base));
  let text = "";
  while (Buffer.byteLength(text) < room) text += words;
  while (Buffer.byteLength(text) > room) text = text.slice(0, -1);
  base.params.update.content.text = text;
  return base;
}

function perOp(n: number, fn: () => void): number {
  for (let i = 0; i < Math.min(200, n); i++) fn(); // warm up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t0) / 1000 / n;
}

let sink = 0;

function codecTable(): void {
  const widths = [30, 12, 12, 12, 12, 11];
  process.stdout.write(
    "\nframe codec vs JSON.stringify+JSON.parse and vs NDJSON over bytes (µs per message, best of 9)\n",
  );
  process.stdout.write(
    `${row(["message", "JSON only", "NDJSON", "frame codec", "+ schema", "vs JSON"], widths)}\n`,
  );
  for (const [label, bytes, n] of [
    ["1KiB", 1024, 20_000],
    ["1MiB", 1024 * 1024, 30],
  ] as const) {
    for (const [textName, words] of [
      ["ascii", ASCII_WORDS],
      ["unicode", UNICODE_WORDS],
    ] as const) {
      const update = acpUpdate(bytes, words);
      for (const [shape, message] of [
        ["object", update],
        ["acp", { type: "acp", payload: JSON.stringify(update) }],
      ] as const) {
        const decoder = new FrameDecoder();
        const json = (): void => {
          const v: unknown = JSON.parse(JSON.stringify(message));
          sink += v === null ? 1 : 0;
        };
        // What a line-delimited transport does (ACP/MCP stdio SDKs): bytes + newline, decode, parse.
        const ndjson = (): void => {
          const line = Buffer.from(`${JSON.stringify(message)}\n`, "utf8");
          const text = line.toString("utf8");
          const v: unknown = JSON.parse(text.slice(0, text.indexOf("\n")));
          sink += v === null ? 1 : 0;
        };
        const codec = (): void => {
          decoder.push(encodeFrame(message), (v) => {
            sink += v === null ? 1 : 0;
          });
        };
        const withSchema = (): void => {
          decoder.push(encodeFrame(message), (v) => {
            sink += parseServerMessage(v).type.length & 1;
          });
        };
        const best = { json: Infinity, ndjson: Infinity, codec: Infinity, schema: Infinity };
        for (let round = 0; round < 9; round++) {
          best.json = Math.min(best.json, perOp(n, json));
          best.ndjson = Math.min(best.ndjson, perOp(n, ndjson));
          best.codec = Math.min(best.codec, perOp(n, codec));
          if (shape === "acp") best.schema = Math.min(best.schema, perOp(n, withSchema));
        }
        const overhead = (best.codec / best.json - 1) * 100;
        const name = `${label} ${textName} ${shape}`;
        process.stdout.write(
          `${row([name, best.json, best.ndjson, best.codec, shape === "acp" ? best.schema : "-", `${overhead.toFixed(1)}%`], widths)}\n`,
        );
        const key = `leader.codec.${label}.${textName}.${shape}`;
        figure(`${key}.json_us`, best.json, "us");
        figure(`${key}.ndjson_us`, best.ndjson, "us");
        figure(`${key}.frame_us`, best.codec, "us");
        figure(`${key}.overhead_vs_json`, overhead, "%", { budget: 25 });
        figure(`${key}.ratio_vs_ndjson`, best.codec / best.ndjson, "x");
      }
    }
  }
}

interface Target {
  readonly key: string;
  readonly label: string;
  readonly socketPath: string;
  stop(): Promise<void>;
}

/** The grok simulator's leader (`grok agent leader`, a separate process): the real target. */
async function startSimLeader(): Promise<Target> {
  const sim = await import("../../test/helpers/grok-sim.js");
  const home = sim.grokHomeFixture();
  const leader = await sim.startGrokLeader({ grokHome: home.dir, cwd: home.cwd });
  return {
    key: "sim",
    label: "grok simulator leader (separate process)",
    socketPath: leader.paths.socketPath,
    stop: async () => {
      await leader.stop();
      home.remove();
    },
  };
}

/** The in-test fake leader in this very process: the floor of our own client + framing. */
async function startFake(): Promise<Target> {
  const { FakeLeader } = await import("../../test/helpers/fake-leader.js");
  const fake = await FakeLeader.start();
  return {
    key: "fake",
    label: "in-test fake leader (same process)",
    socketPath: fake.socketPath,
    stop: () => fake.stop(),
  };
}

async function roundTrips(): Promise<void> {
  const widths = [62, 12, 12];
  process.stdout.write("\nround trips over a unix socket (µs, n=2000 each, after 200 warm-up)\n");
  process.stdout.write(`${row(["request / leader", "median", "p99"], widths)}\n`);
  for (const start of [startSimLeader, startFake]) {
    const target = await start();
    try {
      const conn = await connectLeader(target.socketPath, { keepaliveIntervalMs: 0 });
      for (let i = 0; i < 200; i++) await conn.getLeaderInfo();
      const control = summarize(await timeUs(2000, () => conn.getLeaderInfo()));
      const ping = summarize(await timeUs(2000, () => conn.ping()));
      await conn.close();
      process.stdout.write(
        `${row([`get_leader_info / ${target.label}`, control.median, control.p99], widths)}\n`,
      );
      process.stdout.write(
        `${row([`ping-pong / ${target.label}`, ping.median, ping.p99], widths)}\n`,
      );
      const extra = { against: target.label };
      figure(`leader.control_rtt.${target.key}.median`, control.median, "us", extra);
      figure(`leader.control_rtt.${target.key}.p99`, control.p99, "us", extra);
      figure(`leader.ping_rtt.${target.key}.median`, ping.median, "us", extra);
      figure(`leader.ping_rtt.${target.key}.p99`, ping.p99, "us", extra);
    } finally {
      await target.stop();
    }
  }
}

codecTable();
await roundTrips();
if (sink === -1) process.stdout.write("unreachable\n");
