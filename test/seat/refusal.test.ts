import { test } from "uvu";
import * as assert from "uvu/assert";
import { fail } from "../../lib/check.js";
import { GrokSeatError } from "../../lib/errors.js";
import { refuseOnCheck, refuseOnThrow, SeatRefusal } from "../../lib/seat/refusal.js";
import { rejectionOf } from "../helpers/error-code.js";

const refusalOf = (p: Promise<unknown>): Promise<SeatRefusal> => rejectionOf(p, SeatRefusal);

const spec = {
  step: "runtime_dir",
  code: "RUNTIME_DIR_UNSAFE",
  check: "runtime_dir.create",
  reason: (f: { code: string; message: string }) => `cannot: ${f.code} ${f.message}`,
} as const;

test("refuseOnThrow: a typed or system failure becomes the named refusal, with its cause", async () => {
  const typed = new GrokSeatError("X_FAILED", "typed", { details: { a: 1 } });
  const r = await refusalOf(refuseOnThrow(spec, () => Promise.reject(typed)));
  assert.is(r.step, "runtime_dir");
  assert.is(r.code, "RUNTIME_DIR_UNSAFE");
  assert.is(r.check, "runtime_dir.create");
  assert.is(r.reason, "cannot: X_FAILED typed");
  assert.is(r.cause, typed);
  assert.is(r.context.a, undefined, "a fixed code keeps only its own details");

  const enospc = Object.assign(new Error("no space"), { code: "ENOSPC" });
  const s = await refusalOf(
    refuseOnThrow(spec, () => {
      throw enospc;
    }),
  );
  assert.is(s.reason, "cannot: ENOSPC no space");
});

test("refuseOnThrow without a code keeps the failure's own code and details", async () => {
  const err = new GrokSeatError("MODEL_UNKNOWN", "not offered", { details: { available: ["a"] } });
  const r = await refusalOf(
    refuseOnThrow({ step: "model", check: "model.selection", reason: (f) => f.message }, () => {
      throw err;
    }),
  );
  assert.is(r.code, "MODEL_UNKNOWN");
  assert.equal(r.context.available, ["a"]);
  assert.is(r.ownerNextStep.includes("model"), true);
});

test("refuseOnThrow passes values through, and an untyped throw (a bug) as it is", async () => {
  assert.is(await refuseOnThrow(spec, () => 7), 7);
  const bug = new TypeError("x is undefined");
  try {
    await refuseOnThrow(spec, () => {
      throw bug;
    });
    assert.unreachable();
  } catch (e) {
    assert.is(e, bug);
  }
  const inner = new SeatRefusal({ step: "launch", code: "PANE_LAUNCH_FAILED", reason: "r" });
  assert.is(await refusalOf(refuseOnThrow(spec, () => Promise.reject(inner))), inner);
});

test("refuseOnCheck names the failed check with what was expected and received", () => {
  const r = refuseOnCheck("connect", "SOCKET_UNPROVEN", fail("connect.peer_uid", 0, 65534, "uid"));
  assert.is(r.check, "connect.peer_uid");
  assert.is(r.reason, "uid");
  assert.is(r.context.expected, 0);
  assert.is(r.context.received, 65534);
});

test.run();
