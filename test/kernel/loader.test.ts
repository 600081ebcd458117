import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { UsageError } from "../../lib/errors.js";
import { KernelError } from "../../lib/kernel/kernel-error.js";
import { candidateDirs, packageRoot, typedError } from "../../lib/kernel/loader.js";
import { cleanup, linuxOnly, repoRoot, tempDir } from "../helpers/kernel-children.js";

test.after.each(cleanup);
const linuxTest = linuxOnly(test, "the addon loader tests");

/** Run a snippet in a fresh node (tsx) so no earlier import has loaded the addon. */
function fresh(code: string, env: Record<string, string> = {}, preload: string[] = []): unknown {
  const r = spawnSync(
    process.execPath,
    [...preload, "--import", "tsx", "--input-type=module", "-e", code],
    {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, ...env },
    },
  );
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "null");
}

const kernelIndex = JSON.stringify(join(repoRoot, "lib", "kernel", "index.ts"));

linuxTest("importing lib/kernel does not load the .node file; the first call does", () => {
  const out = fresh(`
    const { readFileSync } = await import("node:fs");
    // build/Release/grok_seat_proofs.node from source, prebuilds/<os-arch>/grok-seat.node prebuilt
    const mapped = () => /grok(_seat_proofs|-seat).node/.test(readFileSync("/proc/self/maps", "utf8"));
    const k = await import(${kernelIndex});
    const before = [k.addonLoaded(), mapped()];
    k.kernelInfo();
    console.log(JSON.stringify({ before, after: [k.addonLoaded(), mapped()] }));
  `);
  // /proc/self/maps is the independent oracle: the shared object is not mapped until used.
  assert.equal(out, { before: [false, false], after: [true, true] });
});

linuxTest("the package root is right from lib/ (tsx); the search order is node-gyp-build's", () => {
  assert.is(join(packageRoot()), join(repoRoot, "/"));
  const dirs = candidateDirs("/pkg");
  assert.equal(dirs.slice(0, 3), [
    "/pkg/build/Release",
    "/pkg/build/Debug",
    `/pkg/prebuilds/${process.platform}-${process.arch}`,
  ]);
});

linuxTest("a failed load names every path it tried (ADDON_LOAD_FAILED)", () => {
  const empty = tempDir("noaddon");
  writeFileSync(join(empty, "package.json"), JSON.stringify({ name: "grok-seat" }));
  const out = v.parse(
    v.object({ code: v.string(), message: v.string(), tried: v.array(v.string()) }),
    fresh(
      `
      const k = await import(${kernelIndex});
      try { k.kernelInfo(); console.log("null"); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message, tried: e.context.tried })); }
    `,
      { GROK_SEAT_PREBUILD: empty },
    ),
  );
  assert.is(out.code, "ADDON_LOAD_FAILED");
  assert.ok(out.tried.includes(join(empty, "build", "Release")));
  assert.ok(out.tried.includes(join(empty, "prebuilds", `${process.platform}-${process.arch}`)));
  for (const dir of out.tried) assert.ok(out.message.includes(dir), `message names ${dir}`);
  // A consumer's way out, since npm may skip install scripts until they are approved.
  assert.match(out.message, `no native addon for ${process.platform}-${process.arch}`);
  assert.match(out.message, "npm install-scripts approve grok-seat");
  assert.match(out.message, "npm rebuild grok-seat");
});

linuxTest("an OS without a backend gets UNSUPPORTED, before any load is tried", () => {
  const preload = join(tempDir("os"), "win32.mjs");
  writeFileSync(preload, `Object.defineProperty(process, "platform", { value: "win32" });\n`);
  const out = fresh(
    `
    const k = await import(${kernelIndex});
    try { k.processFacts(process.pid); console.log("null"); }
    catch (e) { console.log(JSON.stringify({ code: e.code, name: e.name, loaded: k.addonLoaded() })); }
  `,
    {},
    ["--import", preload],
  );
  assert.equal(out, { code: "UNSUPPORTED", name: "KernelError", loaded: false });
});

test("native errors become KernelError / UsageError; anything else is SYSCALL_FAILED, never raw", () => {
  const e = typedError(
    Object.assign(new Error("x"), { code: "ZOMBIE", pid: 7, syscall: "read(stat)", errno: 0 }),
  );
  assert.ok(e instanceof KernelError);
  assert.is(e instanceof KernelError && e.code, "ZOMBIE");
  assert.is(e instanceof KernelError && e.pid, 7);
  const u = typedError(
    Object.assign(new Error("y"), {
      code: "INVALID_ARGUMENT",
      pid: null,
      syscall: "pid",
      errno: 0,
    }),
  );
  assert.ok(u instanceof UsageError);
  const odd = typedError("a string");
  assert.ok(odd instanceof KernelError && odd.code === "SYSCALL_FAILED");
});

test.run();
