/**
 * Trusted paths (OpenSSH StrictModes' `safe_path`), on the real file system: the runtime base and
 * GROK_HOME are refused when a directory on the way to `/` is writable by group or others without
 * the sticky bit, or owned by someone other than us or root; a sticky world-writable directory
 * owned by root (like /tmp) is fine for a base but never as GROK_HOME itself. The runtime directory
 * is held open from creation, and a directory renamed away and replaced is told apart (and never
 * removed by us). Owner cases need root to chown (CI runs as root); they say so otherwise.
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { pathAncestry } from "../../lib/kernel/index.js";
import { checkOwnDir, checkSafePath } from "../../lib/proof/safe-path.js";
import { checkProfileSpec } from "../../lib/seat/profile.js";
import {
  checkHeldDir,
  checkRuntimeBase,
  createRuntimeDir,
  letGoDir,
} from "../../lib/seat/runtime-dir.js";

const isRoot = process.geteuid?.() === 0;
const me = process.geteuid?.() ?? 0;
let root: string;
test.before.each(() => {
  root = mkdtempSync(join(tmpdir(), "safe-path-"));
});
test.after.each(() => rmSync(root, { recursive: true, force: true }));

function dir(path: string, mode: number): string {
  mkdirSync(path, { recursive: true });
  chmodSync(path, mode);
  return path;
}

const failed = (checks: readonly { check: string; ok: boolean }[]) =>
  checks.filter((c) => !c.ok).map((c) => c.check);

test("pathAncestry: the path first, / last, nothing followed", () => {
  const d = dir(join(root, "a", "b"), 0o700);
  const entries = pathAncestry(d);
  assert.equal(
    entries.slice(0, 3).map((e) => e.path),
    [d, join(root, "a"), root],
  );
  assert.is(entries.at(-1)?.path, "/");
  const e = entries[0];
  assert.ok(e !== undefined && !("error" in e) && e.type === "directory" && e.mode === 0o700);
});

test("runtime base: 0777 non-sticky refused, 1777 sticky root-owned admitted, a 0777 ancestor refused", () => {
  const open = dir(join(root, "open"), 0o777);
  const r = checkRuntimeBase(open, me);
  assert.is(r.check.ok, false);
  assert.is(r.check.check, "runtime_dir.base");
  assert.match(r.check.reason ?? "", /writable by group or others without the sticky bit/);
  try {
    createRuntimeDir(open);
    assert.unreachable("an unsafe base creates nothing");
  } catch (err) {
    assert.is(err instanceof Error && Reflect.get(err, "code"), "RUNTIME_DIR_UNSAFE");
  }
  assert.is(statSync(open).nlink, 2, "nothing was created in the unsafe base");
  const sticky = dir(join(root, "sticky"), 0o1777);
  assert.is(checkRuntimeBase(sticky, me).check.ok, true, "a sticky base like /tmp");
  const under = dir(join(open, "private"), 0o700);
  const deep = checkRuntimeBase(under, me).check;
  assert.is(deep.ok, false, "a 0777 directory above the base");
  assert.equal(deep.received, { path: open, type: "directory", uid: me, mode: "0777" });
  assert.is(checkRuntimeBase(dir(join(root, "gw"), 0o770), me).check.ok, false, "group-writable");
});

test("runtime base owned by another user (not root): refused even when 0755 or sticky", () => {
  if (!isRoot) return console.log("SKIP: needs root to chown the base to uid 65534");
  const theirs = dir(join(root, "theirs"), 0o755);
  chownSync(theirs, 65534, 65534);
  const r = checkRuntimeBase(theirs, me).check;
  assert.is(r.ok, false);
  assert.match(r.reason ?? "", /owned by uid 65534, neither us/);
  const theirSticky = dir(join(root, "their-sticky"), 0o1777);
  chownSync(theirSticky, 65534, 65534);
  assert.is(
    checkRuntimeBase(theirSticky, me).check.ok,
    false,
    "the owner of a sticky dir can rename",
  );
});

test("GROK_HOME: 0777 refused (profile.grok_home_mode), a 0777 parent refused (profile.grok_home_path)", () => {
  const wide = dir(join(root, "wide-home"), 0o777);
  assert.equal(failed(checkProfileSpec({ kind: "grok-home", grokHome: wide })), [
    "profile.grok_home_mode",
  ]);
  const sticky = dir(join(root, "sticky-home"), 0o1777);
  assert.equal(
    failed(checkProfileSpec({ kind: "grok-home", grokHome: sticky })),
    ["profile.grok_home_mode"],
    "sticky does not stop others creating config.toml in it",
  );
  const parent = dir(join(root, "shared"), 0o777);
  const home = dir(join(parent, ".grok"), 0o700);
  assert.equal(failed(checkProfileSpec({ kind: "grok-home", grokHome: home })), [
    "profile.grok_home_path",
  ]);
  const ok = dir(join(root, "ok", ".grok"), 0o755);
  assert.equal(failed(checkProfileSpec({ kind: "grok-home", grokHome: ok })), []);
});

test("checkSafePath and checkOwnDir: a symlink and a missing component are named", () => {
  assert.is(checkSafePath("x", [{ path: "/nope", error: "ENOENT" }], me).ok, false);
  const own = checkOwnDir(
    "x",
    { path: "/l", type: "symlink", uid: me, mode: 0o777, device: "1", inode: "2" },
    me,
  );
  assert.is(own.ok, false);
});

test("held runtime dir: a rename-and-replace is told apart, and the replacement is never removed", () => {
  const rt = createRuntimeDir(root);
  assert.equal(failed(rt.checks), []);
  assert.is(checkHeldDir(rt.held).ok, true);
  renameSync(rt.dir, join(root, "moved-away"));
  dir(rt.dir, 0o700); // someone else's directory, same name, same mode
  const c = checkHeldDir(rt.held);
  assert.is(c.ok, false);
  assert.is(c.check, "runtime_dir.identity");
  letGoDir(rt.held, true);
  assert.ok(statSync(rt.dir).isDirectory(), "the directory put in its place was left alone");
});

test.run();
