import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { GrokSeatError } from "../../lib/errors.js";
import { openProcessHandle, signalNumber } from "../../lib/kernel/handle.js";
import { processFacts } from "../../lib/kernel/process.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import {
  asNobody,
  cleanup,
  lineFrom,
  linuxOnly,
  probeAsNobody,
  procStat,
  repoRoot,
  signalToExit,
  spawnChild,
  spawnZombie,
  tempDir,
  waitFor,
} from "../helpers/kernel-children.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the process handle tests");

const codeOf = (fn: () => unknown): string => codeOfError(fn, "OK");

linuxTest(
  "signal reaches the process; exited resolves on exit; signalling afterwards is NO_SUCH_PROCESS",
  async () => {
    const child = spawnChild("sh", [
      "-c",
      'trap "echo GOT-USR1" USR1; echo READY; while :; do sleep 0.05; done',
    ]);
    await lineFrom(child, /(READY)/);
    const h = openProcessHandle(child.pid ?? 0);
    assert.equal(h.identity, processFacts(child.pid ?? 0).identity);
    assert.is(h.isAlive(), true);
    const got = lineFrom(child, /(GOT-USR1)/);
    h.signal("SIGUSR1");
    await got;
    await signalToExit(h, "SIGKILL");
    assert.is(
      codeOf(() => h.signal(0)),
      "NO_SUCH_PROCESS",
    );
    h.close();
    h.close();
    assert.is(
      codeOf(() => h.signal(0)),
      "HANDLE_CLOSED",
    );
  },
);

linuxTest(
  "exited resolves for a process that exits on its own, and for one that is not our child",
  async () => {
    const own = spawnChild("sleep", ["0.2"]);
    const h1 = openProcessHandle(own.pid ?? 0);
    await h1.exited;
    assert.is(h1.isAlive(), false);
    h1.close();

    // sh forks a grandchild and tells us its pid; the grandchild is not ours to wait for.
    const parent = spawnChild("sh", ["-c", "sleep 0.3 & echo G=$!; wait"]);
    const gpid = Number(await lineFrom(parent, /G=(\d+)/));
    const h2 = openProcessHandle(gpid);
    assert.is(h2.isAlive(), true);
    await h2.exited;
    assert.is(h2.isAlive(), false);
    h2.close();
  },
);

linuxTest(
  "a zombie counts as exited: isAlive false, exited resolves at once, signal refused",
  async () => {
    const { zpid } = await spawnZombie();
    const h = openProcessHandle(zpid);
    assert.is(h.isAlive(), false);
    await h.exited;
    assert.is(
      codeOf(() => h.signal("SIGTERM")),
      "NO_SUCH_PROCESS",
    );
    h.close();
  },
);

linuxTest("an expected identity must match: another identity is refused as NO_SUCH_PROCESS", () => {
  const a = spawnChild("sleep", ["30"]);
  const b = spawnChild("sleep", ["30"]);
  const idA = processFacts(a.pid ?? 0).identity;
  const ok = openProcessHandle(a.pid ?? 0, idA);
  assert.equal(ok.identity, idA);
  ok.close();
  assert.is(
    codeOf(() => openProcessHandle(b.pid ?? 0, idA)),
    "NO_SUCH_PROCESS",
  );
  assert.is(
    codeOf(() => openProcessHandle(a.pid ?? 0, { kind: "linux-boot-ticks", value: idA.value })),
    "NO_SUCH_PROCESS",
  );
});

linuxTest(
  "close() before exit rejects exited with HANDLE_CLOSED and stops keeping the loop alive",
  async () => {
    const child = spawnChild("sleep", ["30"]);
    const h = openProcessHandle(child.pid ?? 0);
    const waiting = h.exited;
    h.close();
    const code = await waiting.then(
      () => "RESOLVED",
      (err: unknown) => (err instanceof GrokSeatError ? err.code : String(err)),
    );
    assert.is(code, "HANDLE_CLOSED");
    assert.is(
      await h.exited.then(
        () => "RESOLVED",
        (e: unknown) => (e instanceof GrokSeatError ? e.code : "?"),
      ),
      "HANDLE_CLOSED",
    );
  },
);

linuxTest(
  "an unprivileged caller may not signal root's process: ACCESS_DENIED, not gone",
  async () => {
    const child = spawnChild("sleep", ["30"]);
    await waitFor("exec", () => procStat(child.pid ?? 0) !== null);
    const seen = v.parse(
      v.object({ ok: v.boolean(), code: v.optional(v.string()) }),
      probeAsNobody(["signal", String(child.pid)]),
    );
    assert.is(seen.code, "ACCESS_DENIED");
    const own = spawnChild(asNobody[0] ?? "setpriv", [...asNobody.slice(1), "sleep", "30"]);
    await waitFor("exec", () => procStat(own.pid ?? 0) !== null);
    const mine = v.parse(
      v.object({ ok: v.boolean(), value: v.optional(v.string()) }),
      probeAsNobody(["signal", String(own.pid)]),
    );
    assert.is(mine.value, "sent");
  },
);

linuxTest("bad arguments are INVALID_ARGUMENT", () => {
  for (const pid of [0, -1, 1.5, Number.NaN, 2 ** 40]) {
    assert.is(
      codeOf(() => openProcessHandle(pid)),
      "INVALID_ARGUMENT",
      String(pid),
    );
  }
  assert.is(
    codeOf(() => signalNumber("SIGNOPE" as NodeJS.Signals)),
    "INVALID_ARGUMENT",
  );
  assert.is(
    codeOf(() => signalNumber(999)),
    "INVALID_ARGUMENT",
  );
  assert.is(
    codeOf(() => signalNumber(-1)),
    "INVALID_ARGUMENT",
  );
  assert.is(signalNumber("SIGTERM"), 15);
  assert.is(
    codeOf(() => openProcessHandle(2 ** 31 - 1)),
    "NO_SUCH_PROCESS",
  );
});

const Reuse = v.array(
  v.object({
    attempt: v.number(),
    samePid: v.boolean(),
    sameTick: v.boolean(),
    newIdentityDiffers: v.boolean(),
    oldHandleAlive: v.boolean(),
    oldHandleSignal: v.string(),
    reopenWithOldIdentity: v.string(),
    imposterSignals: v.string(),
  }),
);

linuxTest(
  "forced pid reuse (unshare + ns_last_pid): new identity, the old handle cannot signal the imposter",
  () => {
    const probe = spawnSync(
      "unshare",
      ["--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "true"],
      {
        encoding: "utf8",
      },
    );
    if (probe.status !== 0) {
      console.log(`SKIP: unshare refused here: ${probe.stderr.trim()}`);
      return;
    }
    const logs = tempDir("reuse");
    const r = spawnSync(
      "unshare",
      [
        "--user",
        "--map-root-user",
        "--pid",
        "--fork",
        "--mount-proc",
        process.execPath,
        "--import",
        "tsx",
        join(repoRoot, "test", "kernel", "fixtures", "pid-reuse.ts"),
        logs,
        "40",
        "400",
      ],
      { cwd: repoRoot, encoding: "utf8", timeout: 120_000 },
    );
    assert.is(r.status, 0, r.stderr);
    const rows = v.parse(Reuse, JSON.parse(r.stdout.trim().split("\n").pop() ?? "[]"));
    const reused = rows.filter((row) => row.samePid);
    assert.ok(
      reused.length >= rows.length / 2,
      `the pid was reused in ${reused.length}/${rows.length} attempts`,
    );
    for (const row of reused) {
      assert.is(row.newIdentityDiffers, true, `attempt ${row.attempt}: identity`);
      assert.is(
        row.oldHandleAlive,
        false,
        `attempt ${row.attempt}: old handle reports its process gone`,
      );
      assert.is(
        row.oldHandleSignal,
        "NO_SUCH_PROCESS",
        `attempt ${row.attempt}: old handle signal`,
      );
      assert.is(row.reopenWithOldIdentity, "NO_SUCH_PROCESS", `attempt ${row.attempt}: reopen`);
      assert.is(row.imposterSignals, "", `attempt ${row.attempt}: the imposter got no signal`);
    }
    const sameTick = reused.filter((row) => row.sameTick).length;
    console.log(
      `pid reuse: ${reused.length}/${rows.length} reused, ${sameTick} in the same start tick`,
    );
    assert.ok(
      sameTick > 0,
      "at least one imposter had the same pid and start tick (pid + start time is no proof)",
    );
  },
);

test.run();
