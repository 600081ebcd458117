/**
 * T7, leader frames on a real unix socket (docs/design/reliability-plan.md §6 T7 (d)): the partial-frame idle
 * timeout, the per-frame deadline against a slowloris trickle (the CVE-2018-12122 lesson), hostile
 * bytes after registration, and an oversized announcement, all through `connectLeader` against the
 * in-test leader (`test/helpers/fake-leader.ts`, which frames with its own code). Timeouts are
 * configured short; the assertions are on close reasons and codes, never on durations.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { encodeFrame, FRAME_HEADER_BYTES } from "../../lib/leader/frame-codec.js";
import {
  type CloseReason,
  connectLeader,
  type LeaderConnection,
  type LeaderConnectionOptions,
} from "../../lib/leader/leader-connection.js";
import { scaled } from "../helpers/claims.js";
import { DecoderRun } from "../helpers/decoder-claim.js";
import { FakeLeader, until } from "../helpers/fake-leader.js";
import { recordedSeed } from "./lib/fuzz.js";
import { FRAME_DECODE_CODES, serverMessageArb } from "./lib/leader-messages.js";
import { MiB } from "./lib/memory.js";
import { mutate, mutationArb } from "./lib/mutate.js";
import { hexPreview, n, Tally } from "./lib/outcomes.js";

const CODES = [...FRAME_DECODE_CODES, "PARTIAL_FRAME_TIMEOUT", "FRAME_DEADLINE_EXCEEDED"];
const decoderRun = new DecoderRun(test, "leader connection", CODES, {
  idleTimeouts: 0,
  deadlines: 0,
  trickledDelivered: 0,
  hostileRounds: 0,
  stayedOpen: 0,
  leaderShutdowns: 0,
  oversizeBytesRead: 0,
});
const { tally, memory, counts, test: guarded } = decoderRun;
/** The hostile-bytes rounds alone, for their own outcome summary. */
const hostile = new Tally("leader connection, hostile bytes", CODES);

let leader: FakeLeader;
const conns: LeaderConnection[] = [];

async function open(options: LeaderConnectionOptions): Promise<LeaderConnection> {
  const c = await connectLeader(leader.socketPath, { keepaliveIntervalMs: 0, ...options });
  conns.push(c);
  return c;
}

/** The fake's side of the newest connection, once it has registered. */
async function peer(): Promise<NonNullable<FakeLeader["clients"][number]>> {
  const index = leader.clients.length - 1;
  await until(() => leader.clients[index]?.registered === true, 5_000, "registration");
  const client = leader.clients[index];
  if (!client) throw new Error("no fake client");
  return client;
}

function closedWith(reason: CloseReason): string {
  return reason.kind === "protocol_error" ? reason.error.code : reason.kind;
}

test.before(async () => {
  leader = await FakeLeader.start();
});

test.after(async () => {
  for (const c of conns.splice(0)) await c.close();
  await leader.stop();
});

guarded(
  "partial frame idle: any prefix of a frame, then silence -> PARTIAL_FRAME_TIMEOUT",
  async () => {
    const cases = fc.sample(
      fc.tuple(serverMessageArb, fc.nat(), fc.integer({ min: 20, max: 80 })),
      { numRuns: scaled(8, 100), seed: recordedSeed() },
    );
    for (const [message, cut, idleMs] of cases) {
      const frame = encodeFrame(message);
      const prefix = frame.subarray(0, 1 + (cut % (frame.length - 1)));
      const c = await open({ partialFrameIdleMs: idleMs, frameDeadlineMs: 60_000 });
      const client = await peer();
      client.sendRaw(prefix);
      const reason = await c.closed;
      assert.is(closedWith(reason), "PARTIAL_FRAME_TIMEOUT", hexPreview(prefix));
      if (reason.kind === "protocol_error") {
        assert.is(reason.error.context.pendingBytes, prefix.length, "what was held is what came");
        tally.thrown(reason.error);
      }
      // We said goodbye as client.rs does: a `disconnect` frame, then EOF.
      await until(() => client.closed, 5_000, "socket closed");
      assert.ok(
        client.received.some((m) => m.type === "disconnect"),
        "disconnect sent",
      );
      counts.idleTimeouts++;
      memory.sample();
    }
  },
);

guarded(
  "slowloris: a frame trickled faster than the idle timeout still hits the deadline",
  async () => {
    const cases = fc.sample(
      fc.tuple(fc.integer({ min: 60, max: 200 }), fc.integer({ min: 5, max: 25 })),
      { numRuns: scaled(4, 40), seed: recordedSeed() },
    );
    for (const [deadlineMs, everyMs] of cases) {
      // Idle is far above the gap between bytes; only the per-frame deadline can end this.
      const c = await open({ partialFrameIdleMs: 10 * everyMs + 200, frameDeadlineMs: deadlineMs });
      const client = await peer();
      const frame = encodeFrame({ type: "acp", payload: "x".repeat(4096) });
      let i = 0;
      const trickle = setInterval(() => {
        if (i < frame.length) client.sendRaw(frame.subarray(i, ++i));
      }, everyMs);
      const reason = await c.closed;
      clearInterval(trickle);
      assert.is(closedWith(reason), "FRAME_DEADLINE_EXCEEDED", `${deadlineMs} ms / ${everyMs} ms`);
      assert.ok(i < frame.length, "cut off before the frame completed");
      if (reason.kind === "protocol_error") tally.thrown(reason.error);
      counts.deadlines++;
      memory.sample();
    }
  },
);

guarded("control: a frame split into slow chunks within both limits is delivered", async () => {
  const cases = fc.sample(
    fc.tuple(fc.string({ unit: "binary", maxLength: 200 }), fc.integer({ min: 2, max: 8 })),
    { numRuns: scaled(4, 40), seed: recordedSeed() },
  );
  for (const [payload, parts] of cases) {
    const c = await open({ partialFrameIdleMs: 2_000, frameDeadlineMs: 10_000 });
    const client = await peer();
    const got: string[] = [];
    c.onAcp((p) => got.push(p));
    const frame = encodeFrame({ type: "acp", payload });
    const step = Math.ceil(frame.length / parts);
    for (let off = 0; off < frame.length; off += step) {
      client.sendRaw(frame.subarray(off, off + step));
      await new Promise((r) => setTimeout(r, 5));
    }
    await until(() => got.length === 1, 5_000, "payload delivered");
    assert.equal(got, [payload]);
    assert.is(c.state, "open");
    tally.accept();
    counts.trickledDelivered++;
    await c.close();
  }
});

guarded(
  "hostile bytes after registration: closed with a typed reason, or still healthy",
  async () => {
    const garbage = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 256 }),
      fc
        .tuple(
          fc.array(serverMessageArb, { minLength: 1, maxLength: 3 }),
          fc.array(mutationArb, { minLength: 1, maxLength: 2 }),
        )
        .map(
          ([ms, muts]) =>
            new Uint8Array(mutate(Buffer.concat(ms.map((m) => encodeFrame(m))), muts).bytes),
        ),
    );
    const cases = fc.sample(garbage, { numRuns: scaled(20, 500), seed: recordedSeed() });
    for (const bytes of cases) {
      const c = await open({ partialFrameIdleMs: 30, frameDeadlineMs: 200 });
      const client = await peer();
      client.sendRaw(bytes);
      // A ping behind the garbage: its pong arrives only if the garbage was whole, valid frames.
      const pinged = c.ping().then(
        () => "pong",
        () => "no pong",
      );
      const outcome = await Promise.race([pinged, c.closed.then(closedWith)]);
      if (outcome === "pong") {
        assert.is(c.state, "open");
        hostile.accept();
        counts.stayedOpen++;
        await c.close();
      } else {
        const reason = await c.closed;
        if (reason.kind === "protocol_error") {
          hostile.thrown(reason.error, () => hexPreview(bytes));
        } else if (reason.kind === "leader_shutdown") {
          hostile.accept(); // the garbage held a valid `shutdown` frame
          counts.leaderShutdowns++;
        } else {
          hostile.reject(`close:${reason.kind}`, () => hexPreview(bytes));
        }
      }
      counts.hostileRounds++;
      memory.sample();
    }
  },
);

guarded(
  "oversized announcement: closed on the chunk carrying the header, no body buffered",
  async () => {
    const cap = 4096;
    const c = await open({ maxFrameBytes: cap, partialFrameIdleMs: 5_000 });
    const client = await peer();
    const head = Buffer.alloc(FRAME_HEADER_BYTES);
    head.writeUInt32BE(cap + 1, 0);
    client.sendRaw(Buffer.concat([head, Buffer.alloc(MiB, 0x20)]));
    const reason = await c.closed;
    assert.is(closedWith(reason), "FRAME_TOO_LARGE");
    if (reason.kind === "protocol_error") tally.thrown(reason.error);
    counts.oversizeBytesRead = c.socket.bytesRead;
    // One socket read (64 KiB) at most beyond what registration took: the rest was never read.
    assert.ok(c.socket.bytesRead < 128 * 1024, `read ${c.socket.bytesRead} bytes`);
    memory.sample();
  },
);

decoderRun.claim("T7-leader-stalls", () => {
  const violations = tally.violations + hostile.violations;
  return {
    title: "Leader connection against stalled, trickled and hostile frames",
    sentence: (m) =>
      `On a real unix socket: ${n(counts.idleTimeouts)} stalled partial frames (any prefix) each closed with ` +
      `PARTIAL_FRAME_TIMEOUT and a disconnect; ${n(counts.deadlines)} slowloris trickles (one byte per 5-25 ms, ` +
      `under the idle timeout) each closed with FRAME_DEADLINE_EXCEEDED before the frame completed; ` +
      `${n(counts.trickledDelivered)} slow but timely frames delivered intact; ${n(counts.hostileRounds)} hostile byte ` +
      `streams after registration: ${n(counts.stayedOpen)} left the connection healthy (whole valid frames), ${n(counts.leaderShutdowns)} ` +
      `carried a valid shutdown, the rest closed with ${hostile.rejectionSummary()}; ${n(violations)} untyped throws in all; an oversized announcement closed the connection ` +
      `after ${n(counts.oversizeBytesRead)} bytes read of 1 MiB sent; memory ${m.describe}.`,
    counts: () => ({
      ...counts,
      untypedThrows: tally.untyped + hostile.untyped,
      undocumentedCodes: tally.undocumented + hostile.undocumented,
      ...Object.fromEntries(hostile.rejections().map(([code, k]) => [`hostile_${code}`, k])),
    }),
    method:
      "connectLeader over a unix socket to the in-test leader (test/helpers/fake-leader.ts) with short " +
      "partialFrameIdleMs / frameDeadlineMs; fast-check samples with recorded seeds " +
      "(test/reliability/decoders-leader-socket.test.ts).",
    outcome: { violations, problems: () => `${tally.problems()}\n${hostile.problems()}` },
  };
});

test.run();
