import { test } from "uvu";
import * as assert from "uvu/assert";
import { allPassed, expectEqual, fail, firstFailure, jsonEqual, pass } from "../lib/check.js";

test("pass and fail carry the expected shape", () => {
  assert.equal(pass("a", 1, 1), { check: "a", ok: true, expected: 1, received: 1, reason: null });
  assert.equal(fail("b", 1, 2, "differs"), {
    check: "b",
    ok: false,
    expected: 1,
    received: 2,
    reason: "differs",
  });
});

test("expectEqual compares JSON deeply", () => {
  assert.ok(expectEqual("x", { a: [1, { b: null }] }, { a: [1, { b: null }] }, "r").ok);
  const f = expectEqual("x", { a: [1] }, { a: [2] }, "changed");
  assert.is(f.ok, false);
  assert.is(f.reason, "changed");
});

test("jsonEqual distinguishes arrays, objects and missing keys", () => {
  assert.is(jsonEqual([], {}), false);
  assert.is(jsonEqual({ a: null }, { b: null }), false);
  assert.is(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 }), true);
});

test("allPassed and firstFailure", () => {
  const checks = [pass("a", 1, 1), fail("b", 1, 2, "r"), fail("c", 1, 3, "s")];
  assert.is(allPassed(checks), false);
  assert.is(firstFailure(checks)?.check, "b");
  assert.is(allPassed([pass("a", 1, 1)]), true);
});

test.run();
