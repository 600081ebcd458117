// @platform linux: uses the grok simulator, not yet verified on macOS
/**
 * test/sim/build.ts: the simulator is a real executable (a Node single-executable app, not
 * `node script.js`), rebuilt only when its inputs change, and safe to request from several
 * processes at once.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureGrokSim } from "../../../helpers/grok-sim.js";
import { buildSim, inputHash, repoRoot, simBinaryPath } from "../../build.js";

function magic(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(4);
    readSync(fd, buf, 0, 4, 0);
    return buf;
  } finally {
    closeSync(fd);
  }
}

function runBuilder(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(repoRoot, "test/sim/build.ts")],
      {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    child.on("exit", (code) => resolve({ code, out }));
  });
}

test("the binary is a native executable with the SEA blob, at .sim-build/bin/grok", async () => {
  const path = await ensureGrokSim();
  assert.is(path, simBinaryPath);
  assert.is(path, join(repoRoot, ".sim-build", "bin", "grok"));
  const st = statSync(path);
  assert.ok((st.mode & 0o111) !== 0, "executable");
  const head = magic(path);
  if (process.platform === "linux") assert.equal([...head], [0x7f, 0x45, 0x4c, 0x46], "ELF");
  else
    assert.ok(head.readUInt32LE(0) === 0xfeedfacf || head.readUInt32BE(0) === 0xcafebabe, "Mach-O");
  assert.ok(
    readFileSync(path).includes("NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1"),
    "fuse flipped",
  );
});

test("up to date: a second build is a no-op and the hash file names the inputs", async () => {
  await ensureGrokSim();
  const before = statSync(simBinaryPath);
  const again = await buildSim();
  assert.is(again, simBinaryPath);
  const after = statSync(simBinaryPath);
  assert.is(after.ino, before.ino, "not replaced");
  assert.is(after.mtimeMs, before.mtimeMs);
  assert.is(
    readFileSync(join(repoRoot, ".sim-build", "bin", "grok.sha256"), "utf8").trim(),
    inputHash(),
  );
});

test("concurrent builders both succeed and agree", async () => {
  await ensureGrokSim();
  const [a, b] = await Promise.all([runBuilder(), runBuilder()]);
  assert.is(a.code, 0, a.out);
  assert.is(b.code, 0, b.out);
  assert.match(a.out, /grok simulator up to date: /);
  assert.match(b.out, /grok simulator up to date: /);
});

test.run();
