/**
 * The simulator's trace log (GROK_SIM_LOG) as the tests read it while simulator processes may
 * still append: a line counts once its newline is written. Found by the full fault-shapes run,
 * whose oracle once read the log in the middle of a leader's append.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readSimLog } from "../../../helpers/grok-sim.js";

const logIn = (): string => join(mkdtempSync(join(tmpdir(), "sim-log-")), "log.jsonl");

test("an unfinished last line is not read yet; once its newline is written it is", () => {
  const path = logIn();
  writeFileSync(path, `${JSON.stringify({ event: "frame_in", n: 1 })}\n{"event":"frame_in","n"`);
  assert.equal(readSimLog(path), [{ event: "frame_in", n: 1 }]);
  appendFileSync(path, ":2}\n");
  assert.equal(readSimLog(path), [
    { event: "frame_in", n: 1 },
    { event: "frame_in", n: 2 },
  ]);
});

test("a broken line that is followed by others is corruption, and throws", () => {
  const path = logIn();
  writeFileSync(path, `{"event":"frame_in"\n${JSON.stringify({ event: "prompt" })}\n`);
  assert.throws(() => readSimLog(path), /JSON/);
});

test("no log yet is no events", () => {
  assert.equal(readSimLog(join(tmpdir(), "grok-sim-no-such-log.jsonl")), []);
});

test.run();
