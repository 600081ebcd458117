/**
 * A controller process for the admission tests: admits itself to a seat, reports, then obeys
 * commands on stdin, one per line:
 *   fence <promptId>   fence a prompt, print `FENCED <id>` or `REFUSED <code>`
 *   spawn              start `sleep 300` as a child (to prove the lock fd is not inherited)
 *   release            release the seat and exit 0
 * Prints `ADMITTED <epoch> <pid>` or `REFUSED <code>` (exit 3) first.
 * Usage: node crash-controller.mjs <seatDir>
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { admitController, type Controller } from "../../lib/delivery/admission.js";
import { isErrorCode } from "../../lib/errors.js";

const seatDir = process.argv[2];
if (seatDir === undefined) {
  process.stdout.write("usage: crash-controller <seatDir>\n");
  process.exit(2);
}
let controller: Controller;
try {
  controller = admitController({ seatDir });
} catch (err) {
  if (!isErrorCode(err)) throw err;
  process.stdout.write(`REFUSED ${err.code}\n`);
  process.exit(3);
}
process.stdout.write(`ADMITTED ${controller.epoch} ${process.pid}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, arg] = line.trim().split(/\s+/);
  if (cmd === "fence" && arg !== undefined) {
    try {
      controller.journal.fence({
        promptId: arg,
        sessionId: "0198c0de-0000-4000-8000-000000000001",
        leader: "linux-pidfs:test:1",
        pane: "herdr:test",
        text: `brief ${arg}`,
      });
      process.stdout.write(`FENCED ${arg}\n`);
    } catch (err) {
      if (!isErrorCode(err)) throw err;
      process.stdout.write(`REFUSED ${err.code}\n`);
    }
  } else if (cmd === "spawn") {
    const child = spawn("sleep", ["300"], { stdio: "ignore", detached: false });
    process.stdout.write(`SPAWNED ${child.pid}\n`);
  } else if (cmd === "release") {
    controller.release();
    process.exit(0);
  }
}
controller.release();
