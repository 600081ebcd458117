import { test } from "uvu";
import * as assert from "uvu/assert";
import { failureOf, GrokSeatError, isErrorCode, UsageError, WireError } from "../lib/errors.js";

test("failureOf: a typed error's code, a system error's errno code, null for anything else", () => {
  assert.equal(failureOf(new GrokSeatError("X_CODE", "typed")), {
    code: "X_CODE",
    message: "typed",
  });
  assert.equal(failureOf(new WireError("herdr", "pane_not_found", "gone")), {
    code: "pane_not_found",
    message: "gone",
  });
  const enoent = Object.assign(new Error("no such file"), { code: "ENOENT" });
  assert.equal(failureOf(enoent), { code: "ENOENT", message: "no such file" });
  assert.is(failureOf(new Error("a bug")), null);
  assert.is(failureOf(Object.assign(new Error("numeric"), { code: 42 })), null);
  assert.is(failureOf({ code: "ENOENT", message: "not an Error" }), null);
  assert.is(failureOf("a string"), null);
});

test("isErrorCode narrows to the codes named, any code without names", () => {
  const e = new UsageError("INVALID_ARGUMENT", "bad");
  assert.ok(isErrorCode(e, "INVALID_ARGUMENT"));
  assert.not.ok(isErrorCode(e, "OTHER"));
  assert.ok(isErrorCode(e));
  assert.not.ok(isErrorCode(new Error("plain")));
});

test.run();
