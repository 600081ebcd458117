/**
 * The crash-test workload process (T1, T3): admit a controller for a seat, connect to the counting
 * leader, and run (or resume) the crash plan (crash-plan.ts). The same script is the first run
 * (killed or failed at some syscall) and the fresh process that recovers and finishes.
 *
 * stdout, one line each, written synchronously (a pipe): `EPOCH <n>`, `ACK <promptId> <state>`
 * when dispatch returned to its caller, `REFUSED <step> <code> sent=<bool>` for a typed refusal
 * (sent: whether the send callback had been entered), `DONE`.
 * Usage: node crash-workload.mjs <seatDir> <leaderSocket> <prompts> [compactAboveBytes]
 * With compactAboveBytes the plan has no explicit compactions: the journal compacts by itself.
 */
import { connect as netConnect } from "node:net";
import { dirname } from "node:path";
import * as v from "valibot";
import { admitController } from "../../lib/delivery/admission.js";
import { isErrorCode } from "../../lib/errors.js";
import { crashPlan, driveWorkload, type LeaderEvent, type LeaderLink } from "./crash-plan.js";

const [seatArg, socketArg, countArg, compactArg] = process.argv.slice(2);
if (seatArg === undefined || socketArg === undefined || countArg === undefined) {
  process.stdout.write("usage: crash-workload <seatDir> <leaderSocket> <prompts>\n");
  process.exit(2);
}
const seatDir: string = seatArg;
const leaderSocket: string = socketArg;
const count = Number(countArg);
const compactAboveBytes = compactArg === undefined ? undefined : Number(compactArg);
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const Event = v.variant("type", [
  v.object({
    type: v.literal("consumed"),
    promptId: v.string(),
    sessionId: v.string(),
    kind: v.picklist(["queue-entry", "running-prompt"]),
  }),
  v.object({
    type: v.literal("result"),
    promptId: v.string(),
    sessionId: v.string(),
    channel: v.picklist(["rpc-response", "prompt-complete", "turn-completed"]),
    stopReason: v.string(),
  }),
  v.object({ type: v.literal("replay-done") }),
]);

/** One connection to the counting leader as a LeaderLink (newline JSON both ways). */
function connect(): Promise<LeaderLink> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(leaderSocket);
    const queue: LeaderEvent[] = [];
    const waiters: ((ev: LeaderEvent) => void)[] = [];
    let closed = false;
    let buf = "";
    const push = (ev: LeaderEvent): void => {
      const w = waiters.shift();
      if (w !== undefined) w(ev);
      else queue.push(ev);
    };
    socket.on("data", (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const parsed = v.safeParse(Event, JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
        if (parsed.success) push(parsed.output);
      }
    });
    socket.on("close", () => {
      closed = true;
      for (const w of waiters.splice(0)) w({ type: "closed" });
    });
    socket.on("error", (err) => {
      if (!closed && socket.connecting) reject(err);
    });
    const write = (msg: object): Promise<void> =>
      new Promise((ok, fail) => {
        if (closed) return fail(Object.assign(new Error("connection closed"), { code: "EPIPE" }));
        socket.write(`${JSON.stringify(msg)}\n`, (err) => (err ? fail(err) : ok()));
      });
    socket.on("connect", () => {
      void write({ type: "hello", scenario: dirname(seatDir) });
      resolve({
        send: (frame) => write(frame),
        sendCancel: (promptId) => write({ type: "cancel", promptId }).catch(() => {}),
        next: () =>
          new Promise((ok) => {
            const ev = queue.shift();
            if (ev !== undefined) ok(ev);
            else if (closed) ok({ type: "closed" });
            else waiters.push(ok);
          }),
        close: () => socket.end(),
      });
    });
  });
}

let controller: ReturnType<typeof admitController>;
try {
  controller = admitController(
    compactAboveBytes === undefined ? { seatDir } : { seatDir, compactAboveBytes },
  );
} catch (err) {
  if (!isErrorCode(err)) throw err;
  out(`REFUSED admit ${err.code} sent=false`);
  process.exit(3);
}
out(`EPOCH ${controller.epoch}`);
let sending: string | null = null;
const journal = controller.journal;
await driveWorkload(
  journal,
  compactAboveBytes === undefined ? crashPlan(count) : crashPlan(count, Number.POSITIVE_INFINITY),
  async () => {
    const link = await connect();
    return {
      ...link,
      send: (frame) => {
        sending = frame.promptId;
        return link.send(frame);
      },
    };
  },
  {
    acked: (id, state) => out(`ACK ${id} ${state}`),
    refused: (id, code) => out(`REFUSED ${id} ${code} sent=${sending === id}`),
  },
);
controller.release();
out("DONE");
