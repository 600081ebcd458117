/**
 * lib/kernel/port.ts: the port's process read as a value (a typed kernel failure is the read's
 * error, anything else is thrown; `answers` narrows which failures count), and the identity
 * helpers every layer shares. A fake port stands in for the kernel; `systemKernel` reads the
 * real one.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { UsageError } from "../../lib/errors.js";
import {
  identityJson,
  KernelError,
  type KernelPort,
  type ProcessFacts,
  readProcess,
  sameIdentity,
  systemKernel,
} from "../../lib/kernel/index.js";

function portThrowing(err: unknown): KernelPort {
  return {
    ...systemKernel,
    processFacts: () => {
      throw err;
    },
  };
}

test("readProcess: the real kernel's facts of this process", () => {
  const r = readProcess(systemKernel, process.pid);
  assert.ok(r.ok);
  if (r.ok) assert.is(r.facts.pid, process.pid);
});

test("readProcess: a typed failure is the read's error, a bug is thrown", () => {
  const gone = new KernelError("NO_SUCH_PROCESS", { pid: 7, syscall: "open(stat)", errno: 3 });
  assert.equal(readProcess(portThrowing(gone), 7), {
    ok: false,
    error: { code: "NO_SUCH_PROCESS", message: gone.message },
  });
  const bug = new TypeError("undefined is not a function");
  assert.throws(
    () => readProcess(portThrowing(bug), 7),
    (e: unknown) => e === bug,
  );
});

test("readProcess with answers: only those codes are a read's error, others are thrown as they were", () => {
  const answers = new Set(["NO_SUCH_PROCESS", "ZOMBIE", "ACCESS_DENIED"]);
  const zombie = new KernelError("ZOMBIE", { pid: 9, syscall: "stat", errno: 0 });
  assert.is(readProcess(portThrowing(zombie), 9, answers).ok, false);
  const broken = new KernelError("SYSCALL_FAILED", { pid: 9, syscall: "read", errno: 5 });
  assert.throws(
    () => readProcess(portThrowing(broken), 9, answers),
    (e: unknown) => e === broken,
  );
  const usage = new UsageError("INVALID_ARGUMENT", "pid 0");
  assert.throws(
    () => readProcess(portThrowing(usage), 0, answers),
    (e: unknown) => e === usage,
  );
});

test("identityJson and sameIdentity", () => {
  const facts: ProcessFacts = systemKernel.processFacts(process.pid);
  const id = facts.identity;
  assert.equal(identityJson(id), { kind: id.kind, value: id.value });
  assert.is(identityJson(null), null);
  assert.ok(sameIdentity(id, { kind: id.kind, value: id.value }));
  assert.not.ok(sameIdentity(id, { kind: id.kind, value: `${id.value}x` }));
  assert.not.ok(sameIdentity(id, null));
  assert.not.ok(sameIdentity(null, null), "two unknown identities are not the same process");
});

test.run();
