/**
 * Process checks built from kernel facts (pure functions; docs/design/style.md habit 4). The CLI's `process`
 * subject uses the read checks; later proofs (leader, pane) compare facts against what they
 * recorded with `checkProcess`. Check names are stable: `<prefix>.exists`, `.alive`, `.readable`,
 * `.identity_stable`, `.identity`, `.executable`, `.cwd`, `.uid`, `.tty` (prefix "process").
 */
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
// From its own file, not the kernel index, which loads every kernel call (issue 19).
import { identityJson } from "../kernel/identity.js";
import type { ProcessFacts, ProcessIdentity, ProcessRead } from "../kernel/index.js";

/**
 * Did the process exist, was it running, could we read it? A pid that does not exist fails
 * `.exists`; a zombie fails `.alive`; ACCESS_DENIED fails `.readable` (denied is not absent).
 */
export function checkProcessRead(
  pid: number,
  read: ProcessRead,
  prefix = "process",
): CheckResult[] {
  if (read.ok) {
    return [
      pass(`${prefix}.exists`, pid, read.facts.pid),
      pass(`${prefix}.alive`, true, true),
      pass(`${prefix}.readable`, true, true),
    ];
  }
  const { code, message } = read.error;
  if (code === "NO_SUCH_PROCESS") {
    return [fail(`${prefix}.exists`, pid, null, `pid ${pid} does not exist (${message})`)];
  }
  if (code === "ZOMBIE") {
    return [
      pass(`${prefix}.exists`, pid, pid),
      fail(`${prefix}.alive`, true, false, `pid ${pid} has exited and is not yet reaped (zombie)`),
    ];
  }
  return [
    pass(`${prefix}.exists`, pid, pid),
    fail(
      `${prefix}.readable`,
      true,
      code,
      `the kernel facts of pid ${pid} are not readable: ${message}`,
    ),
  ];
}

/** Two reads of the same pid must report the same identity (no pid reuse in between). */
export function checkIdentityStable(
  first: ProcessIdentity,
  second: ProcessRead,
  prefix = "process",
): CheckResult {
  const name = `${prefix}.identity_stable`;
  if (!second.ok) {
    return fail(name, identityJson(first), null, `the second read failed: ${second.error.message}`);
  }
  return expectEqual(
    name,
    identityJson(first),
    identityJson(second.facts.identity),
    "the identity changed between two reads: the pid now names another process",
  );
}

/** What a proof recorded about a process; every given field is compared. */
export interface ProcessExpectation {
  readonly identity?: ProcessIdentity;
  readonly executable?: string;
  readonly cwd?: string;
  /** Compared with the real uid and the effective uid. */
  readonly uid?: number;
  /** A device path, or null for "no controlling terminal". */
  readonly tty?: string | null;
}

export function checkIdentity(
  facts: ProcessFacts,
  expected: ProcessIdentity,
  prefix = "process",
): CheckResult {
  return expectEqual(
    `${prefix}.identity`,
    identityJson(expected),
    identityJson(facts.identity),
    "another process has this pid now (identity differs)",
  );
}

export function checkExecutable(
  facts: ProcessFacts,
  expected: string,
  prefix = "process",
): CheckResult {
  const name = `${prefix}.executable`;
  if (facts.executableDeleted) {
    return fail(
      name,
      expected,
      facts.executable,
      "the executable was deleted or replaced after exec",
    );
  }
  return expectEqual(name, expected, facts.executable, "the process runs another executable");
}

export function checkCwd(facts: ProcessFacts, expected: string, prefix = "process"): CheckResult {
  return expectEqual(`${prefix}.cwd`, expected, facts.cwd, "the process runs in another directory");
}

export function checkUid(facts: ProcessFacts, expected: number, prefix = "process"): CheckResult {
  const name = `${prefix}.uid`;
  if (facts.uid !== expected)
    return fail(name, expected, facts.uid, "the process runs as another user");
  if (facts.euid !== expected) {
    return fail(name, expected, facts.euid, "the process's effective uid differs (setuid?)");
  }
  return pass(name, expected, facts.uid);
}

export function checkTty(
  facts: ProcessFacts,
  expected: string | null,
  prefix = "process",
): CheckResult {
  return expectEqual(
    `${prefix}.tty`,
    expected,
    facts.tty,
    expected === null
      ? "the process has a controlling terminal"
      : "the process has another terminal",
  );
}

/** Every check the expectation asks for, in a fixed order. */
export function checkProcess(
  facts: ProcessFacts,
  expected: ProcessExpectation,
  prefix = "process",
): CheckResult[] {
  const out: CheckResult[] = [];
  if (expected.identity !== undefined) out.push(checkIdentity(facts, expected.identity, prefix));
  if (expected.executable !== undefined)
    out.push(checkExecutable(facts, expected.executable, prefix));
  if (expected.cwd !== undefined) out.push(checkCwd(facts, expected.cwd, prefix));
  if (expected.uid !== undefined) out.push(checkUid(facts, expected.uid, prefix));
  if (expected.tty !== undefined) out.push(checkTty(facts, expected.tty, prefix));
  return out;
}
