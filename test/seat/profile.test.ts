/**
 * Profiles, skills and the runtime directory on the real file system: a temporary profile gets
 * only the login file (as auth.json, 0600) in a 0700 directory; symlinks and missing files are
 * refused by name; skills are recorded readable and never copied; the runtime dir is private.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkProfileSpec, LOGIN_FILE_NAME, materializeProfile } from "../../lib/seat/profile.js";
import { checkPrivateDir, createRuntimeDir, removeRuntimeDir } from "../../lib/seat/runtime-dir.js";
import { buildSkillManifest } from "../../lib/seat/skills.js";

let root: string;
test.before.each(() => {
  root = mkdtempSync(join(tmpdir(), "seat-profile-"));
});
test.after.each(() => {
  chmodSync(root, 0o700);
  rmSync(root, { recursive: true, force: true });
});

const failedNames = (checks: readonly { check: string; ok: boolean }[]) =>
  checks.filter((c) => !c.ok).map((c) => c.check);

test("temporary profile: only auth.json, 0600, in a 0700 directory", () => {
  const login = join(root, "my-login.json");
  const content = '{"https://accounts.x.ai":{"key":"k"}}';
  writeFileSync(login, content, { mode: 0o644 });
  assert.equal(failedNames(checkProfileSpec({ kind: "temporary", loginFile: login })), []);
  const rt = join(root, "rt");
  mkdirSync(rt, { mode: 0o700 });
  const { profile, checks } = materializeProfile({ kind: "temporary", loginFile: login }, rt);
  assert.equal(failedNames(checks), []);
  assert.is(profile.kind, "temporary");
  assert.equal(readdirSync(profile.grokHome), [LOGIN_FILE_NAME]);
  const copy = join(profile.grokHome, LOGIN_FILE_NAME);
  assert.is(lstatSync(copy).mode & 0o777, 0o600);
  assert.is(lstatSync(profile.grokHome).mode & 0o777, 0o700);
  assert.is(readFileSync(copy, "utf8"), readFileSync(login, "utf8"));
  assert.equal(profile.loginFile, {
    source: login,
    copiedTo: copy,
    bytes: Buffer.byteLength(content),
  });
});

test("login file: missing and symlinked are refused by name", () => {
  assert.equal(
    failedNames(checkProfileSpec({ kind: "temporary", loginFile: join(root, "nope") })),
    ["profile.login_file"],
  );
  const real = join(root, "real.json");
  writeFileSync(real, "{}");
  const link = join(root, "link.json");
  symlinkSync(real, link);
  assert.equal(failedNames(checkProfileSpec({ kind: "temporary", loginFile: link })), [
    "profile.login_file",
  ]);
});

test("explicit GROK_HOME: must be an existing directory", () => {
  assert.equal(failedNames(checkProfileSpec({ kind: "grok-home", grokHome: root })), []);
  assert.equal(failedNames(checkProfileSpec({ kind: "grok-home", grokHome: join(root, "x") })), [
    "profile.grok_home",
  ]);
  const file = join(root, "file");
  writeFileSync(file, "");
  assert.equal(failedNames(checkProfileSpec({ kind: "grok-home", grokHome: file })), [
    "profile.grok_home",
  ]);
});

test("skills: a manifest of readable paths; unreadable ones fail by name; nothing copied", () => {
  const skillDir = join(root, "skills", "review");
  mkdirSync(skillDir, { recursive: true });
  writeFileSync(join(skillDir, "SKILL.md"), "# review\n");
  const file = join(root, "one.md");
  writeFileSync(file, "hello");
  const { manifest, checks } = buildSkillManifest([skillDir, file, join(root, "missing")]);
  assert.equal(failedNames(checks), ["skills.readable"]);
  assert.equal(
    manifest.map((m) => [m.kind, m.bytes]),
    [
      ["directory", null],
      ["file", 5],
    ],
  );
  assert.equal(readdirSync(skillDir), ["SKILL.md"], "the skill was not touched");
});

test("runtime dir: fresh, ours, 0700; a group-readable dir fails runtime_dir.mode", () => {
  const rt = createRuntimeDir(root);
  assert.equal(failedNames(rt.checks), []);
  assert.ok(rt.socketPath.endsWith("/leader.sock"));
  chmodSync(rt.dir, 0o750);
  assert.equal(failedNames(checkPrivateDir(rt.dir)), ["runtime_dir.mode"]);
  const link = join(root, "link");
  symlinkSync(rt.dir, link);
  assert.ok(failedNames(checkPrivateDir(link)).includes("runtime_dir.symlink"));
  removeRuntimeDir(rt.dir);
  assert.equal(failedNames(checkPrivateDir(rt.dir)), ["runtime_dir.exists"]);
});

test("runtime dir under a long base: the socket path is refused as too long", () => {
  const deep = join(root, "d".repeat(60), "e".repeat(60));
  mkdirSync(deep, { recursive: true });
  const rt = createRuntimeDir(deep);
  assert.equal(failedNames(rt.checks), ["runtime_dir.socket_path_length"]);
});

test.run();
